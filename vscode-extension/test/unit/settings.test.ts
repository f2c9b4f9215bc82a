import * as assert from 'assert';
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { apiKeyEnv, CLIENT_SETTING_KEYS, initializationOptions, SERVER_OPTION_KEYS } from '../../src/common/settings';

const ROOT = path.resolve(__dirname, '../../..');
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
const properties: Record<string, { type: string | string[]; default: unknown; enum?: string[] }> =
  pkg.contributes.configuration.properties;
const settingKeys = Object.keys(properties).map((k) => k.replace(/^codeloupe\./, ''));

describe('settings', () => {
  it('are the server options plus the client\'s own', () => {
    assert.deepStrictEqual(
      [...settingKeys].sort(),
      [...SERVER_OPTION_KEYS, ...CLIENT_SETTING_KEYS].sort());
  });

  it('send only the server options as initializationOptions', () => {
    const values: Record<string, unknown> = { python: '/x', model: 'm', indexUri: null, workers: 2 };
    assert.deepStrictEqual(initializationOptions((k) => values[k]), { model: 'm', indexUri: null, workers: 2 });
  });

  it('name the API key\'s environment variable from codeloupe.llmApiKeyEnv', () => {
    assert.strictEqual(apiKeyEnv('OPENAI_API_KEY'), 'OPENAI_API_KEY');
    assert.strictEqual(apiKeyEnv(''), 'CODELOUPE_LLM_API_KEY');
    assert.strictEqual(apiKeyEnv('BAD NAME; rm -rf'), 'CODELOUPE_LLM_API_KEY');
    assert.strictEqual(apiKeyEnv(undefined), 'CODELOUPE_LLM_API_KEY');
  });

  it('match the server\'s options and defaults (CODELOUPE_TEST_PYTHON)', function () {
    const python = process.env.CODELOUPE_TEST_PYTHON;
    if (!python) {
      this.skip();
    }
    const script = [
      'import dataclasses, json',
      'from codeloupe.lsp.options import ServerOptions, camel',
      'o = ServerOptions()',
      'print(json.dumps({camel(f.name): getattr(o, f.name) for f in dataclasses.fields(o)}))',
    ].join('\n');
    const server = JSON.parse(execFileSync(python as string, ['-c', script], { encoding: 'utf8' }));
    assert.deepStrictEqual(Object.keys(server).sort(), [...SERVER_OPTION_KEYS].sort());
    for (const [key, value] of Object.entries(server)) {
      assert.deepStrictEqual(properties[`codeloupe.${key}`].default, value, `codeloupe.${key}`);
    }
  });
});
