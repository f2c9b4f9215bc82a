import * as assert from 'assert';
import { debounce, Latest } from '../../src/common/debounce';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('debounce', () => {
  it('calls once, with the last arguments, after the quiet time', async () => {
    const calls: string[] = [];
    const d = debounce((q: string) => calls.push(q), 30);
    d('r');
    d('re');
    await sleep(10);
    d('ret');
    assert.deepStrictEqual(calls, []);
    assert.ok(d.pending);
    await sleep(60);
    assert.deepStrictEqual(calls, ['ret']);
    assert.ok(!d.pending);
  });

  it('restarts the wait on every call', async () => {
    const calls: number[] = [];
    const d = debounce((n: number) => calls.push(n), 40);
    for (let i = 0; i < 4; i++) {
      d(i);
      await sleep(15);
    }
    assert.deepStrictEqual(calls, []);
    await sleep(60);
    assert.deepStrictEqual(calls, [3]);
  });

  it('can be cancelled or flushed', async () => {
    const calls: number[] = [];
    const d = debounce((n: number) => calls.push(n), 20);
    d(1);
    d.cancel();
    await sleep(40);
    assert.deepStrictEqual(calls, []);
    d(2);
    d.flush();
    assert.deepStrictEqual(calls, [2]);
    d.flush();
    assert.deepStrictEqual(calls, [2]);
  });
});

describe('Latest', () => {
  it('keeps only the newest ticket current', () => {
    const l = new Latest();
    const a = l.next();
    const b = l.next();
    assert.ok(!l.isCurrent(a));
    assert.ok(l.isCurrent(b));
    l.invalidate();
    assert.ok(!l.isCurrent(b));
  });
});
