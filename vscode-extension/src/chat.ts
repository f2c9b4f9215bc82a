// The @codeloupe chat participant: answers in the Chat view with the same cited sources.

import * as vscode from 'vscode';
import { snippetsToMarkdown } from './common/citations';
import { describe, Log } from './common/logging';
import { CodeloupeServer } from './common/server';
import { answerQuestion, chatModelForAsk } from './commands/answer';
import { lineRange, resolvePath } from './commands/locations';

export function registerChatParticipant(server: CodeloupeServer, log: Log): vscode.Disposable | undefined {
  if (typeof vscode.chat?.createChatParticipant !== 'function') {
    return undefined;
  }
  const folder = () => vscode.workspace.workspaceFolders?.[0];
  const handler: vscode.ChatRequestHandler = async (request, _context, stream, token) => {
    const question = request.prompt.trim();
    if (!question) {
      stream.markdown('Ask me about this codebase, e.g. *how does a failed upload get retried?*');
      return {};
    }
    // The model picked in the Chat view when the host offers it (1.95+), else any.
    const picked = (request as { model?: vscode.LanguageModelChat }).model;
    const model = picked && !vscode.workspace.getConfiguration('codeloupe').get('llmEndpoint')
      ? picked
      : await chatModelForAsk();
    let shown = 0;
    try {
      const answer = await answerQuestion(server, question, {
        text: (full) => {
          if (full.length > shown) {
            stream.markdown(full.slice(shown));
            shown = full.length;
          }
        },
        stage: (message) => stream.progress(message),
      }, token, model);
      if (answer.via === 'none') {
        stream.markdown(`${answer.result.note ?? 'No language model is available: set "codeloupe.llmEndpoint", or pick a chat model.'}\n\n`);
        if (answer.result.snippets.length) {
          const root = folder();
          stream.markdown(snippetsToMarkdown(answer.result.snippets, (s) => {
            const uri = resolvePath(root, s.path);
            return uri ? `${uri.toString()}#L${s.start_line}-L${s.end_line}` : undefined;
          }));
        }
      } else if (answer.result.cut_off) {
        stream.markdown(`\n\n⚠ ${answer.result.note ?? `The answer was cut off (${answer.result.cut_off}).`}\n`);
      }
      const root = folder();
      if (answer.result.sources.length) {
        stream.markdown('\n\n**Sources**\n\n');
      }
      for (const s of answer.result.sources) {
        const uri = resolvePath(root, s.path);
        if (!uri) {
          continue;
        }
        const location = new vscode.Location(uri, lineRange(s.start_line, s.end_line));
        stream.reference(location);
        stream.markdown('- ');
        stream.anchor(location, `${s.qualified_name || s.path} (${s.path}:${s.start_line}-${s.end_line})`);
        stream.markdown(s.cited ? ' ✓ cited\n' : '\n');
      }
      if (answer.unverified.length) {
        stream.markdown(`\n⚠ Cited but not among the sources: ${answer.unverified.map((u) => `\`${u}\``).join(', ')}\n`);
      }
      return { metadata: { via: answer.via, sources: answer.result.sources.length } };
    } catch (err) {
      log.error(`@codeloupe "${question}"`, err);
      return { errorDetails: { message: `codeloupe could not answer: ${describe(err)}` } };
    }
  };
  const participant = vscode.chat.createChatParticipant('codeloupe.chat', handler);
  participant.iconPath = new vscode.ThemeIcon('search');
  return participant;
}
