import * as assert from 'assert';
import {
  chainDescription,
  chainLabel,
  formatScore,
  kindIcon,
  searchItemText,
  shortName,
  statusBarText,
  stepText,
} from '../../src/common/format';
import { CallStep, StatusResult } from '../../src/common/protocol';

const HIT = {
  path: 'src/shop/http.py', start_line: 8, end_line: 15, name: 'fetch', qualified_name: 'Client.fetch',
  kind: 'method', language: 'python', score: 1.03448,
};

const CHAIN: CallStep[] = [
  { caller: 'src/shop/cart.py::checkout', callee: 'src/shop/http.py::Client.fetch', path: 'src/shop/cart.py',
    line: 19, col: 18, reason: 'name', confidence: 0.3, ambiguous: false },
  { caller: 'src/shop/http.py::Client.fetch', callee: 'src/shop/http.py::Client.send', path: 'src/shop/http.py',
    line: 12, col: 28, reason: 'self', confidence: 0.95, ambiguous: true },
];

function status(state: StatusResult['state'], symbols: number, extra: Partial<StatusResult['folders'][0]> = {}): StatusResult {
  return {
    version: '0.1.0', state, embeddings: true, settings: {},
    folders: [{ root: '/work/repo', uri: 'file:///work/repo', state, files: 5, symbols, ...extra }],
  };
}

describe('search results', () => {
  it('show name, kind, path:line and score', () => {
    const t = searchItemText(HIT);
    assert.strictEqual(t.label, '$(symbol-method) Client.fetch');
    assert.strictEqual(t.description, 'method · src/shop/http.py:8 · 1.03');
    assert.strictEqual(t.detail, undefined);
  });

  it('name the folder in a multi-root workspace and show a snippet line', () => {
    const t = searchItemText({ ...HIT, snippet: '\n    def fetch(self, url):\n' }, 'shop');
    assert.strictEqual(t.description, 'method · shop/src/shop/http.py:8 · 1.03');
    assert.strictEqual(t.detail, 'def fetch(self, url):');
  });

  it('fall back to the name and a generic icon', () => {
    const t = searchItemText({ ...HIT, qualified_name: '', kind: 'macro' });
    assert.strictEqual(t.label, '$(symbol-misc) fetch');
  });

  it('format scores', () => {
    assert.strictEqual(formatScore(0.0164), '0.02');
    assert.strictEqual(formatScore(250.4), '250');
    assert.strictEqual(formatScore(Number.NaN), '');
    assert.strictEqual(kindIcon('Class'), 'symbol-class');
  });
});

describe('call chains', () => {
  it('label a chain by its symbols', () => {
    assert.strictEqual(chainLabel(CHAIN), 'checkout → Client.fetch → Client.send');
    assert.strictEqual(chainLabel([]), '(empty chain)');
    assert.strictEqual(chainDescription(CHAIN), '2 calls · confidence ≥ 0.30 · ambiguous');
    assert.strictEqual(shortName('a.py::A.b'), 'A.b');
  });

  it('describe each call site', () => {
    const t = stepText(CHAIN[0]);
    assert.strictEqual(t.label, 'Client.fetch');
    assert.strictEqual(t.description, 'src/shop/cart.py:19 · name 0.30');
    assert.ok(t.tooltip.includes('src/shop/cart.py:19:19'));
    assert.ok(stepText(CHAIN[1]).description.endsWith('· ambiguous'));
  });
});

describe('status bar', () => {
  it('shows progress while an index run reports it', () => {
    const t = statusBarText('running', status('indexing', 0), { title: 'codeloupe: indexing repo', message: 'parsing 12/40 files', percentage: 30 });
    assert.strictEqual(t.text, '$(sync~spin) codeloupe 30%');
    assert.strictEqual(t.tooltip, 'codeloupe: indexing repo: parsing 12/40 files');
    assert.strictEqual(t.kind, 'busy');
  });

  it('shows the index state and symbol count when ready', () => {
    const t = statusBarText('running', status('ready', 1234));
    assert.strictEqual(t.text, '$(check) codeloupe 1,234 symbols');
    assert.ok(t.tooltip.includes('repo: ready, 5 files, 1,234 symbols'), t.tooltip);
  });

  it('shows failures and a stopped server', () => {
    assert.strictEqual(statusBarText('running', status('failed', 0, { error: 'disk full' })).kind, 'error');
    assert.ok(statusBarText('running', status('failed', 0, { error: 'disk full' })).tooltip.includes('disk full'));
    assert.strictEqual(statusBarText('failed').kind, 'error');
    assert.strictEqual(statusBarText('stopped').text, '$(circle-slash) codeloupe');
    assert.strictEqual(statusBarText('starting').kind, 'busy');
    assert.strictEqual(statusBarText('running', status('embedding 3/10', 3, { pending_embeddings: 7 })).text, '$(sync~spin) codeloupe: embedding 3/10');
  });
});
