import * as assert from 'assert';
import {
  citationHref,
  LinkableCitation,
  linkCitations,
  parseCitationHref,
  snippetsToMarkdown,
  StreamedText,
} from '../../src/common/citations';
import type { AskSnippet } from '../../src/common/protocol';

/** A citation as the server reports it: the `nth` occurrence of `text` in `markdown`. */
function at(markdown: string, text: string, path: string, startLine: number, endLine = startLine, nth = 0): LinkableCitation {
  let start = -1;
  for (let i = 0; i <= nth; i++) {
    start = markdown.indexOf(text, start + 1);
  }
  assert.ok(start >= 0, `${text} not in the markdown`);
  return { text, path, start_line: startLine, end_line: endLine, start, end: start + text.length };
}

describe('citation links', () => {
  it('round-trips through the href', () => {
    const href = citationHref({ path: 'src/my dir/a.py', start_line: 8, end_line: 15 });
    assert.strictEqual(href, 'codeloupe-source:src/my%20dir/a.py#L8-L15');
    assert.deepStrictEqual(parseCitationHref(href), { path: 'src/my dir/a.py', startLine: 8, endLine: 15 });
    assert.deepStrictEqual(parseCitationHref(citationHref({ path: 'a.py', start_line: 3, end_line: 3 })),
      { path: 'a.py', startLine: 3, endLine: 3 });
    assert.strictEqual(parseCitationHref('https://example.com'), undefined);
  });

  const md = [
    'The retry loop is in src/shop/http.py:8-15 (`src/shop/http.py:10`).',
    '',
    '```python',
    '# src/shop/cart.py:19',
    '```',
    '',
    'Already linked: [here](src/shop/cart.py:19), code `x = a.py:3 + 1`.',
  ].join('\n');
  // every citation the server finds in it, code and links included
  const all = [
    at(md, 'src/shop/http.py:8-15', 'src/shop/http.py', 8, 15),
    at(md, 'src/shop/http.py:10', 'src/shop/http.py', 10),
    at(md, 'src/shop/cart.py:19', 'src/shop/cart.py', 19, 19, 0),
    at(md, 'src/shop/cart.py:19', 'src/shop/cart.py', 19, 19, 1),
    at(md, 'a.py:3', 'a.py', 3),
  ];

  it('links plain and inline-code citations, not fenced code, other code or existing links', () => {
    const out = linkCitations(md, all);
    assert.ok(out.includes('[src/shop/http.py:8-15](codeloupe-source:src/shop/http.py#L8-L15)'), out);
    assert.ok(out.includes('[`src/shop/http.py:10`](codeloupe-source:src/shop/http.py#L10)'), out);
    assert.ok(out.includes('```python\n# src/shop/cart.py:19\n```'), out);
    assert.ok(out.includes('[here](src/shop/cart.py:19)'), out);
    assert.ok(out.includes('`x = a.py:3 + 1`'), out);
    assert.strictEqual(out.replace(/\[(`?src\/shop\/http\.py:[\d-]+`?)\]\([^)]*\)/g, '$1'), md);
  });

  it('links in the order of the text, whatever the order given', () => {
    assert.strictEqual(linkCitations(md, [...all].reverse()), linkCitations(md, all));
  });

  it('leaves citations the caller refuses as text', () => {
    const text = 'a.py:1 and b.py:2';
    const out = linkCitations(text, [at(text, 'a.py:1', 'a.py', 1), at(text, 'b.py:2', 'b.py', 2)],
      { accept: (c) => c.path === 'b.py' });
    assert.strictEqual(out, 'a.py:1 and [b.py:2](codeloupe-source:b.py#L2)');
  });

  it('keeps an unterminated fence untouched', () => {
    const text = 'see a.py:1\n```\nb.py:2';
    const out = linkCitations(text, [at(text, 'a.py:1', 'a.py', 1), at(text, 'b.py:2', 'b.py', 2)]);
    assert.strictEqual(out, 'see [a.py:1](codeloupe-source:a.py#L1)\n```\nb.py:2');
  });

  it('takes offsets in UTF-16 code units, as the server sends them', () => {
    // the answer and offsets of tests/test_ask_citations.py: 😀 and 𝔘 are two code units each
    const answer = '😀 See `src/a.py:3` — 𝔘𝔘 then src/b.py:4-5 (é is one unit).';
    const cites: LinkableCitation[] = [
      { text: 'src/a.py:3', path: 'src/a.py', start_line: 3, end_line: 3, start: 8, end: 18 },
      { text: 'src/b.py:4-5', path: 'src/b.py', start_line: 4, end_line: 5, start: 32, end: 44 },
    ];
    assert.strictEqual(linkCitations(answer, cites),
      '😀 See [`src/a.py:3`](codeloupe-source:src/a.py#L3) — 𝔘𝔘 then '
      + '[src/b.py:4-5](codeloupe-source:src/b.py#L4-L5) (é is one unit).');
  });

  it('leaves a citation whose offsets no longer hold its text', () => {
    const text = 'see a.py:1 and b.py:2';
    const stale = { ...at(text, 'b.py:2', 'b.py', 2), start: 3, end: 9 };
    assert.strictEqual(linkCitations(text, [stale, at(text, 'a.py:1', 'a.py', 1)]),
      'see [a.py:1](codeloupe-source:a.py#L1) and b.py:2');
    assert.strictEqual(linkCitations(text, []), text);
  });

  it('links a code span only when it holds exactly one citation', () => {
    const text = 'in ` a.py:1 ` and `a.py:2 b.py:3`';
    const out = linkCitations(text, [
      at(text, 'a.py:1', 'a.py', 1), at(text, 'a.py:2', 'a.py', 2), at(text, 'b.py:3', 'b.py', 3)]);
    assert.strictEqual(out, 'in [` a.py:1 `](codeloupe-source:a.py#L1) and `a.py:2 b.py:3`');
  });

  it('uses the href given', () => {
    const text = 'a.py:4';
    assert.strictEqual(linkCitations(text, [at(text, 'a.py:4', 'src/a.py', 4)], { href: (c) => `file:///w/${c.path}#L${c.start_line}` }),
      '[a.py:4](file:///w/src/a.py#L4)');
  });
});

