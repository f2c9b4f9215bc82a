// "codeloupe: Show Call Chain": pick two symbols, see the chains as a tree.

import * as vscode from 'vscode';
import { SymbolKind as LspSymbolKind, WorkspaceSymbol, SymbolInformation, WorkspaceSymbolRequest } from 'vscode-languageclient/node';
import { debounce, Latest } from '../common/debounce';
import { chainDescription, chainLabel, shortName, stepText } from '../common/format';
import { describe, Log } from '../common/logging';
import { CallChainResult, CallStep, SERVER_COMMANDS, workspaceSymbolId } from '../common/protocol';
import { CodeloupeServer } from '../common/server';
import { openAt, resolvePath } from './locations';

export const OPEN_LOCATION = 'codeloupe.openLocation';

interface SymbolItem extends vscode.QuickPickItem {
  id: string;
  folder: vscode.WorkspaceFolder;
}

const SYMBOL_ICONS: Partial<Record<number, string>> = {
  [LspSymbolKind.Class]: 'symbol-class',
  [LspSymbolKind.Method]: 'symbol-method',
  [LspSymbolKind.Function]: 'symbol-function',
  [LspSymbolKind.Constructor]: 'symbol-method',
  [LspSymbolKind.Interface]: 'symbol-interface',
  [LspSymbolKind.Struct]: 'symbol-structure',
  [LspSymbolKind.Module]: 'symbol-module',
  [LspSymbolKind.Variable]: 'symbol-variable',
  [LspSymbolKind.Constant]: 'symbol-constant',
};

/** One QuickPick over the server's workspace symbols, searched as you type. */
async function pickSymbol(
  server: CodeloupeServer,
  log: Log,
  title: string,
  initial: string,
): Promise<SymbolItem | undefined> {
  const client = await server.ready();
  const qp = vscode.window.createQuickPick<SymbolItem>();
  qp.title = title;
  qp.placeholder = 'Type a function, method or class name';
  qp.matchOnDescription = true;
  const latest = new Latest();
  const query = debounce(async (value: string) => {
    const ticket = latest.next();
    qp.busy = true;
    try {
      const found = (await client.sendRequest(WorkspaceSymbolRequest.type, { query: value })) ?? [];
      if (!latest.isCurrent(ticket)) {
        return;
      }
      qp.items = (found as (WorkspaceSymbol | SymbolInformation)[]).flatMap((s) => {
        const uri = vscode.Uri.parse(s.location.uri);
        const folder = vscode.workspace.getWorkspaceFolder(uri);
        if (!folder) {
          return [];
        }
        const rel = vscode.workspace.asRelativePath(uri, false);
        const line = 'range' in s.location ? s.location.range.start.line + 1 : undefined;
        const qualified = s.containerName ? `${s.containerName}.${s.name}` : s.name;
        return [{
          label: `$(${SYMBOL_ICONS[s.kind] ?? 'symbol-misc'}) ${qualified}`,
          description: line ? `${rel}:${line}` : rel,
          alwaysShow: true,
          id: workspaceSymbolId(rel, s),
          folder,
        }];
      });
    } catch (err) {
      log.warn(`workspace symbols "${value}": ${describe(err)}`);
    } finally {
      if (latest.isCurrent(ticket)) {
        qp.busy = false;
      }
    }
  }, 150);
  return new Promise((resolve) => {
    let picked: SymbolItem | undefined;
    qp.onDidChangeValue((v) => query(v));
    qp.onDidAccept(() => {
      picked = qp.selectedItems[0] ?? qp.activeItems[0];
      if (picked) {
        qp.hide();
      }
    });
    qp.onDidHide(() => {
      query.cancel();
      latest.invalidate();
      qp.dispose();
      resolve(picked);
    });
    qp.value = initial;
    qp.show();
    query(initial);
  });
}

type Node =
  | { type: 'query'; from: string; to: string; chains: CallStep[][]; folder: vscode.WorkspaceFolder }
  | { type: 'chain'; chain: CallStep[]; index: number; folder: vscode.WorkspaceFolder }
  | { type: 'step'; step: CallStep; folder: vscode.WorkspaceFolder };

