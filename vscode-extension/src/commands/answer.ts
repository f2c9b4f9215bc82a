// One answer to a question about the codebase, shared by "Ask About Codebase" and
// the @codeloupe chat participant: the server answers when it has an LLM endpoint;
// otherwise a VS Code chat model answers from the context the server assembled;
// otherwise the context itself is the answer.

import * as vscode from 'vscode';
import { chatModelPrompt, findCitations, isVerified, StreamedText, unverifiedCitations } from '../common/citations';
import { AskResult, AskSource, readAskResult, SERVER_COMMANDS } from '../common/protocol';
import { CodeloupeServer } from '../common/server';
import { resolvePath } from './locations';

export interface Answer {
  result: AskResult;
  answer: string;
  via: 'server' | 'chat-model' | 'none';
  model?: string;
  unverified: string[];
}

export interface AnswerSink {
  /** The answer so far (grows as it streams). */
  text(answer: string): void;
  /** What is happening (retrieving, asking a model…). */
  stage(message: string): void;
}

/** A VS Code chat model, when Ask may use one (no LLM endpoint configured, setting on). */
export async function chatModelForAsk(): Promise<vscode.LanguageModelChat | undefined> {
  const config = vscode.workspace.getConfiguration('codeloupe');
  if (config.get<string | null>('llmEndpoint') || !config.get<boolean>('ask.useChatModel', true)) {
    return undefined;
  }
  if (typeof vscode.lm?.selectChatModels !== 'function') {
    return undefined;
  }
  try {
    const models = await vscode.lm.selectChatModels();
    return models[0];
  } catch {
    return undefined;
  }
}

/** The sources' code, labelled like the server's context, when the server sent none. */
export async function contextFromSources(sources: AskSource[], budgetChars = 24000): Promise<string> {
  const folder = vscode.workspace.workspaceFolders?.[0];
  const parts: string[] = [];
  let used = 0;
  for (const s of sources) {
    const uri = resolvePath(folder, s.path);
    if (!uri) {
      continue;
    }
    try {
      const doc = await vscode.workspace.openTextDocument(uri);
      const end = Math.min(s.end_line, doc.lineCount);
      const lines: string[] = [];
      for (let i = s.start_line; i <= end; i++) {
        lines.push(doc.lineAt(i - 1).text);
      }
      const block = `${s.path}:${s.start_line}-${s.end_line} ${s.qualified_name}\n\`\`\`\n${lines.join('\n')}\n\`\`\``;
      if (used + block.length > budgetChars) {
        break;
      }
      parts.push(block);
      used += block.length;
    } catch {
      // a source that cannot be read is left out
    }
  }
  return parts.join('\n\n');
}

export async function answerQuestion(
  server: CodeloupeServer,
  question: string,
  sink: AnswerSink,
  token: vscode.CancellationToken,
  chatModel?: vscode.LanguageModelChat,
): Promise<Answer> {
  const streamed = new StreamedText();
  sink.stage('Retrieving the code that answers it…');
  const folder = server.folderFor(vscode.window.activeTextEditor?.document.uri);
  const args = folder ? { question, folder: folder.uri.toString() } : { question };
  const raw = await server.command<unknown>(SERVER_COMMANDS.ask, args, token, (p) => {
    if (p.kind === 'report' && p.message) {
      sink.text(streamed.push(p.message));
    } else if (p.kind === 'begin' && p.message) {
      sink.stage(p.message);
    }
  });
  const result = readAskResult(raw);
  if (result.model || result.answer) {
    const answer = result.answer || streamed.value;
    sink.text(answer);
    return { result, answer, via: 'server', model: result.model ?? undefined, unverified: result.unverified_citations.map(String) };
  }
  if (chatModel && result.sources.length > 0) {
    sink.stage(`Asking ${chatModel.name}…`);
    const context = result.context || (await contextFromSources(result.sources));
    const response = await chatModel.sendRequest(
      [vscode.LanguageModelChatMessage.User(chatModelPrompt(question, context))],
      { justification: 'codeloupe answers your question from the code it retrieved from this workspace.' },
      token,
    );
    let answer = '';
    for await (const piece of response.text) {
      answer += piece;
      sink.text(answer);
    }
    const sources = result.sources.map((s) => ({ ...s, cited: isVerifiedBy(answer, s) }));
    return { result: { ...result, sources }, answer, via: 'chat-model', model: chatModel.name, unverified: unverifiedCitations(answer, result.sources) };
  }
  return { result, answer: '', via: 'none', unverified: [] };
}

/** Whether `answer` cites a line of `source`. */
function isVerifiedBy(answer: string, source: AskSource): boolean {
  return findCitations(answer).some((c) => isVerified(c, [source]));
}
