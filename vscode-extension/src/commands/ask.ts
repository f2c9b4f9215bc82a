// "codeloupe: Ask About Codebase": an input box, then a panel with the streamed
// markdown answer (plain while it streams); once the server's citations arrive,
// each is a link to its range.

import MarkdownIt from 'markdown-it';
import * as vscode from 'vscode';
import { citationHref, LinkableCitation, linkCitations, parseCitationHref, snippetsToMarkdown } from '../common/citations';
import { describe, Log } from '../common/logging';
import { AskSource } from '../common/protocol';
import { CodeloupeServer } from '../common/server';
import { Answer, answerQuestion, chatModelForAsk } from './answer';
import { openAt, resolvePath } from './locations';

const md = new MarkdownIt({ html: false, linkify: false, breaks: false });

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);
}

/** HTML of a markdown answer; with the server's citations, each links to its range. */
export function renderAnswer(markdown: string, citations?: readonly LinkableCitation[]): string {
  return md.render(citations ? linkCitations(markdown, citations) : markdown);
}

function renderSources(sources: AskSource[], unverified: string[]): string {
  if (sources.length === 0 && unverified.length === 0) {
    return '';
  }
  const items = sources.map((s) => {
    const range = s.end_line > s.start_line ? `${s.start_line}-${s.end_line}` : `${s.start_line}`;
    const href = citationHref(s);
    const cited = s.cited ? ' <span class="cited" title="cited in the answer">✓ cited</span>' : '';
    return `<li><a href="${escapeHtml(href)}" class="source"><code>${escapeHtml(s.qualified_name || s.path)}</code></a> <span class="where">${escapeHtml(`${s.path}:${range}`)}</span>${cited}</li>`;
  });
  let html = `<h3>Sources</h3><ol class="sources">${items.join('')}</ol>`;
  if (unverified.length) {
    html += `<p class="unverified">⚠ Cited but not among the sources sent: ${unverified.map((u) => `<code>${escapeHtml(u)}</code>`).join(', ')}</p>`;
  }
  return html;
}

export class AskPanel implements vscode.Disposable {
  private static current: AskPanel | undefined;
  private readonly panel: vscode.WebviewPanel;
  private readonly disposables: vscode.Disposable[] = [];
  private cancel = new vscode.CancellationTokenSource();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private state = { question: '', stage: '', answer: '', footer: '', sources: '', context: '', note: '', error: '' };

  static show(): AskPanel {
    if (AskPanel.current) {
      AskPanel.current.panel.reveal(vscode.ViewColumn.Beside, false);
      return AskPanel.current;
    }
    AskPanel.current = new AskPanel();
    return AskPanel.current;
  }

  private constructor() {
    this.panel = vscode.window.createWebviewPanel('codeloupe.ask', 'codeloupe: Ask', vscode.ViewColumn.Beside, {
      enableScripts: true,
      enableFindWidget: true,
      retainContextWhenHidden: true,
      localResourceRoots: [],
    });
    this.panel.webview.html = this.shell();
    this.disposables.push(
      this.panel.onDidDispose(() => this.dispose()),
      this.panel.webview.onDidReceiveMessage((m: { type: string; href?: string }) => {
        if (m.type === 'open' && m.href) {
          void this.open(m.href);
        } else if (m.type === 'ready') {
          this.flush();
        }
      }),
    );
  }

  /** A fresh question: cancels the one before. */
  begin(question: string): vscode.CancellationToken {
    this.cancel.cancel();
    this.cancel.dispose();
    this.cancel = new vscode.CancellationTokenSource();
    this.panel.title = `codeloupe: ${question.length > 40 ? `${question.slice(0, 40)}…` : question}`;
    this.state = { question: escapeHtml(question), stage: '', answer: '', footer: '', sources: '', context: '', note: '', error: '' };
    this.update();
    return this.cancel.token;
  }

  stage(message: string): void {
    this.state.stage = escapeHtml(message);
    this.update();
  }

  /** The answer so far, unlinked: citations are linked when the server has checked them. */
  text(answer: string): void {
    this.state.stage = '';
    this.state.answer = renderAnswer(answer);
    this.update();
  }

  finish(a: Answer): void {
    this.state.stage = '';
    this.state.answer = a.answer ? renderAnswer(a.answer, a.citations) : '';
    this.state.sources = renderSources(a.result.sources, a.unverified);
    const by = a.via === 'chat-model' ? `${a.model} (VS Code chat model)` : a.model;
    this.state.footer = by
      ? escapeHtml(`Answered by ${by} from ${a.result.sources.length} sources${a.result.context_tokens ? `, ${a.result.context_tokens} context tokens` : ''}.`)
      : '';
    if (a.via === 'none') {
      this.state.note = escapeHtml(a.result.note ?? 'No language model is configured: set "codeloupe.llmEndpoint" (and "codeloupe: Set LLM API Key"), or sign in to a VS Code chat model. The code the question retrieved is below.');
      this.state.context = a.result.snippets.length ? md.render(snippetsToMarkdown(a.result.snippets)) : '';
    } else if (a.result.cut_off) {
      this.state.note = escapeHtml(a.result.note ?? `The answer was cut off (${a.result.cut_off}).`);
    } else if (a.uncheckedBecause) {
      this.state.note = escapeHtml(`The citations could not be checked: ${a.uncheckedBecause}`);
    }
    this.flush();
  }

