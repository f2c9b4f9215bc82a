import * as assert from 'assert';
import { readAskResult, readCitationsResult, splitSymbolId, symbolId, workspaceSymbolId } from '../../src/common/protocol';

describe('protocol helpers', () => {
  it('build and split symbol ids', () => {
    assert.strictEqual(symbolId('src/shop/http.py', 'fetch', 'Client'), 'src/shop/http.py::Client.fetch');
    assert.strictEqual(symbolId('src/shop/cart.py', 'checkout', null), 'src/shop/cart.py::checkout');
    assert.deepStrictEqual(splitSymbolId('src/shop/http.py::Client.fetch'), { path: 'src/shop/http.py', qualifiedName: 'Client.fetch' });
    assert.deepStrictEqual(splitSymbolId('fetch'), { path: '', qualifiedName: 'fetch' });
  });

  it('prefer the id a workspace symbol carries', () => {
    // a second overload: its id ends in "#2", which path + container + name cannot rebuild
    const overload = { name: 'add', containerName: 'Money', data: { id: 'src/Money.java::Money.add#2' } };
    assert.strictEqual(workspaceSymbolId('src/Money.java', overload), 'src/Money.java::Money.add#2');
    // an older server: no data, or data without an id, falls back to rebuilding it
    assert.strictEqual(workspaceSymbolId('src/shop/http.py', { name: 'fetch', containerName: 'Client' }),
      'src/shop/http.py::Client.fetch');
    assert.strictEqual(workspaceSymbolId('src/shop/cart.py', { name: 'checkout', data: { root: '/w' } }),
      'src/shop/cart.py::checkout');
    assert.strictEqual(workspaceSymbolId('src/shop/cart.py', { name: 'checkout', data: { id: 7 } }),
      'src/shop/cart.py::checkout');
  });

  it('read an ask result leniently', () => {
    const r = readAskResult({
      answer: 'It retries (src/a.py:3).',
      sources: [{ path: 'src/a.py', start_line: 1, end_line: 9, qualified_name: 'retry' }, { start_line: 3 }, null],
      unverified_citations: ['src/b.py:4'],
      model: 'llama3',
      context_tokens: 812,
    });
    assert.strictEqual(r.sources.length, 1);
    assert.strictEqual(r.model, 'llama3');
    assert.deepStrictEqual(r.unverified_citations, ['src/b.py:4']);
    const none = readAskResult({ answer: '', sources: [], model: null, context: 'src/a.py:1-9 retry', note: 'No model is configured.' });
    assert.strictEqual(none.model, null);
    assert.strictEqual(none.context, 'src/a.py:1-9 retry');
    assert.strictEqual(readAskResult(undefined).answer, '');
    assert.deepStrictEqual(readAskResult(undefined).citations, []);
    assert.deepStrictEqual(readAskResult(undefined).snippets, []);
  });

  it('read the citations, snippets, prompt and cut-off of an ask result', () => {
    const r = readAskResult({
      answer: 'It retries (src/a.py:3).',
      sources: [{ path: 'src/a.py', start_line: 1, end_line: 9, qualified_name: 'retry', cited: true }],
      citations: [
        { text: 'src/a.py:3', path: 'src/a.py', start_line: 3, end_line: 3, verified: true, start: 12, end: 22 },
        { text: 'b.py:4', path: 'b.py', start_line: 4, verified: 'yes', start: 1, end: 7 },
        { text: 'no offsets', path: 'c.py', start_line: 1 },
        { text: 'c.py:1', path: 'c.py', start_line: 1, start: 1.5, end: 7 },
      ],
      snippets: [
        { path: 'src/a.py', start_line: 1, end_line: 9, qualified_name: 'retry', kind: 'function',
          header: 'src/a.py:1-9 retry (function)', truncated: true,
          lines: [{ line: 1, text: 'def retry():' }, { line: null, text: '...' }, { line: 0, text: '...' }] },
        { path: 'src/b.py', start_line: 4, qualified_name: 'x', kind: 'variable', lines: 'none' },
        { start_line: 3 },
      ],
      model: 'llama3',
      context_tokens: 812,
      cut_off: 'deadline',
      note: 'the answer was cut off at the deadline of 300s',
    });
    assert.deepStrictEqual(r.citations.map((c) => [c.text, c.end_line, c.verified, c.start, c.end]),
      [['src/a.py:3', 3, true, 12, 22], ['b.py:4', 4, false, 1, 7]]);
    assert.deepStrictEqual(r.snippets[0].lines.map((l) => l.line), [1, null, null]);
    assert.strictEqual(r.snippets[0].truncated, true);
    assert.strictEqual(r.snippets[1].header, 'src/b.py:4-4 x (variable)');
    assert.deepStrictEqual(r.snippets[1].lines, []);
    assert.strictEqual(r.snippets.length, 2);
    assert.strictEqual(r.cut_off, 'deadline');
    assert.strictEqual(r.messages, undefined);
    const none = readAskResult({
      answer: null, sources: [], model: null, context_id: '3f9c',
      messages: [{ role: 'system', content: 'Cite as path:line.' }, { role: 'user', content: 'Q' }, { role: 1 }],
    });
    assert.deepStrictEqual(none.messages, [{ role: 'system', content: 'Cite as path:line.' }, { role: 'user', content: 'Q' }]);
    assert.strictEqual(none.context_id, '3f9c');
  });

  it('read a citations result leniently', () => {
    const r = readCitationsResult({
      citations: [{ text: 'a.py:1', path: 'a.py', start_line: 1, end_line: 1, verified: true, start: 0, end: 6 }],
      sources: [{ path: 'a.py', start_line: 1, end_line: 3, qualified_name: 'f', cited: true }],
      unverified_citations: ['z.py:9'],
      state: 'ready',
    });
    assert.strictEqual(r.citations[0].verified, true);
    assert.strictEqual(r.sources[0].cited, true);
    assert.deepStrictEqual(r.unverified_citations, ['z.py:9']);
    assert.deepStrictEqual(readCitationsResult('nonsense'), { citations: [], sources: [], unverified_citations: [] });
  });
});
