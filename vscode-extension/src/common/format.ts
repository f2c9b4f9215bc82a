// Text for search results, call chains and the status bar. Pure: no `vscode` import.

import type { CallStep, FolderStatus, SearchHit, StatusResult } from './protocol';
import { splitSymbolId } from './protocol';

const KIND_ICONS: Record<string, string> = {
  function: 'symbol-function',
  method: 'symbol-method',
  constructor: 'symbol-method',
  class: 'symbol-class',
  interface: 'symbol-interface',
  trait: 'symbol-interface',
  struct: 'symbol-structure',
  enum: 'symbol-enum',
  module: 'symbol-module',
  namespace: 'symbol-namespace',
  file: 'symbol-file',
  constant: 'symbol-constant',
  variable: 'symbol-variable',
  field: 'symbol-field',
  property: 'symbol-property',
  type: 'symbol-type-parameter',
};

export function kindIcon(kind: string): string {
  return KIND_ICONS[kind.toLowerCase()] ?? 'symbol-misc';
}

export function formatScore(score: number): string {
  if (!Number.isFinite(score)) {
    return '';
  }
  return score >= 100 ? score.toFixed(0) : score.toFixed(2);
}

export interface SearchItemText {
  label: string;
  description: string;
  detail?: string;
}

/** One QuickPick row: name (with its kind's icon), then kind · path:line · score. */
export function searchItemText(hit: SearchHit, folderName?: string): SearchItemText {
  const where = `${folderName ? `${folderName}/` : ''}${hit.path}:${hit.start_line}`;
  const name = hit.qualified_name || hit.name;
  return {
    label: `$(${kindIcon(hit.kind)}) ${name}`,
    description: `${hit.kind} · ${where} · ${formatScore(hit.score)}`,
    detail: hit.snippet ? hit.snippet.split('\n').find((l) => l.trim())?.trim() : undefined,
  };
}

/** The short name of a symbol id (`src/a.py::Client.fetch` → `Client.fetch`). */
export function shortName(id: string): string {
  return splitSymbolId(id).qualifiedName || id;
}

/** `checkout → Client.fetch → Client.send`. */
export function chainLabel(chain: CallStep[]): string {
  if (chain.length === 0) {
    return '(empty chain)';
  }
  return [shortName(chain[0].caller), ...chain.map((s) => shortName(s.callee))].join(' → ');
}

export function chainDescription(chain: CallStep[]): string {
  const calls = `${chain.length} call${chain.length === 1 ? '' : 's'}`;
  const weakest = Math.min(...chain.map((s) => s.confidence));
  const unsure = chain.some((s) => s.ambiguous) ? ' · ambiguous' : '';
  return `${calls} · confidence ≥ ${weakest.toFixed(2)}${unsure}`;
}

/** One call site in a chain, under the chain: `Client.fetch`, `src/shop/cart.py:19 · name 0.30`. */
export function stepText(step: CallStep): { label: string; description: string; tooltip: string } {
  return {
    label: shortName(step.callee),
    description: `${step.path}:${step.line} · ${step.reason} ${step.confidence.toFixed(2)}${step.ambiguous ? ' · ambiguous' : ''}`,
    tooltip: `${step.caller} calls ${step.callee} at ${step.path}:${step.line}:${step.col + 1} (resolved by ${step.reason}, confidence ${step.confidence})`,
  };
}

export interface ProgressView {
  title?: string;
  message?: string;
  percentage?: number;
}

export interface StatusBarText {
  text: string;
  tooltip: string;
  kind: 'normal' | 'busy' | 'warning' | 'error';
}

function count(n: number | undefined, word: string): string {
  const v = n ?? 0;
  return `${v.toLocaleString('en-US')} ${word}${v === 1 ? '' : 's'}`;
}

function folderLine(f: FolderStatus): string {
  const name = f.root.split(/[\\/]/).filter(Boolean).pop() ?? f.root;
  const parts = [`${name}: ${f.state}`, count(f.files, 'file'), count(f.symbols, 'symbol')];
  if (f.pending_embeddings) {
    parts.push(`${count(f.pending_embeddings, 'embedding')} pending`);
  }
  if (f.error) {
    parts.push(f.error);
  }
  return parts.join(', ');
}

/**
 * The status bar item: progress while an index run reports it, else the index state.
 * `serverState` covers the process itself (starting, stopped, failed to start).
 */
export function statusBarText(
  serverState: 'starting' | 'running' | 'stopped' | 'failed',
  status?: StatusResult,
  progress?: ProgressView,
): StatusBarText {
  if (serverState === 'failed') {
    return { text: '$(error) codeloupe', tooltip: 'codeloupe: the server is not running (see the logs)', kind: 'error' };
  }
  if (serverState === 'stopped') {
    return { text: '$(circle-slash) codeloupe', tooltip: 'codeloupe: the server is stopped', kind: 'warning' };
  }
  if (progress) {
    const pct = progress.percentage !== undefined ? ` ${Math.round(progress.percentage)}%` : '';
    const msg = progress.message ?? progress.title ?? 'indexing';
    return {
      text: `$(sync~spin) codeloupe${pct}`,
      tooltip: `${progress.title ?? 'codeloupe'}: ${msg}`,
      kind: 'busy',
    };
  }
  if (serverState === 'starting' || !status) {
    return { text: '$(sync~spin) codeloupe', tooltip: 'codeloupe: starting the server', kind: 'busy' };
  }
  const lines = status.folders.map(folderLine);
  const tooltip = [`codeloupe ${status.version}: ${status.state}`, ...lines].join('\n');
  const symbols = status.folders.reduce((n, f) => n + (f.symbols ?? 0), 0);
  switch (status.state) {
    case 'ready':
      return { text: `$(check) codeloupe ${count(symbols, 'symbol')}`, tooltip, kind: 'normal' };
    case 'failed':
      return { text: '$(warning) codeloupe: index failed', tooltip, kind: 'error' };
    default:
      return { text: `$(sync~spin) codeloupe: ${status.state}`, tooltip, kind: 'busy' };
  }
}

/** Markdown for "Show Status". */
export function statusMarkdown(status: StatusResult, python: string): string {
  const out = [`**codeloupe ${status.version}** — ${status.state}`, '', `Interpreter: \`${python}\``, ''];
  for (const f of status.folders) {
    out.push(`- ${folderLine(f)}`);
    if (f.model) {
      out.push(`  - model: \`${f.model}\``);
    }
    if (f.index) {
      out.push(`  - index: \`${f.index}\``);
    }
  }
  return out.join('\n');
}
