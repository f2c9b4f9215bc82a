// Shapes of the codeloupe server's commands (docs/protocol.md). Pure: no `vscode` import.

export const SERVER_COMMANDS = {
  search: 'codeloupe.server.search',
  status: 'codeloupe.server.status',
  reindex: 'codeloupe.server.reindex',
  callChain: 'codeloupe.server.callChain',
  ask: 'codeloupe.server.ask',
} as const;

export interface SearchArgs {
  query: string;
  k?: number;
  lang?: string;
  path?: string;
  kind?: string;
  mode?: 'hybrid' | 'vector' | 'fts';
  snippets?: boolean;
  folder?: string;
}

export interface SearchHit {
  path: string; // relative to the folder's root
  start_line: number; // 1-based
  end_line: number;
  name: string;
  qualified_name: string;
  kind: string;
  language: string;
  score: number;
  snippet?: string;
}

export interface SearchResult {
  query: string;
  results: SearchHit[];
  pending_embeddings: number;
}

export type IndexState = 'starting' | 'indexing' | 'embedding' | 'ready' | 'failed';

export interface FolderStatus {
  root: string;
  uri: string;
  state: IndexState;
  error?: string;
  progress?: { stage?: string; done?: number; total?: number };
  files?: number;
  symbols?: number;
  open_buffers?: number;
  pending_embeddings?: number;
  languages?: Record<string, number>;
  model?: string;
  index?: string;
  index_bytes?: number;
  updated_at?: number;
}

export interface StatusResult {
  version: string;
  state: IndexState;
  embeddings: boolean;
  settings: Record<string, unknown>;
  folders: FolderStatus[];
}

export interface ReindexResult {
  scheduled: string[];
  waited: boolean;
  folders: FolderStatus[];
}

export interface CallStep {
  caller: string; // symbol id: "src/shop/cart.py::checkout"
  callee: string;
  path: string; // relative path of the call site
  line: number; // 1-based
  col: number; // 0-based, UTF-16 code units (a VS Code column)
  reason: string;
  confidence: number;
  ambiguous: boolean;
}

export interface CallChainResult {
  from: string[];
  to: string[];
  chains: CallStep[][];
}

export interface AskSource {
  path: string;
  start_line: number;
  end_line: number;
  qualified_name: string;
  /** Whether the answer cites it (the server verifies citations). */
  cited?: boolean;
}

/** `codeloupe.server.ask`'s result (issue 5). `context`/`note` come back when no model is configured. */
export interface AskResult {
  answer: string;
  sources: AskSource[];
  unverified_citations: unknown[];
  model: string | null;
  context_tokens: number;
  context?: string;
  note?: string;
}

/** Reads an ask result leniently: a server still growing the command may omit fields. */
export function readAskResult(raw: unknown): AskResult {
  const o = (raw && typeof raw === 'object' ? raw : {}) as Record<string, unknown>;
  const sources = Array.isArray(o.sources) ? o.sources : [];
  return {
    answer: typeof o.answer === 'string' ? o.answer : '',
    sources: sources
      .filter((s): s is Record<string, unknown> => !!s && typeof s === 'object')
      .map((s) => ({
        path: String(s.path ?? ''),
        start_line: Number(s.start_line ?? 1),
        end_line: Number(s.end_line ?? s.start_line ?? 1),
        qualified_name: String(s.qualified_name ?? ''),
        cited: typeof s.cited === 'boolean' ? s.cited : undefined,
      }))
      .filter((s) => s.path !== ''),
    unverified_citations: Array.isArray(o.unverified_citations) ? o.unverified_citations : [],
    model: typeof o.model === 'string' && o.model ? o.model : null,
    context_tokens: typeof o.context_tokens === 'number' ? o.context_tokens : 0,
    context: typeof o.context === 'string' ? o.context : undefined,
    note: typeof o.note === 'string' ? o.note : undefined,
  };
}

/** Splits a symbol id `src/a.py::Client.fetch` into its path and qualified name. */
export function splitSymbolId(id: string): { path: string; qualifiedName: string } {
  const at = id.indexOf('::');
  if (at < 0) {
    return { path: '', qualifiedName: id };
  }
  return { path: id.slice(0, at), qualifiedName: id.slice(at + 2) };
}

/** The symbol id the server uses for a workspace symbol (relative path + qualified name). */
export function symbolId(relPath: string, name: string, container?: string | null): string {
  const qualified = container ? `${container}.${name}` : name;
  return `${relPath}::${qualified}`;
}

/**
 * The symbol id of a workspace symbol: the server's `data.id` when it sends one
 * (it does since the id was added to `workspace/symbol`), else rebuilt from the
 * relative path, container and name (an older server).
 */
export function workspaceSymbolId(
  relPath: string,
  symbol: { name: string; containerName?: string | null; data?: unknown },
): string {
  const data = symbol.data;
  if (data && typeof data === 'object') {
    const id = (data as { id?: unknown }).id;
    if (typeof id === 'string' && id !== '') {
      return id;
    }
  }
  return symbolId(relPath, symbol.name, symbol.containerName);
}
