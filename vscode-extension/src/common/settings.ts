// Settings: which `codeloupe.*` settings are the server's options, and what the
// client keeps for itself. Pure: no `vscode` import (tested with mocha).

/** The server's options (server/codeloupe/lsp/options.py `ServerOptions`, camelCase). */
export const SERVER_OPTION_KEYS = [
  'model',
  'embeddingBackend',
  'embeddingDevice',
  'indexUri',
  'include',
  'exclude',
  'maxFileBytes',
  'indexGenerated',
  'workers',
  'embeddings',
  'embedDebounceMs',
  'llmEndpoint',
  'llmModel',
  'llmApiKeyEnv',
  'askContextTokens',
  'llmMaxTokens',
  'llmDeadlineSeconds',
  'callHierarchyMinConfidence',
  'logLevel',
] as const;

/** Settings only the extension reads (the server ignores unknown keys in its settings section). */
export const CLIENT_SETTING_KEYS = ['python', 'trace.server', 'ask.useChatModel'] as const;

/** Changing one of these needs a new server process (the others reach it via didChangeConfiguration). */
export const RESTART_SETTING_KEYS = ['python', 'llmApiKeyEnv'] as const;

/** Environment variable that carries the LLM API key (kept in SecretStorage) to the server,
 * unless `codeloupe.llmApiKeyEnv` names another. */
export const API_KEY_ENV = 'CODELOUPE_LLM_API_KEY';

/** The name of the API key's environment variable: the setting when it is a valid name. */
export function apiKeyEnv(setting: unknown): string {
  return typeof setting === 'string' && /^[A-Za-z_][A-Za-z0-9_]*$/.test(setting) ? setting : API_KEY_ENV;
}

/** The secret's name in `context.secrets`. */
export const API_KEY_SECRET = 'codeloupe.llmApiKey';

/**
 * `initializationOptions` from the `codeloupe` configuration: only the server's own
 * keys (it reports unknown keys in initializationOptions), and only values that are set.
 */
export function initializationOptions(get: (key: string) => unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of SERVER_OPTION_KEYS) {
    const value = get(key);
    if (value !== undefined) {
      out[key] = value;
    }
  }
  return out;
}
