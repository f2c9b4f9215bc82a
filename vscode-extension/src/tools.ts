// codeloupe for coding agents inside VS Code: language-model tools that Copilot's agent
// mode can call (VS Code 1.95+, `vscode.lm.registerTool`), each backed by a command of the
// running language server (no second index), and `codeloupe mcp` offered to VS Code's
// MCP support (1.101+, `vscode.lm.registerMcpServerDefinitionProvider`). Both are
// feature-detected: an older VS Code gets neither and keeps everything else.

import * as vscode from 'vscode';
import { describe, Log } from './common/logging';
import { CodeloupeServer } from './common/server';
import { Input, toolCall, TOOLS } from './common/tools';

// The parts of the language-model API used here, typed locally: @types/vscode follows
// engines.vscode (1.90), older than the API.
interface ToolApi {
  registerTool?(name: string, tool: {
    prepareInvocation?(options: { input: Input }, token: vscode.CancellationToken): unknown;
    invoke(options: { input: Input }, token: vscode.CancellationToken): Promise<unknown>;
  }): vscode.Disposable;
  registerMcpServerDefinitionProvider?(id: string, provider: {
    provideMcpServerDefinitions(token: vscode.CancellationToken): unknown[];
  }): vscode.Disposable;
}

type Ctor<T> = new (...args: unknown[]) => T;

/** Registers every tool where the host has the API; says in the log why not otherwise. */
export function registerTools(server: CodeloupeServer, log: Log): vscode.Disposable[] {
  const api = (vscode as unknown as { lm?: ToolApi }).lm;
  const host = vscode as unknown as Record<string, unknown>;
  const Result = host.LanguageModelToolResult as Ctor<unknown> | undefined;
  const TextPart = host.LanguageModelTextPart as Ctor<unknown> | undefined;
  if (typeof api?.registerTool !== 'function' || !Result || !TextPart) {
    log.info(`language-model tools: not offered (VS Code ${vscode.version} has no vscode.lm.registerTool)`);
    return [];
  }
  const registered = TOOLS.map((spec) => api.registerTool!(spec.name, {
    prepareInvocation: (options) => ({
      invocationMessage: spec.describe(options.input ?? {}),
      confirmationMessages: {
        title: 'codeloupe',
        message: new vscode.MarkdownString(`${spec.describe(options.input ?? {})} (read-only: the index is not changed).`),
      },
    }),
    invoke: async (options, token) => {
      const call = toolCall(spec.name, options.input ?? {})!;
      try {
        const result = await server.command<unknown>(call.command, call.args, token);
        return new Result([new TextPart(JSON.stringify(result))]);
      } catch (err) {
        // the model reads why, and can fix its arguments
        return new Result([new TextPart(`codeloupe: ${describe(err)}`)]);
      }
    },
  }));
  log.info(`language-model tools: ${TOOLS.map((t) => t.name).join(', ')}`);
  return registered;
}

/** Offers `codeloupe mcp` for each workspace folder to VS Code's MCP support, where it exists. */
export function registerMcpServer(server: CodeloupeServer, log: Log): vscode.Disposable[] {
  const api = (vscode as unknown as { lm?: ToolApi }).lm;
  const Stdio = (vscode as unknown as Record<string, unknown>).McpStdioServerDefinition as Ctor<unknown> | undefined;
  if (typeof api?.registerMcpServerDefinitionProvider !== 'function' || !Stdio) {
    log.info(`MCP server definition: not offered (VS Code ${vscode.version} has no registerMcpServerDefinitionProvider)`);
    return [];
  }
  log.info('MCP server definition: `codeloupe mcp` offered for each workspace folder');
  return [api.registerMcpServerDefinitionProvider('codeloupe.mcp', {
    provideMcpServerDefinitions: () => {
      const python = server.interpreter?.path;
      if (!python) {
        return [];
      }
      return (vscode.workspace.workspaceFolders ?? []).map((f) =>
        new Stdio(`codeloupe: ${f.name}`, python, ['-m', 'codeloupe', 'mcp', f.uri.fsPath], {}));
    },
  })];
}

interface LmTools {
  tools?: readonly { name: string; description: string; inputSchema?: { required?: string[] } }[];
  invokeTool?(name: string, options: { input: Input; toolInvocationToken: undefined }, token?: vscode.CancellationToken): Thenable<{ content: unknown[] }>;
}

/**
 * "codeloupe: Show Agent Tools": the tools codeloupe offers to agents, as VS Code lists
 * them; one picked is run through VS Code (`vscode.lm.invokeTool`), as an agent would,
 * and its result opens as JSON.
 */
export async function showAgentTools(log: Log): Promise<void> {
  const lm = (vscode as unknown as { lm?: LmTools }).lm;
  if (!lm?.tools || typeof lm.invokeTool !== 'function') {
    void vscode.window.showInformationMessage(
      `codeloupe: VS Code ${vscode.version} has no language-model tools API (1.95+); agents can use \`codeloupe mcp\` instead.`);
    return;
  }
  const ours = lm.tools.filter((t) => TOOLS.some((s) => s.name === t.name));
  const picked = await vscode.window.showQuickPick(
    ours.map((t) => ({ label: t.name, detail: t.description, tool: t })),
    { title: `codeloupe: ${ours.length} tools offered to agents`, matchOnDetail: true });
  if (!picked) {
    return;
  }
  const input: Input = {};
  for (const key of picked.tool.inputSchema?.required ?? []) {
    const value = await vscode.window.showInputBox({ title: `${picked.label}: ${key}`, ignoreFocusOut: true });
    if (value === undefined) {
      return;
    }
    input[key] = value;
  }
  try {
    const result = await lm.invokeTool(picked.label, { input, toolInvocationToken: undefined });
    const text = result.content.map((part) => (part as { value?: string }).value ?? '').join('');
    let content = text;
    try {
      content = JSON.stringify(JSON.parse(text), null, 2);
    } catch {
      // not JSON: an error the tool reported
    }
    const doc = await vscode.workspace.openTextDocument({ language: 'json', content });
    await vscode.window.showTextDocument(doc, { preview: true });
  } catch (err) {
    void log.surface('tools', `codeloupe: ${picked.label} failed: ${describe(err)}`);
  }
}
