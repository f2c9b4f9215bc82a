// The language-model tools' table: each tool's name (as package.json declares it), the
// server command it calls and how the model's input becomes that command's argument.
// No vscode import: the unit tests load it as it is.

import { SERVER_COMMANDS } from './protocol';

export type Input = Record<string, unknown>;

export interface ToolSpec {
  /** The tool's name, as package.json's `contributes.languageModelTools` declares it. */
  name: string;
  /** The server command it calls. */
  command: string;
  /** The command's one argument object, from the model's input. */
  args(input: Input): Record<string, unknown>;
  /** What the invocation shows while it runs, and in its confirmation. */
  describe(input: Input): string;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() ? v : undefined);
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/** Drop the keys whose value is undefined: the server's strict arguments refuse nulls it does not take. */
function defined(obj: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(obj).filter(([, v]) => v !== undefined));
}

export const TOOLS: ToolSpec[] = [
  {
    name: 'codeloupe_search_code',
    command: SERVER_COMMANDS.search,
    args: (i) => defined({ query: String(i.query ?? ''), k: num(i.k) ?? 10, lang: str(i.lang), path: str(i.path), kind: str(i.kind), snippets: true }),
    describe: (i) => `Searching the codebase for "${String(i.query ?? '')}"`,
  },
  {
    name: 'codeloupe_symbol',
    command: SERVER_COMMANDS.symbol,
    args: (i) => ({ target: String(i.target ?? '') }),
    describe: (i) => `Reading the definition of ${String(i.target ?? '')}`,
  },
  {
    name: 'codeloupe_callers',
    command: SERVER_COMMANDS.callers,
    args: (i) => defined({ target: String(i.target ?? ''), depth: num(i.depth), minConfidence: num(i.min_confidence) }),
    describe: (i) => `Finding the callers of ${String(i.target ?? '')}`,
  },
  {
    name: 'codeloupe_callees',
    command: SERVER_COMMANDS.callees,
    args: (i) => defined({ target: String(i.target ?? ''), depth: num(i.depth), minConfidence: num(i.min_confidence) }),
    describe: (i) => `Finding what ${String(i.target ?? '')} calls`,
  },
  {
    name: 'codeloupe_call_path',
    command: SERVER_COMMANDS.callChain,
    args: (i) => defined({ from: String(i.source ?? ''), to: String(i.target ?? ''), maxDepth: num(i.max_depth), limit: num(i.limit) ?? 5, minConfidence: num(i.min_confidence) }),
    describe: (i) => `Finding call chains from ${String(i.source ?? '')} to ${String(i.target ?? '')}`,
  },
  {
    name: 'codeloupe_context_for',
    command: SERVER_COMMANDS.context,
    args: (i) => defined({ question: String(i.question ?? ''), budgetTokens: num(i.budget_tokens) }),
    describe: (i) => `Gathering the code for "${String(i.question ?? '')}"`,
  },
  {
    name: 'codeloupe_index_status',
    command: SERVER_COMMANDS.status,
    args: () => ({}),
    describe: () => 'Reading the state of the codeloupe index',
  },
];

/** The server command and argument for a tool's input; undefined for a tool of another name. */
export function toolCall(name: string, input: Input): { command: string; args: Record<string, unknown> } | undefined {
  const spec = TOOLS.find((t) => t.name === name);
  return spec && { command: spec.command, args: spec.args(input ?? {}) };
}
