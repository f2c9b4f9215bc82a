// "codeloupe: Show Status" and "codeloupe: Reindex Workspace".

import * as vscode from 'vscode';
import { statusMarkdown } from '../common/format';
import { describe, Log } from '../common/logging';
import { ReindexResult, SERVER_COMMANDS, StatusResult } from '../common/protocol';
import { CodeloupeServer } from '../common/server';
import { StatusBar } from '../common/statusBar';

export async function showStatus(server: CodeloupeServer, bar: StatusBar, log: Log): Promise<void> {
  if (server.state !== 'running') {
    const choice = await vscode.window.showWarningMessage(
      `codeloupe: the server is ${server.state} (interpreter: ${server.interpreter?.path ?? 'not chosen yet'}).`,
      'Restart Server', 'Show Logs');
    if (choice === 'Restart Server') {
      await server.restart('asked from Show Status');
    } else if (choice === 'Show Logs') {
      log.show();
    }
    return;
  }
  let status: StatusResult | undefined;
  try {
    status = await bar.refresh();
  } catch (err) {
    void log.surface('status', `codeloupe: status failed: ${describe(err)}`);
    return;
  }
  if (!status) {
    return;
  }
  log.info(`status:\n${JSON.stringify(status, null, 2)}`);
  const items: (vscode.QuickPickItem & { action?: string })[] = [
    { label: `$(info) codeloupe ${status.version}: ${status.state}`, description: server.interpreter?.path },
    ...status.folders.map((f) => ({
      label: `$(folder) ${f.root.split(/[\\/]/).pop()}: ${f.state}`,
      description: `${f.files ?? 0} files · ${f.symbols ?? 0} symbols${f.pending_embeddings ? ` · ${f.pending_embeddings} embeddings pending` : ''}`,
      detail: [f.model && `model ${f.model}`, f.index && `index ${f.index}`, f.error].filter(Boolean).join(' · '),
    })),
    { label: '', kind: vscode.QuickPickItemKind.Separator },
    { label: '$(refresh) Reindex Workspace', action: 'codeloupe.reindex' },
    { label: '$(output) Show Logs', action: 'codeloupe.showLogs' },
    { label: '$(markdown) Open as Markdown', action: 'markdown' },
    { label: '$(debug-restart) Restart Server', action: 'codeloupe.restart' },
  ];
  const picked = await vscode.window.showQuickPick(items, { title: 'codeloupe: Status' });
  if (picked?.action === 'markdown') {
    const doc = await vscode.workspace.openTextDocument({
      language: 'markdown', content: statusMarkdown(status, server.interpreter?.path ?? '?'),
    });
    await vscode.window.showTextDocument(doc, { preview: true });
  } else if (picked?.action) {
    await vscode.commands.executeCommand(picked.action);
  }
}

export async function reindex(server: CodeloupeServer, bar: StatusBar, log: Log): Promise<void> {
  try {
    await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: 'codeloupe: reindexing the workspace', cancellable: true },
      async (_progress, token) => {
        const res = await server.command<ReindexResult>(SERVER_COMMANDS.reindex, { wait: true }, token);
        const files = res.folders.reduce((n, f) => n + (f.files ?? 0), 0);
        const symbols = res.folders.reduce((n, f) => n + (f.symbols ?? 0), 0);
        void vscode.window.showInformationMessage(`codeloupe: index up to date (${files} files, ${symbols} symbols).`);
      },
    );
  } catch (err) {
    void log.surface('reindex', `codeloupe: reindex failed: ${describe(err)}`);
  }
  await bar.refresh();
}
