// Citations in an answer (`src/shop/http.py:12`, `src/shop/http.py:8-15`): finding
// them, turning them into links, checking them against the sources. Pure.

import type { AskSource } from './protocol';

export interface Citation {
  /** Offsets of the citation text in the string it was found in. */
  start: number;
  end: number;
  text: string;
  path: string;
  startLine: number;
  endLine: number;
}

// A relative path with an extension, then :line or :start-end (also `:L12`, `:12–15`).
// Not inside a URL or a longer path (the look-behind), not followed by more of one.
const CITATION_RE = /(?<![\w/.:\\-])((?:\.{1,2}\/)?(?:[\w.@+-]+\/)*[\w@+-][\w.@+-]*\.[A-Za-z][A-Za-z0-9]{0,7}):L?(\d+)(?:\s?[-–]\s?L?(\d+))?(?![\w/])/g;

export function findCitations(text: string): Citation[] {
  const out: Citation[] = [];
  for (const m of text.matchAll(CITATION_RE)) {
    const startLine = Number(m[2]);
    const endLine = m[3] !== undefined ? Number(m[3]) : startLine;
    if (startLine < 1) {
      continue;
    }
    out.push({
      start: m.index ?? 0,
      end: (m.index ?? 0) + m[0].length,
      text: m[0],
      path: m[1].replace(/^\.\//, ''),
      startLine,
      endLine: Math.max(startLine, endLine),
    });
  }
  return out;
}

export const SOURCE_SCHEME = 'codeloupe-source';

/** `codeloupe-source:src/a.py#L8-L15`: the href a rendered citation links to. */
export function citationHref(c: { path: string; startLine: number; endLine: number }): string {
  const range = c.endLine > c.startLine ? `L${c.startLine}-L${c.endLine}` : `L${c.startLine}`;
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

/** Whether a citation falls inside one of the sources (same path, overlapping lines). */
export function isVerified(c: { path: string; startLine: number; endLine: number }, sources: AskSource[]): boolean {
  return sources.some(
    (s) => samePath(s.path, c.path) && c.startLine <= s.end_line && c.endLine >= s.start_line,
  );
}

function samePath(a: string, b: string): boolean {
  const norm = (p: string) => p.replace(/\\/g, '/').replace(/^\.\//, '');
  return norm(a) === norm(b);
}

/** The citations in `answer` that point outside every source. */
export function unverifiedCitations(answer: string, sources: AskSource[]): string[] {
  return [...new Set(findCitations(answer).filter((c) => !isVerified(c, sources)).map((c) => c.text))];
}

export interface LinkOptions {
  /** Builds the link target; default: `citationHref`. */
  href?: (c: Citation) => string;
  /** Leave a citation as text when this says no (e.g. a path not in the workspace). */
  accept?: (c: Citation) => boolean;
}

// Markdown pieces that must not be rewritten: fenced blocks, inline code, existing links, autolinks.
const FENCE_RE = /^( {0,3})(`{3,}|~{3,})[^\n]*\n[\s\S]*?(?:\n\1\2[`~]*[ \t]*(?=\n|$)|$)/gm;
const INLINE_RE = /(`+)([^`]|[^`][\s\S]*?[^`])\1(?!`)|\[[^\]\n]*\]\([^)\n]*\)|<[a-z][\w+.-]*:[^>\s]*>/g;

/**
 * Turns the citations in a markdown answer into links. A citation that is a whole
 * inline code span (`` `src/a.py:3` ``) becomes a link around the code; citations in
 * fenced blocks, other code spans and existing links are left alone.
 */
export function linkCitations(markdown: string, options: LinkOptions = {}): string {
  const href = options.href ?? citationHref;
  const accept = options.accept ?? (() => true);
  const linkPlain = (text: string): string => {
    let out = '';
    let at = 0;
    for (const c of findCitations(text)) {
      if (!accept(c)) {
        continue;
      }
      out += text.slice(at, c.start) + `[${c.text}](${href(c)})`;
      at = c.end;
    }
    return out + text.slice(at);
  };
  const linkInline = (text: string): string => {
    let out = '';
    let at = 0;
    for (const m of text.matchAll(INLINE_RE)) {
      const idx = m.index ?? 0;
      out += linkPlain(text.slice(at, idx));
      const token = m[0];
      if (m[1] !== undefined) {
        const inner = m[2].trim();
        const found = findCitations(inner);
        if (found.length === 1 && found[0].text === inner && accept(found[0])) {
          out += `[${token}](${href(found[0])})`;
        } else {
          out += token;
        }
      } else {
        out += token;
      }
      at = idx + token.length;
    }
    return out + linkPlain(text.slice(at));
  };
  let out = '';
  let at = 0;
  for (const m of markdown.matchAll(FENCE_RE)) {
    const idx = m.index ?? 0;
    out += linkInline(markdown.slice(at, idx)) + m[0];
    at = idx + m[0].length;
  }
  return out + linkInline(markdown.slice(at));
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

/** The prompt for a VS Code chat model, from the server's assembled context. */
export function chatModelPrompt(question: string, context: string): string {
  return [
    'You answer questions about a codebase using only the code below.',
    'Cite every claim with the source it comes from as path:line or path:start-end, exactly as labelled.',
    'If the answer is not in the provided code, say "not in the provided code" instead of guessing.',
    '',
    '<code>',
    context.trim(),
    '</code>',
    '',
    `Question: ${question}`,
  ].join('\n');
}

/**
 * The server's assembled context (`## path:start-end name (kind)` headers, then
 * numbered lines) as markdown: each header a heading whose citation can be linked,
 * each body a fenced block longer than any backtick run inside it.
 */
export function contextToMarkdown(context: string): string {
  const runs = context.match(/`+/g) ?? [];
  const fence = '`'.repeat(Math.max(3, ...runs.map((r) => r.length + 1)));
  const out: string[] = [];
  let body: string[] | undefined;
  const close = () => {
    if (body) {
      while (body.length && !body[body.length - 1].trim()) {
        body.pop();
      }
      out.push(fence, ...body, fence);
      body = undefined;
    }
  };
  for (const line of context.split('\n')) {
    if (line.startsWith('## ')) {
      close();
      out.push('', `#### ${line.slice(3).trim()}`, '');
      body = [];
    } else if (body) {
      body.push(line);
    } else if (line.trim()) {
      body = [line];
    }
  }
  close();
  return out.join('\n').trim() + '\n';
}
