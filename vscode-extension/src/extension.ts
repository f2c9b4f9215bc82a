// Activation only: wires the server, the status bar, the commands, the chat participant,
// the language-model tools and the MCP server definition.

import * as vscode from 'vscode';
import { registerChatParticipant } from './chat';
import { askCodebase } from './commands/ask';
import { registerCallChains } from './commands/callChain';
import { searchCodebase } from './commands/search';
import { reindex, showStatus } from './commands/status';
import { Log } from './common/logging';
import { CodeloupeServer } from './common/server';
import { API_KEY_SECRET } from './common/settings';
import { StatusBar } from './common/statusBar';
import { registerMcpServer, registerTools, showAgentTools } from './tools';

let server: CodeloupeServer | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const log = new Log();
  server = new CodeloupeServer(context, log);
  const bar = new StatusBar(server, log);
  const s = server;
  context.subscriptions.push(
    log,
    server,
    bar,
    vscode.commands.registerCommand('codeloupe.search', (query?: string) => searchCodebase(s, log, query)),
    vscode.commands.registerCommand('codeloupe.ask', (question?: string) => askCodebase(s, log, question)),
    vscode.commands.registerCommand('codeloupe.reindex', () => reindex(s, bar, log)),
    vscode.commands.registerCommand('codeloupe.status', () => showStatus(s, bar, log)),
    vscode.commands.registerCommand('codeloupe.restart', () => s.restart('asked by the user')),
    vscode.commands.registerCommand('codeloupe.showLogs', () => log.show()),
    vscode.commands.registerCommand('codeloupe.agentTools', () => showAgentTools(log)),
    vscode.commands.registerCommand('codeloupe.setApiKey', async () => {
      const key = await vscode.window.showInputBox({
        title: 'codeloupe: LLM API Key',
        prompt: 'Kept in VS Code\'s secret storage; the server gets it in the environment variable named by codeloupe.llmApiKeyEnv.',
        password: true,
        ignoreFocusOut: true,
      });
      if (key !== undefined) {
        await context.secrets.store(API_KEY_SECRET, key);
        void vscode.window.showInformationMessage('codeloupe: API key saved; the server restarts with it.');
      }
    }),
    vscode.commands.registerCommand('codeloupe.clearApiKey', async () => {
      await context.secrets.delete(API_KEY_SECRET);
      void vscode.window.showInformationMessage('codeloupe: API key removed.');
    }),
    ...registerCallChains(server, log),
    ...registerTools(server, log),
    ...registerMcpServer(server, log),
  );
  const participant = registerChatParticipant(server, log);
  if (participant) {
    context.subscriptions.push(participant);
  }
  await server.start();
}

export async function deactivate(): Promise<void> {
  await server?.stop();
  server = undefined;
}
