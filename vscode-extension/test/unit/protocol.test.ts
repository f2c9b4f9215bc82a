import * as assert from 'assert';
import { readAskResult, splitSymbolId, symbolId, workspaceSymbolId } from '../../src/common/protocol';

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
  });
});
