// Citations in a markdown answer turned into links, and the server's context as
// markdown. Pure. The server finds and verifies citations (docs/protocol.md, ask):
// this module only decides, from its offsets, which of them can be linked without
// rewriting code.

import type { AskCitation, AskSnippet } from './protocol';

/** What linking needs of a citation: its offsets (UTF-16 code units) and target. */
export type LinkableCitation = Pick<AskCitation, 'text' | 'path' | 'start_line' | 'end_line' | 'start' | 'end'>;

export const SOURCE_SCHEME = 'codeloupe-source';

/** `codeloupe-source:src/a.py#L8-L15`: the href a rendered citation links to. */
export function citationHref(c: { path: string; start_line: number; end_line: number }): string {
  const range = c.end_line > c.start_line ? `L${c.start_line}-L${c.end_line}` : `L${c.start_line}`;
  return `${SOURCE_SCHEME}:${encodeURI(c.path)}#${range}`;
}

export function parseCitationHref(href: string): { path: string; startLine: number; endLine: number } | undefined {
  const m = /^codeloupe-source:([^#]+)#L(\d+)(?:-L(\d+))?$/.exec(href);
  if (!m) {
    return undefined;
  }
  const startLine = Number(m[2]);
  return { path: decodeURI(m[1]), startLine, endLine: m[3] ? Number(m[3]) : startLine };
}

export interface LinkOptions {
  /** Builds the link target; default: `citationHref`. */
  href?: (c: LinkableCitation) => string;
  /** Leave a citation as text when this says no (e.g. a path not in the workspace). */
  accept?: (c: LinkableCitation) => boolean;
}

// Markdown pieces that must not be rewritten: fenced blocks, inline code, existing links, autolinks.
const FENCE_RE = /^( {0,3})(`{3,}|~{3,})[^\n]*\n[\s\S]*?(?:\n\1\2[`~]*[ \t]*(?=\n|$)|$)/gm;
const INLINE_RE = /(`+)([^`]|[^`][\s\S]*?[^`])\1(?!`)|\[[^\]\n]*\]\([^)\n]*\)|<[a-z][\w+.-]*:[^>\s]*>/g;

interface Guarded {
  start: number;
  end: number;
  /** For a code span: where its content is, without the surrounding spaces. */
  inner?: { start: number; end: number };
}

/** The ranges of `markdown` that are code or links already, in order. */
function guardedRanges(markdown: string): Guarded[] {
  const out: Guarded[] = [];
  const inline = (from: number, to: number) => {
    for (const m of markdown.slice(from, to).matchAll(INLINE_RE)) {
      const start = from + (m.index ?? 0);
      const end = start + m[0].length;
      if (m[1] === undefined) {
        out.push({ start, end });
        continue;
      }
      const content = m[2];
      const lead = content.length - content.trimStart().length;
      const innerStart = start + m[1].length + lead;
      out.push({ start, end, inner: { start: innerStart, end: innerStart + content.trim().length } });
    }
  };
  let at = 0;
  for (const m of markdown.matchAll(FENCE_RE)) {
    const idx = m.index ?? 0;
    inline(at, idx);
    out.push({ start: idx, end: idx + m[0].length });
    at = idx + m[0].length;
  }
  inline(at, markdown.length);
  return out;
}

/**
 * Turns the server's citations of a markdown answer into links. A citation that is
 * a whole inline code span (`` `src/a.py:3` ``) becomes a link around the code;
 * citations in fenced blocks, other code spans and existing links are left alone,
 * as is one whose offsets do not hold its text (an answer that changed since).
 */
export function linkCitations(markdown: string, citations: readonly LinkableCitation[], options: LinkOptions = {}): string {
  const href = options.href ?? citationHref;
  const accept = options.accept ?? (() => true);
  const guarded = guardedRanges(markdown);
  const sorted = [...citations].sort((a, b) => a.start - b.start);
  let out = '';
  let at = 0;
  for (const c of sorted) {
    if (c.start < at || markdown.slice(c.start, c.end) !== c.text || c.text === '' || !accept(c)) {
      continue;
    }
    const g = guarded.find((r) => c.start < r.end && c.end > r.start);
    if (g === undefined) {
      out += `${markdown.slice(at, c.start)}[${c.text}](${href(c)})`;
      at = c.end;
    } else if (g.inner && g.inner.start === c.start && g.inner.end === c.end && g.start >= at) {
      out += `${markdown.slice(at, g.start)}[${markdown.slice(g.start, g.end)}](${href(c)})`;
      at = g.end;
    }
  }
  return out + markdown.slice(at);
}

/**
 * Accumulates the answer streamed through `$/progress` reports: each report's
 * message is the text generated since the one before (docs/protocol.md, ask).
 */
export class StreamedText {
  private text = '';

  push(piece: string | undefined): string {
    if (piece) {
      this.text += piece;
    }
    return this.text;
  }

  get value(): string {
    return this.text;
  }
}

function escapeMarkdown(text: string): string {
  return text.replace(/[\\`*_[\]<>#|]/g, (c) => `\\${c}`);
}

/**
 * The server's context (its structured snippets) as markdown: each snippet a
 * heading whose `path:start-end` links to `href(snippet)` (plain text when that
 * gives nothing), then its numbered lines in a fenced block longer than any
 * backtick run inside it.
 */
export function snippetsToMarkdown(
  snippets: readonly AskSnippet[],
  href: (s: AskSnippet) => string | undefined = citationHref,
): string {
  const out: string[] = [];
  for (const s of snippets) {
    const where = escapeMarkdown(`${s.path}:${s.start_line}-${s.end_line}`);
    const target = href(s);
    const label = target ? `[${where}](${target})` : where;
    out.push(`#### ${label} ${escapeMarkdown(s.qualified_name)} (${escapeMarkdown(s.kind)})`, '');
    const body = s.lines.map((l) => `${l.line === null ? '' : String(l.line)}`.padStart(5) + ` | ${l.text}`);
    const runs = body.join('\n').match(/`+/g) ?? [];
    const fence = '`'.repeat(Math.max(3, ...runs.map((r) => r.length + 1)));
    out.push(fence, ...body, fence, '');
  }
  return out.join('\n').trim() + '\n';
}
