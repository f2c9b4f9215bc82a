// Opening a relative path of a workspace folder at a line range, and previewing it.

import * as vscode from 'vscode';

const highlight = vscode.window.createTextEditorDecorationType({
  backgroundColor: new vscode.ThemeColor('editor.rangeHighlightBackground'),
  isWholeLine: true,
});

export function resolvePath(folder: vscode.WorkspaceFolder | undefined, relPath: string): vscode.Uri | undefined {
  if (/^[a-z][\w+.-]*:\/\//i.test(relPath)) {
    return vscode.Uri.parse(relPath);
  }
  if (relPath.startsWith('/')) {
    return vscode.Uri.file(relPath);
  }
  return folder ? vscode.Uri.joinPath(folder.uri, relPath) : undefined;
}

/** 1-based inclusive lines → a range over whole lines. */
export function lineRange(startLine: number, endLine: number = startLine): vscode.Range {
  const start = Math.max(0, startLine - 1);
  const end = Math.max(start, endLine - 1);
  return new vscode.Range(start, 0, end, Number.MAX_SAFE_INTEGER);
}

export interface OpenOptions {
  preview?: boolean;
  preserveFocus?: boolean;
  viewColumn?: vscode.ViewColumn;
  /** Column (0-based) on the first line to put the cursor at. */
  column?: number;
}

/** Opens `uri` with the cursor on `startLine` and the lines highlighted briefly. */
export async function openAt(
  uri: vscode.Uri,
  startLine: number,
  endLine: number = startLine,
  options: OpenOptions = {},
): Promise<vscode.TextEditor> {
  const doc = await vscode.workspace.openTextDocument(uri);
  const line = Math.min(Math.max(0, startLine - 1), Math.max(0, doc.lineCount - 1));
  const column = options.column ?? doc.lineAt(line).firstNonWhitespaceCharacterIndex;
  const cursor = new vscode.Position(line, column);
  const editor = await vscode.window.showTextDocument(doc, {
    preview: options.preview ?? false,
    preserveFocus: options.preserveFocus ?? false,
    viewColumn: options.viewColumn,
    selection: new vscode.Range(cursor, cursor),
  });
  const range = doc.validateRange(lineRange(startLine, endLine));
  editor.revealRange(range, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
  editor.setDecorations(highlight, [range]);
  setTimeout(() => editor.setDecorations(highlight, []), options.preserveFocus ? 4000 : 1500);
  return editor;
}
