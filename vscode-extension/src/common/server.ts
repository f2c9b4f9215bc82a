// Starting, restarting and talking to `python -m codeloupe serve`.

import * as vscode from 'vscode';
import {
  CloseAction,
  ErrorAction,
  ExecuteCommandParams,
  ExecuteCommandRequest,
  LanguageClient,
  LanguageClientOptions,
  RevealOutputChannelOn,
  ServerOptions,
  State,
  WorkDoneProgress,
  WorkDoneProgressBegin,
  WorkDoneProgressEnd,
  WorkDoneProgressReport,
} from 'vscode-languageclient/node';
import { describe, Log } from './logging';
import {
  checkCodeloupe,
  chooseInterpreter,
  Interpreter,
  importProblem,
  installCommand,
  serverCommand,
} from './python';
import { API_KEY_SECRET, apiKeyEnv, initializationOptions, RESTART_SETTING_KEYS } from './settings';

/** The languages the server indexes (VS Code language ids). */
export const LANGUAGES = [
  'python', 'javascript', 'javascriptreact', 'typescript', 'typescriptreact', 'java',
  'go', 'rust', 'c', 'cpp', 'csharp', 'ruby', 'php',
];

export type ServerState = 'starting' | 'running' | 'stopped' | 'failed';

export type IndexProgress = WorkDoneProgressBegin | WorkDoneProgressReport | WorkDoneProgressEnd;

interface PythonEnvironmentsApi {
  getActiveEnvironmentPath(resource?: vscode.Uri): { id: string; path: string };
  resolveEnvironment(env: { id: string; path: string } | string): Promise<{ executable: { uri?: vscode.Uri } } | undefined>;
  onDidChangeActiveEnvironmentPath: vscode.Event<unknown>;
}

interface PythonExtensionApi {
  environments?: PythonEnvironmentsApi;
}

const MAX_RESTARTS = 3;
const CLIENT_TOKEN_PREFIX = 'codeloupe/client/';
const RESTART_WINDOW_MS = 3 * 60 * 1000;

export class CodeloupeServer implements vscode.Disposable {
  private client: LanguageClient | undefined;
  private starting: Promise<void> | undefined;
  private _state: ServerState = 'stopped';
  private _interpreter: Interpreter | undefined;
  private crashes: number[] = [];
  private restarting = false;
  private pythonApi: PythonEnvironmentsApi | undefined;
  private readonly disposables: vscode.Disposable[] = [];
  private readonly stateEmitter = new vscode.EventEmitter<ServerState>();
  private readonly progressEmitter = new vscode.EventEmitter<{ token: string | number; value: IndexProgress }>();

  /** Fires when the process starts, stops or fails. */
  readonly onDidChangeState = this.stateEmitter.event;
  /** Every `$/progress` of a server-created token (index runs). */
  readonly onIndexProgress = this.progressEmitter.event;

