// One answer to a question about the codebase, shared by "Ask About Codebase" and
// the @codeloupe chat participant: the server answers when it has an LLM endpoint;
// otherwise a VS Code chat model answers from the server's own prompt and the
// server checks its citations; otherwise the context itself is the answer.

import * as vscode from 'vscode';
import { StreamedText } from '../common/citations';
import { describe } from '../common/logging';
import {
  AskCitation,
  AskResult,
  ChatMessage,
  readAskResult,
  readCitationsResult,
  SERVER_COMMANDS,
} from '../common/protocol';
import { CodeloupeServer } from '../common/server';

export interface Answer {
  result: AskResult;
  answer: string;
  via: 'server' | 'chat-model' | 'none';
  model?: string;
  /** The answer's citations, as the server found and verified them (offsets in `answer`). */
  citations: AskCitation[];
  unverified: string[];
  /** Set when the server could not check a chat model's citations (they stay unlinked). */
  uncheckedBecause?: string;
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

/** The server's prompt for a chat model (which takes no system message: it goes first, as the user's). */
function chatMessages(messages: ChatMessage[]): vscode.LanguageModelChatMessage[] {
  return messages.map((m) => (m.role === 'assistant'
    ? vscode.LanguageModelChatMessage.Assistant(m.content)
    : vscode.LanguageModelChatMessage.User(m.content)));
}

async function askChatModel(
  server: CodeloupeServer,
  result: AskResult,
  chatModel: vscode.LanguageModelChat,
  folder: vscode.WorkspaceFolder | undefined,
  sink: AnswerSink,
  token: vscode.CancellationToken,
): Promise<Answer> {
  sink.stage(`Asking ${chatModel.name}…`);
  const response = await chatModel.sendRequest(
    chatMessages(result.messages ?? []),
    { justification: 'codeloupe answers your question from the code it retrieved from this workspace.' },
    token,
  );
  let answer = '';
  for await (const piece of response.text) {
    answer += piece;
    sink.text(answer);
  }
  const base = { answer, via: 'chat-model' as const, model: chatModel.name };
  try {
    const args = { answer, contextId: result.context_id, ...(folder ? { folder: folder.uri.toString() } : {}) };
    const checked = readCitationsResult(await server.command<unknown>(SERVER_COMMANDS.citations, args, token));
    const sources = checked.sources.length ? checked.sources : result.sources;
    return { ...base, result: { ...result, sources }, citations: checked.citations, unverified: checked.unverified_citations };
  } catch (err) {
    if (token.isCancellationRequested) {
      throw err;
    }
    return { ...base, result, citations: [], unverified: [], uncheckedBecause: describe(err) };
  }
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
    // the citations' offsets are the final answer's; the streamed text is only a fallback
    const answer = result.answer || streamed.value;
    sink.text(answer);
    return {
      result, answer, via: 'server', model: result.model ?? undefined,
      citations: result.answer ? result.citations : [], unverified: result.unverified_citations,
    };
  }
  if (chatModel && result.sources.length > 0 && result.messages?.length && result.context_id) {
    return askChatModel(server, result, chatModel, folder, sink, token);
  }
  return { result, answer: '', via: 'none', citations: [], unverified: [] };
}
