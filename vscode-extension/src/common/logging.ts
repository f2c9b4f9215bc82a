// The codeloupe LogOutputChannel, and errors that surface once with "Show Logs".

import * as vscode from 'vscode';

export class Log implements vscode.Disposable {
  readonly channel: vscode.LogOutputChannel;
  private readonly shown = new Set<string>();

  constructor() {
    this.channel = vscode.window.createOutputChannel('codeloupe', { log: true });
  }

  info(message: string): void {
    this.channel.info(message);
  }

  warn(message: string): void {
    this.channel.warn(message);
  }

  error(message: string, err?: unknown): void {
    this.channel.error(err === undefined ? message : `${message}: ${describe(err)}`);
  }

  show(): void {
    this.channel.show(true);
  }

  /**
   * Logs an error and shows it once per `key` (until `forget(key)`), with a
   * "Show Logs" action and any `actions` given; resolves to the action chosen.
   */
  async surface(key: string, message: string, ...actions: string[]): Promise<string | undefined> {
    this.channel.error(message);
    if (this.shown.has(key)) {
      return undefined;
    }
    this.shown.add(key);
    const choice = await vscode.window.showErrorMessage(message, ...actions, 'Show Logs');
    if (choice === 'Show Logs') {
      this.show();
    }
    return choice;
  }

  forget(key: string): void {
    this.shown.delete(key);
  }

  dispose(): void {
    this.channel.dispose();
  }
}

export function describe(err: unknown): string {
  if (err instanceof Error) {
    return err.message;
  }
  if (err && typeof err === 'object' && 'message' in err) {
    return String((err as { message: unknown }).message);
  }
  return String(err);
}
