// Shapes of the codeloupe server's commands (docs/protocol.md). Pure: no `vscode` import.

export const SERVER_COMMANDS = {
  search: 'codeloupe.server.search',
  status: 'codeloupe.server.status',
  reindex: 'codeloupe.server.reindex',
  callChain: 'codeloupe.server.callChain',
  ask: 'codeloupe.server.ask',
  citations: 'codeloupe.server.citations',
  callers: 'codeloupe.server.callers',
  callees: 'codeloupe.server.callees',
  symbol: 'codeloupe.server.symbol',
  context: 'codeloupe.server.context',
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

/** A folder's phase as the server reports it (`Folder.label`): `embedding N/M` while N of the M
 * symbols waiting for a vector are embedded. */
export type IndexState = 'opening' | 'indexing' | `embedding ${number}/${number}` | 'ready' | 'failed';

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

/**
 * A citation of an answer, found and verified by the server (the extension never
 * parses citations itself). `path` is the context's path it resolved to.
 */
export interface AskCitation {
  text: string;
  path: string;
  start_line: number;
  end_line: number;
  verified: boolean;
  /** Offsets of `text` in the answer, in UTF-16 code units: `answer.slice(start, end)`. */
  start: number;
  end: number;
}

/** One line of a snippet as sent; `line` null: an omission marker ("..."). */
export interface AskSnippetLine {
  line: number | null;
  text: string;
}

/** One snippet of the context the server assembled, as structured data. */
export interface AskSnippet {
  path: string;
  start_line: number;
  end_line: number;
  qualified_name: string;
  kind: string;
  /** `path:start-end qualified_name (kind)` */
  header: string;
  truncated: boolean;
  lines: AskSnippetLine[];
}

export interface ChatMessage {
  role: string;
  content: string;
}

/**
 * `codeloupe.server.ask`'s result (docs/protocol.md). Without a model: `answer` is
 * empty and `context`, `note`, `messages` (the prompt the server would send) and
 * `context_id` (for `codeloupe.server.citations`) come back.
 */
export interface AskResult {
  answer: string;
  sources: AskSource[];
  unverified_citations: string[];
  citations: AskCitation[];
  snippets: AskSnippet[];
  model: string | null;
  context_tokens: number;
  context?: string;
  note?: string;
  /** Why the answer is incomplete: "deadline" or "max_tokens"; `note` says more. */
  cut_off?: string;
  messages?: ChatMessage[];
  context_id?: string;
}

/** `codeloupe.server.citations`'s result: an answer written elsewhere, checked. */
export interface CitationsResult {
  citations: AskCitation[];
  sources: AskSource[];
  unverified_citations: string[];
}

type Raw = Record<string, unknown>;

function objects(value: unknown): Raw[] {
  return Array.isArray(value) ? value.filter((x): x is Raw => !!x && typeof x === 'object') : [];
}

function optionalString(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function readSources(value: unknown): AskSource[] {
  return objects(value)
    .map((s) => ({
      path: String(s.path ?? ''),
      start_line: Number(s.start_line ?? 1),
      end_line: Number(s.end_line ?? s.start_line ?? 1),
      qualified_name: String(s.qualified_name ?? ''),
      cited: typeof s.cited === 'boolean' ? s.cited : undefined,
    }))
    .filter((s) => s.path !== '');
}

/** Citations with usable offsets only: a malformed one is dropped, never linked wrongly. */
function readCitations(value: unknown): AskCitation[] {
  return objects(value)
    .filter((c) => typeof c.text === 'string' && typeof c.path === 'string'
      && Number.isInteger(c.start) && Number.isInteger(c.end) && Number.isInteger(c.start_line))
    .map((c) => ({
      text: c.text as string,
      path: c.path as string,
      start_line: c.start_line as number,
      end_line: Number.isInteger(c.end_line) ? (c.end_line as number) : (c.start_line as number),
      verified: c.verified === true,
      start: c.start as number,
      end: c.end as number,
    }));
}

function readSnippets(value: unknown): AskSnippet[] {
  return objects(value)
    .filter((s) => typeof s.path === 'string' && s.path !== '')
    .map((s) => {
      const start = Number(s.start_line ?? 1);
      const end = Number(s.end_line ?? start);
      const name = String(s.qualified_name ?? '');
      const kind = String(s.kind ?? '');
      return {
        path: s.path as string,
        start_line: start,
        end_line: end,
        qualified_name: name,
        kind,
        header: optionalString(s.header) ?? `${s.path}:${start}-${end} ${name} (${kind})`,
        truncated: s.truncated === true,
        lines: objects(s.lines).map((l) => ({
          line: typeof l.line === 'number' && l.line > 0 ? l.line : null,
          text: String(l.text ?? ''),
        })),
      };
    });
}

function readMessages(value: unknown): ChatMessage[] | undefined {
  if (!Array.isArray(value)) {
    return undefined;
  }
  return objects(value)
    .filter((m) => typeof m.role === 'string' && typeof m.content === 'string')
    .map((m) => ({ role: m.role as string, content: m.content as string }));
}

/** Reads an ask result leniently: a server still growing the command may omit fields. */
export function readAskResult(raw: unknown): AskResult {
  const o = (raw && typeof raw === 'object' ? raw : {}) as Raw;
  return {
    answer: typeof o.answer === 'string' ? o.answer : '',
    sources: readSources(o.sources),
    unverified_citations: Array.isArray(o.unverified_citations) ? o.unverified_citations.map(String) : [],
    citations: readCitations(o.citations),
    snippets: readSnippets(o.snippets),
    model: typeof o.model === 'string' && o.model ? o.model : null,
    context_tokens: typeof o.context_tokens === 'number' ? o.context_tokens : 0,
    context: optionalString(o.context),
    note: optionalString(o.note),
    cut_off: optionalString(o.cut_off),
    messages: readMessages(o.messages),
    context_id: optionalString(o.context_id),
  };
}

/** Reads a `codeloupe.server.citations` result leniently. */
export function readCitationsResult(raw: unknown): CitationsResult {
  const o = (raw && typeof raw === 'object' ? raw : {}) as Raw;
  return {
    citations: readCitations(o.citations),
    sources: readSources(o.sources),
    unverified_citations: Array.isArray(o.unverified_citations) ? o.unverified_citations.map(String) : [],
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