describe('StreamedText', () => {
  it('concatenates the pieces in order, even ones that repeat the start', () => {
    const s = new StreamedText();
    s.push('- ');
    s.push('- a list');
    s.push(undefined);
    assert.strictEqual(s.push('\n'), '- - a list\n');
    assert.strictEqual(s.value, '- - a list\n');
  });
});

describe('snippetsToMarkdown', () => {
  const snippets: AskSnippet[] = [
    {
      path: 'shop/http.py', start_line: 8, end_line: 15, qualified_name: 'Client.fetch', kind: 'method',
      header: 'shop/http.py:8-15 Client.fetch (method)', truncated: false,
      lines: [{ line: 5, text: 'class Client:' }, { line: null, text: '...' },
        { line: 8, text: '    def fetch(self, url: str) -> bytes:' }],
    },
    {
      path: 'shop/cart_1.py', start_line: 20, end_line: 23, qualified_name: 'checkout', kind: 'function',
      header: 'shop/cart_1.py:20-23 checkout (function)', truncated: true,
      lines: [{ line: 21, text: '    """Uses ```fences``` in a docstring."""' }],
    },
  ];

  it('makes a linked heading per snippet and fences each body as the model saw it', () => {
    const md = snippetsToMarkdown(snippets);
    assert.ok(md.startsWith('#### [shop/http.py:8-15](codeloupe-source:shop/http.py#L8-L15) Client.fetch (method)\n\n```\n'
      + '    5 | class Client:\n      | ...\n    8 |     def fetch(self, url: str) -> bytes:\n```\n'), md);
    // a body with a run of three backticks gets a fence of four
    assert.ok(md.includes('#### [shop/cart\\_1.py:20-23](codeloupe-source:shop/cart_1.py#L20-L23) checkout (function)\n\n'
      + '````\n   21 |     """Uses ```fences``` in a docstring."""\n````'), md);
  });

  it('leaves a heading unlinked when there is no target', () => {
    const md = snippetsToMarkdown(snippets, () => undefined);
    assert.ok(md.startsWith('#### shop/http.py:8-15 Client.fetch (method)\n'), md);
    assert.ok(!md.includes('codeloupe-source'), md);
  });
});
