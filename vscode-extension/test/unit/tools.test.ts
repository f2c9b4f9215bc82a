import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { SERVER_COMMANDS } from '../../src/common/protocol';
import { toolCall, TOOLS } from '../../src/common/tools';

const pkg = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', '..', 'package.json'), 'utf8'));
const declared: { name: string; inputSchema: { properties: Record<string, unknown>; required?: string[] } }[] =
  pkg.contributes.languageModelTools;

describe('language-model tools', () => {
  it('are declared in package.json exactly as registered', () => {
    assert.deepStrictEqual(declared.map((t) => t.name).sort(), TOOLS.map((t) => t.name).sort());
  });

  it('call a server command with the input turned into its argument', () => {
    assert.deepStrictEqual(toolCall('codeloupe_search_code', { query: 'retry uploads', k: 3, lang: '' }),
      { command: SERVER_COMMANDS.search, args: { query: 'retry uploads', k: 3, snippets: true } });
    assert.deepStrictEqual(toolCall('codeloupe_callers', { target: 'Client.fetch', depth: 2, min_confidence: 0 }),
      { command: SERVER_COMMANDS.callers, args: { target: 'Client.fetch', depth: 2, minConfidence: 0 } });
    assert.deepStrictEqual(toolCall('codeloupe_call_path', { source: 'checkout', target: 'Client.send' }),
      { command: SERVER_COMMANDS.callChain, args: { from: 'checkout', to: 'Client.send', limit: 5 } });
    assert.deepStrictEqual(toolCall('codeloupe_context_for', { question: 'how?', budget_tokens: 900 }),
      { command: SERVER_COMMANDS.context, args: { question: 'how?', budgetTokens: 900 } });
    assert.deepStrictEqual(toolCall('codeloupe_index_status', {}), { command: SERVER_COMMANDS.status, args: {} });
    assert.strictEqual(toolCall('codeloupe_nothing', {}), undefined);
  });

  it('read every input property their schema declares', () => {
    for (const tool of declared) {
      const input = Object.fromEntries(Object.keys(tool.inputSchema.properties).map((k) => [k, k === 'k' || k.endsWith('depth') || k === 'limit' || k.startsWith('budget') ? 2 : k === 'min_confidence' ? 0.5 : 'x']));
      const call = toolCall(tool.name, input)!;
      const used = Object.keys(call.args).length;
      assert.ok(used >= Object.keys(tool.inputSchema.properties).length, `${tool.name} drops an input: ${JSON.stringify(call.args)}`);
    }
  });
});