  constructor(private readonly context: vscode.ExtensionContext, private readonly log: Log) {
    this.disposables.push(
      this.stateEmitter,
      this.progressEmitter,
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (RESTART_SETTING_KEYS.some((k) => e.affectsConfiguration(`codeloupe.${k}`))) {
          void this.restart('codeloupe.python or codeloupe.llmApiKeyEnv changed');
        }
      }),
      context.secrets.onDidChange((e) => {
        if (e.key === API_KEY_SECRET) {
          void this.restart('the LLM API key changed');
        }
      }),
    );
  }

  get state(): ServerState {
    return this._state;
  }

  get interpreter(): Interpreter | undefined {
    return this._interpreter;
  }

  get languageClient(): LanguageClient | undefined {
    return this.client;
  }

  private setState(state: ServerState): void {
    if (state !== this._state) {
      this._state = state;
      this.stateEmitter.fire(state);
    }
  }

  start(): Promise<void> {
    if (!this.starting) {
      this.starting = this.doStart().finally(() => {
        this.starting = undefined;
      });
    }
    return this.starting;
  }

  async restart(reason: string): Promise<void> {
    this.log.info(`restarting the server: ${reason}`);
    this.restarting = true;
    try {
      await this.starting?.catch(() => undefined);
      await this.stop();
    } finally {
      this.restarting = false;
    }
    this.crashes = [];
    await this.start();
  }

  async stop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (client) {
      try {
        await client.stop(10000);
      } catch (err) {
        this.log.warn(`stopping the server: ${describe(err)}`);
      }
      await client.dispose().catch(() => undefined);
    }
    this.setState('stopped');
  }

  /** The Python extension's API, once, when it is installed. */
  private async pythonEnvironments(): Promise<PythonEnvironmentsApi | undefined> {
    if (this.pythonApi) {
      return this.pythonApi;
    }
    const ext = vscode.extensions.getExtension<PythonExtensionApi>('ms-python.python');
    if (!ext) {
      return undefined;
    }
    try {
      const api = ext.isActive ? ext.exports : await ext.activate();
      const envs = api?.environments;
      if (envs?.getActiveEnvironmentPath) {
        this.pythonApi = envs;
        this.disposables.push(
          envs.onDidChangeActiveEnvironmentPath(() => {
            if (this._interpreter?.source !== 'setting') {
              void this.restart('the Python environment changed');
            }
          }),
        );
        return envs;
      }
    } catch (err) {
      this.log.warn(`the Python extension's API is not available: ${describe(err)}`);
    }
    return undefined;
  }

  async resolveInterpreter(): Promise<Interpreter> {
    const folder = vscode.workspace.workspaceFolders?.[0];
    const setting = vscode.workspace.getConfiguration('codeloupe', folder?.uri).get<string>('python', '');
    let fromExtension: string | undefined;
    if (!setting.trim()) {
      const envs = await this.pythonEnvironments();
      if (envs) {
        try {
          const active = envs.getActiveEnvironmentPath(folder?.uri);
          const resolved = await envs.resolveEnvironment(active);
          fromExtension = resolved?.executable.uri?.fsPath ?? active.path;
        } catch (err) {
          this.log.warn(`could not read the Python extension's environment: ${describe(err)}`);
        }
      }
    }
    return chooseInterpreter({ setting, pythonExtension: fromExtension, workspaceFolder: folder?.uri.fsPath });
  }

  private async doStart(): Promise<void> {
    this.setState('starting');
    const interpreter = await this.resolveInterpreter();
    this._interpreter = interpreter;
    this.log.info(`Python interpreter (${interpreter.source}): ${interpreter.path}`);
    const check = await checkCodeloupe(interpreter.path);
    if (!check.ok) {
      this.setState('failed');
      this.log.error(check.detail);
      void this.offerInstall(interpreter.path, importProblem(interpreter.path, check), check.reason === 'not-installed');
      return;
    }
    this.log.forget('install');
    this.log.info(`codeloupe ${check.version} is installed there`);

    const apiKey = await this.context.secrets.get(API_KEY_SECRET);
    const cmd = serverCommand(interpreter.path);
    const cwd = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    const config = vscode.workspace.getConfiguration('codeloupe');
    const env: NodeJS.ProcessEnv = { ...process.env, PYTHONUNBUFFERED: '1' };
    if (apiKey) {
      env[apiKeyEnv(config.get('llmApiKeyEnv'))] = apiKey;
    }
    const serverOptions: ServerOptions = { command: cmd.command, args: cmd.args, options: { env, cwd } };
    const clientOptions: LanguageClientOptions = {
      documentSelector: LANGUAGES.map((language) => ({ scheme: 'file', language })),
      synchronize: { configurationSection: 'codeloupe' },
      initializationOptions: initializationOptions((key) => config.get(key)),
      outputChannel: this.log.channel,
      revealOutputChannelOn: RevealOutputChannelOn.Never,
      middleware: {
        workspace: {
          // A change of codeloupe.python restarts the server instead: no notification to the old one.
          didChangeConfiguration: async (sections, next) => {
            if (client.isRunning() && !this.restarting) {
              await next(sections);
            }
          },
        },
        handleWorkDoneProgress: (token, params, next) => {
          // Progress on tokens the server created (index runs); not the answers streaming
          // on the tokens this client hands to commands.
          if (!(typeof token === 'string' && token.startsWith(CLIENT_TOKEN_PREFIX))) {
            this.progressEmitter.fire({ token, value: params });
          }
          next(token, params);
        },
      },
      errorHandler: {
        error: (_error, _message, count) => ({ action: (count ?? 0) <= 3 ? ErrorAction.Continue : ErrorAction.Shutdown }),
        closed: () => this.onClosed(),
      },
      initializationFailedHandler: (err) => {
        void this.log.surface('init', `codeloupe: the server failed to initialize: ${describe(err)}`);
        return false;
      },
    };
    const client = new LanguageClient('codeloupe', 'codeloupe', serverOptions, clientOptions);
    client.onDidChangeState((e) => {
      if (client !== this.client) {
        return;
      }
      if (e.newState === State.Running) {
        this.setState('running');
      } else if (e.newState === State.Starting) {
        this.setState('starting');
      }
    });
    this.client = client;
    try {
      await client.start();
      this.setState('running');
      this.log.forget('crash');
    } catch (err) {
      this.setState('failed');
      void this.log.surface('start', `codeloupe: the server did not start (${cmd.command} ${cmd.args.join(' ')}): ${describe(err)}`);
    }
  }

  private onClosed(): { action: CloseAction; message?: string; handled?: boolean } {
    const now = Date.now();
    this.crashes = this.crashes.filter((t) => now - t < RESTART_WINDOW_MS);
    this.crashes.push(now);
    if (this.crashes.length <= MAX_RESTARTS) {
      this.log.warn(`the server exited; restarting (${this.crashes.length}/${MAX_RESTARTS})`);
      return { action: CloseAction.Restart, handled: true };
    }
    this.setState('failed');
    void this.log.surface(
      'crash',
      `codeloupe: the server stopped ${this.crashes.length} times in 3 minutes and was not restarted.`,
    );
    return { action: CloseAction.DoNotRestart, handled: true };
  }

  private async offerInstall(python: string, message: string, installable: boolean): Promise<void> {
    const actions = installable ? ['Install in Terminal', 'Copy Command', 'Choose Interpreter'] : ['Choose Interpreter'];
    const choice = await this.log.surface('install', message, ...actions);
    if (choice === 'Install in Terminal') {
      const terminal = vscode.window.createTerminal('codeloupe: install');
      terminal.show();
      terminal.sendText(installCommand(python));
      void vscode.window.showInformationMessage('When the install has finished, run "codeloupe: Restart Server".', 'Restart Server')
        .then((c) => c && this.restart('codeloupe installed'));
    } else if (choice === 'Copy Command') {
      await vscode.env.clipboard.writeText(installCommand(python));
    } else if (choice === 'Choose Interpreter') {
      await vscode.commands.executeCommand('workbench.action.openSettings', 'codeloupe.python');
    }
  }

  /** The running client; waits for a start in progress. */
  async ready(): Promise<LanguageClient> {
    if (this.starting) {
      await this.starting;
    } else if (this._state === 'stopped') {
      await this.start();
    }
    if (!this.client || this._state !== 'running') {
      throw new Error('the codeloupe server is not running (see "codeloupe: Show Logs")');
    }
    return this.client;
  }

  /**
   * Runs a `codeloupe.server.*` command with its one object argument. With
   * `onProgress`, passes a work-done token and hands over every report on it.
   */
  async command<T>(
    command: string,
    args: object,
    token?: vscode.CancellationToken,
    onProgress?: (value: IndexProgress) => void,
  ): Promise<T> {
    const client = await this.ready();
    const params: ExecuteCommandParams = { command, arguments: [args] };
    let sub: vscode.Disposable | undefined;
    if (onProgress) {
      const workDoneToken = `${CLIENT_TOKEN_PREFIX}${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
      params.workDoneToken = workDoneToken;
      sub = client.onProgress(WorkDoneProgress.type, workDoneToken, onProgress);
    }
    try {
      return (await client.sendRequest(ExecuteCommandRequest.type, params, token)) as T;
    } finally {
      sub?.dispose();
    }
  }

  /** The workspace folder (as the server names it) holding `uri`, else the first. */
  folderFor(uri?: vscode.Uri): vscode.WorkspaceFolder | undefined {
    return (uri && vscode.workspace.getWorkspaceFolder(uri)) ?? vscode.workspace.workspaceFolders?.[0];
  }

  dispose(): void {
    void this.stop();
    for (const d of this.disposables) {
      d.dispose();
    }
  }
}
