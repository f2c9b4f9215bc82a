// "codeloupe: Search Codebase": a QuickPick that searches as you type.

import * as vscode from 'vscode';
import { debounce, Latest } from '../common/debounce';
import { searchItemText } from '../common/format';
import { describe, Log } from '../common/logging';
import { SERVER_COMMANDS, SearchHit, SearchResult } from '../common/protocol';
import { CodeloupeServer } from '../common/server';
import { openAt, resolvePath } from './locations';

export const SEARCH_DEBOUNCE_MS = 200;
const RESULTS = 25;

interface HitItem extends vscode.QuickPickItem {
  hit: SearchHit;
  folder: vscode.WorkspaceFolder;
}

/** Every folder's hits for `query`, best first. */
export async function searchAll(
  server: CodeloupeServer,
  query: string,
  k: number,
  token?: vscode.CancellationToken,
): Promise<{ hits: { hit: SearchHit; folder: vscode.WorkspaceFolder }[]; pending: number }> {
  const folders = vscode.workspace.workspaceFolders ?? [];
  const answers = await Promise.all(
    folders.map(async (folder) => {
      const res = await server.command<SearchResult>(
        SERVER_COMMANDS.search, { query, k, folder: folder.uri.toString() }, token);
      return { folder, res };
    }),
  );
  const hits = answers.flatMap(({ folder, res }) => res.results.map((hit) => ({ hit, folder })));
  hits.sort((a, b) => b.hit.score - a.hit.score);
  return { hits: hits.slice(0, k), pending: answers.reduce((n, a) => n + (a.res.pending_embeddings ?? 0), 0) };
}

export async function searchCodebase(server: CodeloupeServer, log: Log, initial?: string): Promise<void> {
  const multiRoot = (vscode.workspace.workspaceFolders?.length ?? 0) > 1;
  const qp = vscode.window.createQuickPick<HitItem>();
  qp.title = 'codeloupe: Search Codebase';
  qp.placeholder = 'Describe what the code does, or name it (Client.fetch)';
  qp.matchOnDescription = false;
  qp.matchOnDetail = false;
  const previous = vscode.window.activeTextEditor;
  const latest = new Latest();
  let accepted = false;
  let cancel: vscode.CancellationTokenSource | undefined;

  const run = debounce(async (query: string) => {
    const ticket = latest.next();
    cancel?.cancel();
    cancel = new vscode.CancellationTokenSource();
    if (!query.trim()) {
      qp.items = [];
      qp.busy = false;
      return;
    }
    try {
      const { hits, pending } = await searchAll(server, query, RESULTS, cancel.token);
      if (!latest.isCurrent(ticket)) {
        return;
      }
      qp.items = hits.map(({ hit, folder }) => ({
        ...searchItemText(hit, multiRoot ? folder.name : undefined),
        alwaysShow: true,
        hit,
        folder,
      }));
      qp.title = pending
        ? `codeloupe: Search Codebase (${pending} symbols still waiting for embeddings: found by name only)`
        : 'codeloupe: Search Codebase';
      if (hits.length === 0) {
        qp.items = [];
        qp.title = `codeloupe: no results for "${query}"`;
      }
    } catch (err) {
      if (latest.isCurrent(ticket)) {
        qp.items = [];
        qp.title = `codeloupe: search failed: ${describe(err)}`;
        log.error(`search "${query}"`, err);
      }
    } finally {
      if (latest.isCurrent(ticket)) {
        qp.busy = false;
      }
    }
  }, SEARCH_DEBOUNCE_MS);

  qp.onDidChangeValue((value) => {
    qp.busy = value.trim() !== '';
    run(value);
  });
  qp.onDidChangeActive((items) => {
    const item = items[0];
    const uri = item && resolvePath(item.folder, item.hit.path);
    if (uri) {
      openAt(uri, item.hit.start_line, item.hit.end_line, { preview: true, preserveFocus: true })
        .catch((err) => log.warn(`preview ${item.hit.path}: ${describe(err)}`));
    }
  });
  qp.onDidAccept(() => {
    const item = qp.selectedItems[0] ?? qp.activeItems[0];
    if (!item) {
      return;
    }
    accepted = true;
    qp.hide();
    const uri = resolvePath(item.folder, item.hit.path);
    if (uri) {
      openAt(uri, item.hit.start_line, item.hit.end_line).catch((err) =>
        void log.surface('open', `codeloupe: cannot open ${item.hit.path}: ${describe(err)}`));
    }
  });
  qp.onDidHide(() => {
    run.cancel();
    latest.invalidate();
    cancel?.cancel();
    qp.dispose();
    if (!accepted && previous && !previous.document.isClosed) {
      void vscode.window.showTextDocument(previous.document, {
        viewColumn: previous.viewColumn,
        selection: previous.selection,
        preview: false,
      });
    }
  });
  qp.show();
  if (initial) {
    qp.value = initial;
    run(initial);
  }
}