export class CallChainTree implements vscode.TreeDataProvider<Node>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<Node | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private queries: Extract<Node, { type: 'query' }>[] = [];
  private readonly children = new Map<Node, Node[]>();

  getTreeItem(node: Node): vscode.TreeItem {
    if (node.type === 'query') {
      const item = new vscode.TreeItem(`${shortName(node.from)} → ${shortName(node.to)}`,
        vscode.TreeItemCollapsibleState.Expanded);
      item.description = node.chains.length ? `${node.chains.length} chain${node.chains.length === 1 ? '' : 's'}` : 'no chain';
      item.iconPath = new vscode.ThemeIcon('type-hierarchy');
      item.tooltip = `${node.from} → ${node.to}`;
      return item;
    }
    if (node.type === 'chain') {
      const item = new vscode.TreeItem(chainLabel(node.chain),
        node.index === 0 ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.Collapsed);
      item.description = chainDescription(node.chain);
      item.iconPath = new vscode.ThemeIcon('git-commit');
      return item;
    }
    const text = stepText(node.step);
    const item = new vscode.TreeItem(text.label, vscode.TreeItemCollapsibleState.None);
    item.description = text.description;
    item.tooltip = text.tooltip;
    item.iconPath = new vscode.ThemeIcon(node.step.ambiguous ? 'warning' : 'call-outgoing');
    item.command = {
      command: OPEN_LOCATION,
      title: 'Open Call Site',
      arguments: [node.folder.uri.toString(), node.step.path, node.step.line, node.step.col],
    };
    return item;
  }

  getChildren(node?: Node): Node[] {
    if (!node) {
      return this.queries;
    }
    return this.children.get(node) ?? [];
  }

  getParent(node: Node): Node | undefined {
    for (const [parent, kids] of this.children) {
      if (kids.includes(node)) {
        return parent;
      }
    }
    return undefined;
  }

  /** Adds a result on top (the last five are kept); returns its node. */
  add(from: string, to: string, chains: CallStep[][], folder: vscode.WorkspaceFolder): Node {
    const query: Extract<Node, { type: 'query' }> = { type: 'query', from, to, chains, folder };
    const chainNodes: Node[] = chains.map((chain, index) => ({ type: 'chain', chain, index, folder }));
    this.children.set(query, chainNodes);
    for (const c of chainNodes) {
      if (c.type === 'chain') {
        this.children.set(c, c.chain.map((step) => ({ type: 'step', step, folder })));
      }
    }
    this.queries = [query, ...this.queries.filter((q) => !(q.from === from && q.to === to))].slice(0, 5);
    for (const key of [...this.children.keys()]) {
      if (key.type === 'query' && !this.queries.includes(key)) {
        for (const c of this.children.get(key) ?? []) {
          this.children.delete(c);
        }
        this.children.delete(key);
      }
    }
    this.changed.fire(undefined);
    return query;
  }

  clear(): void {
    this.queries = [];
    this.children.clear();
    this.changed.fire(undefined);
  }

  get empty(): boolean {
    return this.queries.length === 0;
  }

  dispose(): void {
    this.changed.dispose();
  }
}

export function registerCallChains(server: CodeloupeServer, log: Log): vscode.Disposable[] {
  const tree = new CallChainTree();
  const view = vscode.window.createTreeView('codeloupe.callChains', { treeDataProvider: tree, showCollapseAll: true });

  const show = async () => {
    const editor = vscode.window.activeTextEditor;
    const word = editor ? editor.document.getText(editor.document.getWordRangeAtPosition(editor.selection.active)) : '';
    const from = await pickSymbol(server, log, 'codeloupe: Show Call Chain (1/2) — from', word);
    if (!from) {
      return;
    }
    const to = await pickSymbol(server, log, `codeloupe: Show Call Chain (2/2) — from ${shortName(from.id)} to`, '');
    if (!to) {
      return;
    }
    if (to.folder.uri.toString() !== from.folder.uri.toString()) {
      void vscode.window.showWarningMessage('codeloupe: both symbols must be in the same workspace folder.');
      return;
    }
    try {
      const result = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Window, title: 'codeloupe: finding call chains' },
        (_p, token) => server.command<CallChainResult>(
          SERVER_COMMANDS.callChain, { from: from.id, to: to.id, folder: from.folder.uri.toString() }, token),
      );
      const node = tree.add(from.id, to.id, result.chains, from.folder);
      await vscode.commands.executeCommand('setContext', 'codeloupe.hasCallChains', true);
      await view.reveal(node, { expand: 2, focus: true, select: true });
      if (result.chains.length === 0) {
        void vscode.window.showInformationMessage(
          `codeloupe: ${shortName(from.id)} does not reach ${shortName(to.id)} through the call graph.`);
      }
    } catch (err) {
      void log.surface('callChain', `codeloupe: call chain failed: ${describe(err)}`);
    }
  };

  return [
    tree,
    view,
    vscode.commands.registerCommand('codeloupe.callChain', show),
    vscode.commands.registerCommand('codeloupe.callChains.clear', async () => {
      tree.clear();
      await vscode.commands.executeCommand('setContext', 'codeloupe.hasCallChains', false);
    }),
    vscode.commands.registerCommand(OPEN_LOCATION, async (folderUri: string, relPath: string, line: number, col?: number) => {
      const folder = vscode.workspace.getWorkspaceFolder(vscode.Uri.parse(folderUri));
      const uri = resolvePath(folder, relPath);
      if (uri) {
        await openAt(uri, line, line, { column: col });
      }
    }),
  ];
}
