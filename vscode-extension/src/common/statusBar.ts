// The status bar item: index progress (from the server's `$/progress`) and the index state.

import * as vscode from 'vscode';
import { ProgressView, statusBarText } from './format';
import { describe, Log } from './logging';
import { SERVER_COMMANDS, StatusResult } from './protocol';
import { CodeloupeServer } from './server';

const POLL_BUSY_MS = 2000;

export class StatusBar implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;
  private readonly disposables: vscode.Disposable[] = [];
  private readonly runs = new Map<string | number, ProgressView>();
  private status: StatusResult | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private refreshing = false;

  constructor(private readonly server: CodeloupeServer, private readonly log: Log) {
    this.item = vscode.window.createStatusBarItem('codeloupe.status', vscode.StatusBarAlignment.Left, 50);
    this.item.name = 'codeloupe';
    this.item.command = 'codeloupe.status';
    this.disposables.push(
      this.item,
      server.onDidChangeState((state) => {
        if (state !== 'running') {
          this.runs.clear();
          this.status = undefined;
        }
        this.render();
        if (state === 'running') {
          void this.refresh();
        }
      }),
      server.onIndexProgress(({ token, value }) => {
        const run = this.runs.get(token) ?? {};
        if (value.kind === 'begin') {
          this.log.info(`${value.title ?? 'progress'}: ${value.message ?? 'started'}`);
          this.runs.set(token, { title: value.title, message: value.message, percentage: value.percentage });
        } else if (value.kind === 'report') {
          this.runs.set(token, {
            ...run,
            message: value.message ?? run.message,
            percentage: value.percentage ?? run.percentage,
          });
        } else {
          this.log.info(`progress: ${value.message ?? 'done'}`);
          if (value.message?.startsWith('failed') && /index/i.test(run.title ?? '')) {
            void this.log.surface('index', `${run.title}: ${value.message}`);
          }
          this.runs.delete(token);
          void this.refresh();
        }
        this.render();
      }),
    );
    this.render();
    this.item.show();
  }

  /** Asks the server for its status; polls while an index run is under way. */
  async refresh(): Promise<StatusResult | undefined> {
    if (this.server.state !== 'running' || this.refreshing) {
      return this.status;
    }
    this.refreshing = true;
    try {
      this.status = await this.server.command<StatusResult>(SERVER_COMMANDS.status, {});
      for (const f of this.status.folders) {
        if (f.state === 'failed') {
          void this.log.surface(`index:${f.root}`, `codeloupe: indexing ${f.root} failed: ${f.error ?? 'see the logs'}`);
        } else {
          this.log.forget(`index:${f.root}`);
        }
      }
    } catch (err) {
      this.log.warn(`status: ${describe(err)}`);
    } finally {
      this.refreshing = false;
    }
    this.render();
    this.schedule();
    return this.status;
  }

  private schedule(): void {
    if (this.timer !== undefined) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    const busy = this.status && this.status.state !== 'ready' && this.status.state !== 'failed';
    if (busy && this.server.state === 'running') {
      this.timer = setTimeout(() => void this.refresh(), POLL_BUSY_MS);
    }
  }

  private render(): void {
    const progress = [...this.runs.values()].pop();
    const view = statusBarText(this.server.state, this.status, progress);
    this.item.text = view.text;
    this.item.tooltip = view.tooltip;
    this.item.backgroundColor =
      view.kind === 'error'
        ? new vscode.ThemeColor('statusBarItem.errorBackground')
        : view.kind === 'warning'
          ? new vscode.ThemeColor('statusBarItem.warningBackground')
          : undefined;
  }

  get lastStatus(): StatusResult | undefined {
    return this.status;
  }

  dispose(): void {
    if (this.timer !== undefined) {
      clearTimeout(this.timer);
    }
    for (const d of this.disposables) {
      d.dispose();
    }
  }
}
