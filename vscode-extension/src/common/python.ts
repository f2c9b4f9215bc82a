// Which Python runs the server, and whether codeloupe is installed there.
// No `vscode` import: the choice is a pure function, the check a child process.

import { execFile } from 'child_process';
import * as os from 'os';
import * as path from 'path';

export type InterpreterSource = 'setting' | 'python-extension' | 'default';

export interface Interpreter {
  path: string;
  source: InterpreterSource;
}

export interface InterpreterInputs {
  /** `codeloupe.python` (may be empty, may hold `${workspaceFolder}` or `~`). */
  setting?: string;
  /** The Python extension's active environment's executable, when it is installed. */
  pythonExtension?: string;
  workspaceFolder?: string;
  home?: string;
  platform?: NodeJS.Platform;
}

/** `codeloupe.python`, else the Python extension's environment, else `python3` (`python` on Windows). */
export function chooseInterpreter(inputs: InterpreterInputs): Interpreter {
  const setting = (inputs.setting ?? '').trim();
  if (setting) {
    return { path: expandPath(setting, inputs.workspaceFolder, inputs.home), source: 'setting' };
  }
  const fromExtension = (inputs.pythonExtension ?? '').trim();
  if (fromExtension) {
    return { path: fromExtension, source: 'python-extension' };
  }
  return { path: (inputs.platform ?? process.platform) === 'win32' ? 'python' : 'python3', source: 'default' };
}

/** Expands `${workspaceFolder}`, `${userHome}` and a leading `~`; resolves a relative path against the folder. */
export function expandPath(value: string, workspaceFolder?: string, home: string = os.homedir()): string {
  let out = value.replace(/\$\{userHome\}/g, home);
  if (workspaceFolder) {
    out = out.replace(/\$\{workspaceFolder\}/g, workspaceFolder);
  }
  if (out === '~' || out.startsWith('~/') || out.startsWith('~\\')) {
    out = path.join(home, out.slice(1));
  }
  const bare = !out.includes('/') && !out.includes('\\');
  if (!bare && !path.isAbsolute(out) && workspaceFolder) {
    out = path.join(workspaceFolder, out);
  }
  return out;
}

function quote(arg: string): string {
  return /^[\w@%+=:,./\\-]+$/.test(arg) ? arg : `"${arg.replace(/(["\\$`])/g, '\\$1')}"`;
}

/** The exact command that installs codeloupe into `python`. */
export function installCommand(python: string): string {
  return `${quote(python)} -m pip install codeloupe`;
}

/** The server's command line. */
export function serverCommand(python: string): { command: string; args: string[] } {
  return { command: python, args: ['-m', 'codeloupe', 'serve'] };
}

export type ImportCheck =
  | { ok: true; version: string }
  | { ok: false; reason: 'no-python' | 'not-installed' | 'error'; detail: string };

/** Runs `python -c "import codeloupe"`: tells a missing interpreter from a missing package. */
export function checkCodeloupe(python: string, timeoutMs = 30000): Promise<ImportCheck> {
  const script = 'import codeloupe, sys; sys.stdout.write(getattr(codeloupe, "__version__", "?"))';
  return new Promise((resolve) => {
    execFile(python, ['-c', script], { timeout: timeoutMs, windowsHide: true }, (err, stdout, stderr) => {
      if (!err) {
        resolve({ ok: true, version: stdout.trim() });
        return;
      }
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'EACCES') {
        resolve({ ok: false, reason: 'no-python', detail: `${python}: ${err.message}` });
      } else if (/ModuleNotFoundError|No module named/.test(stderr)) {
        resolve({ ok: false, reason: 'not-installed', detail: stderr.trim().split('\n').pop() ?? '' });
      } else {
        resolve({ ok: false, reason: 'error', detail: (stderr || err.message).trim() });
      }
    });
  });
}

/** The message shown when the check fails. */
export function importProblem(python: string, check: Exclude<ImportCheck, { ok: true }>): string {
  switch (check.reason) {
    case 'no-python':
      return `codeloupe: cannot run the Python interpreter "${python}". Set "codeloupe.python" to a Python 3.11+ interpreter.`;
    case 'not-installed':
      return `codeloupe is not installed in ${python}. Install it with: ${installCommand(python)}`;
    default:
      return `codeloupe: "import codeloupe" failed in ${python}: ${check.detail}`;
  }
}