  fail(message: string): void {
    this.state.stage = '';
    this.state.error = escapeHtml(message);
    this.flush();
  }

  private update(): void {
    if (this.timer === undefined) {
      this.timer = setTimeout(() => this.flush(), 50);
    }
  }

  private flush(): void {
    if (this.timer !== undefined) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    void this.panel.webview.postMessage({ type: 'update', parts: this.state });
  }

  private async open(href: string): Promise<void> {
    const target = parseCitationHref(href);
    if (!target) {
      return;
    }
    for (const folder of vscode.workspace.workspaceFolders ?? []) {
      const uri = resolvePath(folder, target.path);
      if (!uri) {
        continue;
      }
      try {
        await vscode.workspace.fs.stat(uri);
      } catch {
        continue;
      }
      await openAt(uri, target.startLine, target.endLine, { viewColumn: vscode.ViewColumn.One });
      return;
    }
    void vscode.window.showWarningMessage(`codeloupe: ${target.path} is not in this workspace.`);
  }

  private shell(): string {
    const nonce = [...Array(24)].map(() => Math.floor(Math.random() * 36).toString(36)).join('');
    const csp = `default-src 'none'; style-src ${this.panel.webview.cspSource} 'unsafe-inline'; script-src 'nonce-${nonce}';`;
    return `<!DOCTYPE html>
<html lang="en"><head><meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<style>
body { font-family: var(--vscode-font-family); font-size: var(--vscode-font-size); color: var(--vscode-foreground); padding: 0 1.2em 2em; line-height: 1.5; }
h2.question { font-size: 1.2em; border-bottom: 1px solid var(--vscode-panel-border); padding-bottom: .4em; }
.stage { color: var(--vscode-descriptionForeground); font-style: italic; }
.note { border-left: 3px solid var(--vscode-editorInfo-foreground); padding: .3em .8em; background: var(--vscode-textBlockQuote-background); }
.error { border-left: 3px solid var(--vscode-editorError-foreground); padding: .3em .8em; color: var(--vscode-errorForeground); }
.unverified { color: var(--vscode-editorWarning-foreground); }
.footer, .where { color: var(--vscode-descriptionForeground); }
.cited { color: var(--vscode-testing-iconPassed, var(--vscode-charts-green)); }
pre { background: var(--vscode-textCodeBlock-background); padding: .6em; overflow-x: auto; }
code { font-family: var(--vscode-editor-font-family); }
a { color: var(--vscode-textLink-foreground); cursor: pointer; }
details summary { cursor: pointer; margin: 1em 0 .5em; }
</style></head>
<body>
<h2 class="question" id="question"></h2>
<p class="stage" id="stage"></p>
<div class="error" id="error" hidden></div>
<div class="note" id="note" hidden></div>
<div class="answer" id="answer"></div>
<p class="footer" id="footer"></p>
<div id="sources"></div>
<details id="context-box" hidden open><summary>Retrieved context</summary><div id="context"></div></details>
<script nonce="${nonce}">
const vscode = acquireVsCodeApi();
const ids = ['question', 'stage', 'answer', 'footer', 'sources', 'context', 'note', 'error'];
window.addEventListener('message', (event) => {
  const m = event.data;
  if (m.type !== 'update') return;
  for (const id of ids) {
    const el = document.getElementById(id);
    el.innerHTML = m.parts[id] || '';
    if (id === 'note' || id === 'error') el.hidden = !m.parts[id];
  }
  document.getElementById('context-box').hidden = !m.parts.context;
});
document.addEventListener('click', (event) => {
  const a = event.target.closest('a');
  if (!a) return;
  const href = a.getAttribute('href') || '';
  if (href.startsWith('codeloupe-source:')) {
    event.preventDefault();
    vscode.postMessage({ type: 'open', href });
  }
});
vscode.postMessage({ type: 'ready' });
</script>
</body></html>`;
  }

  dispose(): void {
    if (AskPanel.current === this) {
      AskPanel.current = undefined;
    }
    this.cancel.cancel();
    this.cancel.dispose();
    if (this.timer !== undefined) {
      clearTimeout(this.timer);
    }
    for (const d of this.disposables) {
      d.dispose();
    }
    this.panel.dispose();
  }
}

export async function askCodebase(server: CodeloupeServer, log: Log, preset?: string): Promise<void> {
  const question = preset ?? (await vscode.window.showInputBox({
    title: 'codeloupe: Ask About Codebase',
    prompt: 'Ask a question about this codebase; the answer cites its sources.',
    placeHolder: 'How does a failed upload get retried end to end?',
    ignoreFocusOut: true,
  }));
  if (!question?.trim()) {
    return;
  }
  const panel = AskPanel.show();
  const token = panel.begin(question.trim());
  try {
    const model = await chatModelForAsk();
    const answer = await answerQuestion(server, question.trim(), panel, token, model);
    if (!token.isCancellationRequested) {
      panel.finish(answer);
    }
  } catch (err) {
    if (token.isCancellationRequested) {
      return;
    }
    const message = describe(err);
    log.error(`ask "${question}"`, err);
    panel.fail(/unknown command|not found|-32601|codeloupe\.server\.ask/i.test(message)
      ? `This codeloupe server cannot answer questions yet (${message}). Update codeloupe in ${server.interpreter?.path ?? 'its Python environment'}.`
      : `codeloupe could not answer: ${message}`);
  }
}
