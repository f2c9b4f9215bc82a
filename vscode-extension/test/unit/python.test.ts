import * as assert from 'assert';
import * as path from 'path';
import { checkCodeloupe, chooseInterpreter, expandPath, importProblem, installCommand, serverCommand } from '../../src/common/python';

describe('choosing the interpreter', () => {
  it('prefers the codeloupe.python setting', () => {
    assert.deepStrictEqual(
      chooseInterpreter({ setting: '/opt/venv/bin/python', pythonExtension: '/usr/bin/python3.12' }),
      { path: '/opt/venv/bin/python', source: 'setting' });
  });

  it('then the Python extension\'s environment, then python3', () => {
    assert.deepStrictEqual(chooseInterpreter({ setting: '  ', pythonExtension: '/envs/a/bin/python' }),
      { path: '/envs/a/bin/python', source: 'python-extension' });
    assert.deepStrictEqual(chooseInterpreter({ platform: 'linux' }), { path: 'python3', source: 'default' });
    assert.deepStrictEqual(chooseInterpreter({ platform: 'win32' }), { path: 'python', source: 'default' });
  });

  it('expands ${workspaceFolder}, ~ and relative paths', () => {
    assert.strictEqual(chooseInterpreter({ setting: '${workspaceFolder}/.venv/bin/python', workspaceFolder: '/w' }).path,
      '/w/.venv/bin/python');
    assert.strictEqual(expandPath('~/venv/bin/python', undefined, '/home/me'), path.join('/home/me', 'venv/bin/python'));
    assert.strictEqual(expandPath('.venv/bin/python', '/w', '/home/me'), path.join('/w', '.venv/bin/python'));
    assert.strictEqual(expandPath('python3.11', '/w', '/home/me'), 'python3.11');
  });
});

describe('the install command', () => {
  it('is exact and quoted when needed', () => {
    assert.strictEqual(installCommand('/opt/venv/bin/python'), '/opt/venv/bin/python -m pip install codeloupe');
    assert.strictEqual(installCommand('/My Envs/bin/python'), '"/My Envs/bin/python" -m pip install codeloupe');
    assert.deepStrictEqual(serverCommand('py'), { command: 'py', args: ['-m', 'codeloupe', 'serve'] });
  });
});

describe('checking that codeloupe is importable', () => {
  it('tells a missing interpreter apart', async () => {
    const check = await checkCodeloupe('/nonexistent/bin/python');
    assert.strictEqual(check.ok, false);
    assert.ok(!check.ok && check.reason === 'no-python');
    assert.ok(!check.ok && importProblem('/nonexistent/bin/python', check).includes('codeloupe.python'));
  });

  it('tells a Python without codeloupe apart, with the install command', async function () {
    const check = await checkCodeloupe(process.env.CODELOUPE_TEST_BARE_PYTHON ?? 'python3');
    if (check.ok || check.reason === 'no-python') {
      this.skip(); // this python3 has codeloupe installed, or there is none
    }
    assert.ok(!check.ok && check.reason === 'not-installed', JSON.stringify(check));
    assert.strictEqual(importProblem('python3', check as Exclude<typeof check, { ok: true }>),
      'codeloupe is not installed in python3. Install it with: python3 -m pip install codeloupe');
  });

  it('accepts the development environment (CODELOUPE_TEST_PYTHON)', async function () {
    const python = process.env.CODELOUPE_TEST_PYTHON;
    if (!python) {
      this.skip();
    }
    const check = await checkCodeloupe(python as string);
    assert.ok(check.ok, JSON.stringify(check));
    assert.match((check as { version: string }).version, /^\d+\.\d+/);
  });
});
