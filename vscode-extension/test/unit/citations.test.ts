import * as assert from 'assert';
import {
  chatModelPrompt,
  citationHref,
  contextToMarkdown,
  findCitations,
  isVerified,
  linkCitations,
  parseCitationHref,
  StreamedText,
  unverifiedCitations,
} from '../../src/common/citations';

const SOURCES = [
  { path: 'src/shop/http.py', start_line: 8, end_line: 15, qualified_name: 'Client.fetch' },
  { path: 'src/shop/cart.py', start_line: 17, end_line: 19, qualified_name: 'checkout' },
];

describe('findCitations', () => {
  it('finds path:line and path:start-end', () => {
    const found = findCitations('Retries happen in src/shop/http.py:8-15, called from src/shop/cart.py:19.');
    assert.deepStrictEqual(found.map((c) => [c.path, c.startLine, c.endLine, c.text]), [
      ['src/shop/http.py', 8, 15, 'src/shop/http.py:8-15'],
      ['src/shop/cart.py', 19, 19, 'src/shop/cart.py:19'],
    ]);
  });

  it('accepts L-prefixed lines, an en dash and a leading ./', () => {
    const found = findCitations('see ./web/upload.js:L8–L13 and main.go:3');
    assert.deepStrictEqual(found.map((c) => [c.path, c.startLine, c.endLine]), [
      ['web/upload.js', 8, 13],
      ['main.go', 3, 3],
    ]);
  });

  it('ignores URLs, times and version numbers', () => {
    assert.deepStrictEqual(findCitations('https://pay.example.com:8443/x at 12:30, python3.11:2? http://localhost:8080'), []);
  });

  it('reports offsets that slice back to the citation', () => {
    const text = 'a `src/a.py:3` b';
    const [c] = findCitations(text);
    assert.strictEqual(text.slice(c.start, c.end), 'src/a.py:3');
  });
});

describe('citation links', () => {
  it('round-trips through the href', () => {
    const href = citationHref({ path: 'src/my dir/a.py', startLine: 8, endLine: 15 });
    assert.strictEqual(href, 'codeloupe-source:src/my%20dir/a.py#L8-L15');
    assert.deepStrictEqual(parseCitationHref(href), { path: 'src/my dir/a.py', startLine: 8, endLine: 15 });
    assert.deepStrictEqual(parseCitationHref(citationHref({ path: 'a.py', startLine: 3, endLine: 3 })),
      { path: 'a.py', startLine: 3, endLine: 3 });
    assert.strictEqual(parseCitationHref('https://example.com'), undefined);
  });

  it('links plain and inline-code citations, not fenced code or existing links', () => {
    const md = [
      'The retry loop is in src/shop/http.py:8-15 (`src/shop/http.py:10`).',
      '',
      '```python',
      '# src/shop/cart.py:19',
      '```',
      '',
      'Already linked: [here](src/shop/cart.py:19), code `x = a.py:3 + 1`.',
    ].join('\n');
    const out = linkCitations(md);
    assert.ok(out.includes('[src/shop/http.py:8-15](codeloupe-source:src/shop/http.py#L8-L15)'), out);
    assert.ok(out.includes('[`src/shop/http.py:10`](codeloupe-source:src/shop/http.py#L10)'), out);
    assert.ok(out.includes('```python\n# src/shop/cart.py:19\n```'), out);
    assert.ok(out.includes('[here](src/shop/cart.py:19)'), out);
    assert.ok(out.includes('`x = a.py:3 + 1`'), out);
  });

  it('leaves citations the caller refuses as text', () => {
    const out = linkCitations('a.py:1 and b.py:2', { accept: (c) => c.path === 'b.py' });
    assert.strictEqual(out, 'a.py:1 and [b.py:2](codeloupe-source:b.py#L2)');
  });

  it('keeps an unterminated fence (a streamed answer) untouched', () => {
    const out = linkCitations('see a.py:1\n```\nb.py:2');
    assert.strictEqual(out, 'see [a.py:1](codeloupe-source:a.py#L1)\n```\nb.py:2');
  });
});

describe('verification', () => {
  it('checks citations against the sources by path and overlapping lines', () => {
    assert.ok(isVerified({ path: 'src/shop/http.py', startLine: 12, endLine: 12 }, SOURCES));
    assert.ok(isVerified({ path: './src/shop/cart.py', startLine: 15, endLine: 17 }, SOURCES));
    assert.ok(!isVerified({ path: 'src/shop/http.py', startLine: 16, endLine: 20 }, SOURCES));
    assert.ok(!isVerified({ path: 'src/shop/text.py', startLine: 1, endLine: 1 }, SOURCES));
  });

  it('lists each unverified citation once', () => {
    const answer = 'See src/shop/http.py:12, src/shop/text.py:4 and again src/shop/text.py:4.';
    assert.deepStrictEqual(unverifiedCitations(answer, SOURCES), ['src/shop/text.py:4']);
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

describe('chatModelPrompt', () => {
  it('holds the question, the context and the citation rules', () => {
    const p = chatModelPrompt('How are uploads retried?', 'src/a.py:1-3 retry\n```\ndef retry(): ...\n```');
    assert.ok(p.includes('How are uploads retried?'));
    assert.ok(p.includes('def retry(): ...'));
    assert.ok(p.includes('path:line'));
    assert.ok(p.includes('not in the provided code'));
  });
});

describe('contextToMarkdown', () => {
  const context = [
    '## shop/http.py:8-15 Client.fetch (method)',
    '    5 | class Client:',
    '      | ...',
    '    8 |     def fetch(self, url: str) -> bytes:',
    '',
    '## shop/cart.py:20-23 checkout (function)',
    '   21 |     """Uses ```fences``` in a docstring."""',
  ].join('\n');

  it('makes a heading per snippet and fences each body', () => {
    const md = contextToMarkdown(context);
    assert.ok(md.startsWith('#### shop/http.py:8-15 Client.fetch (method)\n\n````\n    5 | class Client:\n'), md);
    assert.ok(md.includes('    8 |     def fetch(self, url: str) -> bytes:\n````\n\n#### shop/cart.py:20-23'), md);
    assert.ok(md.trimEnd().endsWith('docstring."""\n````'), md);
  });

  it('leaves the headings\' citations linkable and the code untouched', () => {
    const linked = linkCitations(contextToMarkdown(context));
    assert.ok(linked.includes('#### [shop/http.py:8-15](codeloupe-source:shop/http.py#L8-L15) Client.fetch'), linked);
    assert.ok(!linked.includes('(codeloupe-source:shop/cart.py#L21)'), linked);
  });
});
