// End-to-end test in real VS Code: code-server with the packaged .vsix, driven by
// playwright-core in headless Chromium. See ../../../shared/CLIENTS.md.
//
// Environment:
//   CODELOUPE_PYTHON             Python with codeloupe installed (becomes codeloupe.python) — required
//   CODELOUPE_E2E_VSIX           the packaged extension (default: codeloupe.vsix)
//   CODELOUPE_E2E_ARTIFACTS      screenshots and logs (default: .e2e/artifacts)
//   CODELOUPE_E2E_CACHE          Node 24 + code-server install (default: ~/.cache/codeloupe-e2e)
//   CODELOUPE_E2E_EXPECT_RELATED 1: the hover must show "Related functions"
//   CHROMIUM                     the browser (default: /usr/bin/chromium)
//
// Exit code 0 when every step passed; each step prints a line with its time.

import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const here = path.dirname(fileURLToPath(import.meta.url));
const extRoot = path.resolve(here, '../..');
const python = process.env.CODELOUPE_PYTHON;
const vsix = path.resolve(extRoot, process.env.CODELOUPE_E2E_VSIX ?? 'codeloupe.vsix');
const artifacts = path.resolve(extRoot, process.env.CODELOUPE_E2E_ARTIFACTS ?? '.e2e/artifacts');
const chromiumPath = process.env.CHROMIUM ?? '/usr/bin/chromium';
const expectRelated = process.env.CODELOUPE_E2E_EXPECT_RELATED === '1';
const t0 = Date.now();

function log(message) {
  console.log(`[e2e ${((Date.now() - t0) / 1000).toFixed(1).padStart(5)}s] ${message}`);
}

if (!python) {
  console.error('CODELOUPE_PYTHON must name a Python with codeloupe installed');
  process.exit(2);
}
if (!fs.existsSync(vsix)) {
  console.error(`no packaged extension at ${vsix} (run npm run package)`);
  process.exit(2);
}

// --- code-server, installed once into the cache ------------------------------------------------
const installed = execFileSync('bash', [path.join(here, 'install-code-server.sh')], {
  encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'],
}).trim().split('\n');
const [node24, entry] = installed.slice(-2);
log(`code-server: ${entry}`);

// --- a fresh workspace, user data and extensions folder ------------------------------------
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'codeloupe-e2e-'));
const workspace = path.join(work, 'shop-workspace');
fs.cpSync(path.join(extRoot, 'test/fixture'), workspace, { recursive: true });
const userData = path.join(work, 'user');
const extDir = path.join(work, 'ext');
fs.mkdirSync(path.join(userData, 'User'), { recursive: true });
fs.writeFileSync(path.join(userData, 'User', 'settings.json'), JSON.stringify({
  'codeloupe.python': python,
  'codeloupe.logLevel': 'info',
  'chat.disableAIFeatures': true,
  'workbench.secondarySideBar.defaultVisibility': 'hidden',
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'workbench.enableExperiments': false,
  'security.workspace.trust.enabled': false,
  'telemetry.telemetryLevel': 'off',
  'extensions.autoUpdate': false,
  'extensions.autoCheckUpdates': false,
  'extensions.ignoreRecommendations': true,
  'update.mode': 'none',
  'editor.hover.delay': 200,
  'editor.minimap.enabled': false,
  'window.restoreWindows': 'none',
  'files.hotExit': 'off',
}, null, 2));
const config = path.join(work, 'config.yaml');
fs.writeFileSync(config, 'auth: none\ncert: false\n');
fs.rmSync(artifacts, { recursive: true, force: true });
fs.mkdirSync(artifacts, { recursive: true });

const common = ['--user-data-dir', userData, '--extensions-dir', extDir, '--config', config];
execFileSync(node24, [entry, ...common, '--install-extension', vsix], { stdio: ['ignore', 'pipe', 'inherit'] });
log('extension installed');

async function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

// --- a fake OpenAI-compatible endpoint: streams a cited answer, records what it got -----------
const ANSWER = [
  'Failed connections are retried in `Client.fetch` ',
  '(shop/http.py:8-15): it calls `Client.send` ',
  'up to three times and sleeps `2 ** attempt` seconds ',
  'between tries (shop/http.py:10-14).',
];
const llmRequests = [];
const llm = http.createServer((req, res) => {
  let body = '';
  req.on('data', (c) => { body += c; });
  req.on('end', async () => {
    if (req.method === 'GET' && req.url.endsWith('/models')) {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ object: 'list', data: [{ id: 'fake-coder', object: 'model' }] }));
      return;
    }
    const request = JSON.parse(body || '{}');
    llmRequests.push({ authorization: req.headers.authorization ?? '', request });
    if (!request.stream) {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ model: 'fake-coder', choices: [{ index: 0, message: { role: 'assistant', content: ANSWER.join('') }, finish_reason: 'stop' }] }));
      return;
    }
    res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });
    for (const piece of ANSWER) {
      res.write(`data: ${JSON.stringify({ model: 'fake-coder', choices: [{ index: 0, delta: { content: piece } }] })}\n\n`);
      await new Promise((r) => setTimeout(r, 400));
    }
    res.write(`data: ${JSON.stringify({ model: 'fake-coder', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\n`);
    res.end('data: [DONE]\n\n');
  });
});
const llmPort = await freePort();
await new Promise((r) => llm.listen(llmPort, '127.0.0.1', r));

const port = await freePort();
const serverLog = fs.openSync(path.join(artifacts, 'code-server.log'), 'w');
// detached: its own process group, so that the extension host and the language server
// go down with it (kill -- -PGID).
const codeServer = spawn(node24, [
  entry, ...common, '--bind-addr', `127.0.0.1:${port}`, '--auth', 'none', '--disable-telemetry',
  '--disable-update-check', '--disable-workspace-trust', '--disable-getting-started-override',
], { detached: true, stdio: ['ignore', serverLog, serverLog], env: { ...process.env, HOME: work } });

let browser;
let exitCode = 1;

function stopAll() {
  try {
    process.kill(-codeServer.pid, 'SIGTERM');
  } catch {
    // already gone
  }
}
process.on('SIGINT', () => { stopAll(); process.exit(130); });
process.on('SIGTERM', () => { stopAll(); process.exit(143); });

async function waitForHealth(timeoutMs) {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/healthz`);
      if (res.ok) return;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`code-server did not answer on port ${port}`);
}

let page;
let shot = 0;
async function screenshot(name) {
  shot += 1;
  const file = path.join(artifacts, `${String(shot).padStart(2, '0')}-${name}.png`);
  await page.screenshot({ path: file });
  log(`screenshot ${path.relative(extRoot, file)}`);
}

const quickInput = () => page.locator('.quick-input-widget');
const quickInputBox = () => page.locator('.quick-input-widget .quick-input-box input');
const quickRows = () => page.locator('.quick-input-widget .monaco-list-row');

async function openQuickInput(value) {
  await page.keyboard.press('F1');
  try {
    await quickInput().waitFor({ state: 'visible', timeout: 3000 });
  } catch {
    // focus was somewhere F1 does not reach (a webview): back to the editor, try again
    await page.locator('.monaco-editor .view-lines').first().click({ position: { x: 2, y: 2 } });
    await page.keyboard.press('F1');
    await quickInput().waitFor({ state: 'visible', timeout: 15000 });
  }
  await quickInputBox().fill(value);
}

/** Runs a command palette entry by its full title. */
async function runCommand(title) {
  await openQuickInput(`>${title}`);
  const row = quickRows().filter({ hasText: title }).first();
  await row.waitFor({ timeout: 15000 });
  await quickInputBox().press('Enter');
}

async function openFile(relPath) {
  const name = path.basename(relPath);
  await openQuickInput(relPath);
  const row = quickRows().filter({ hasText: name }).first();
  await row.waitFor({ timeout: 15000 });
  await quickInputBox().press('Enter');
  await page.locator('.tab.active', { hasText: name }).waitFor({ timeout: 15000 });
  await page.locator('.monaco-editor .view-lines').first().waitFor();
}

async function goToLine(line, column) {
  await openQuickInput(`:${line}:${column}`);
  await quickInputBox().press('Enter');
  await page.locator('.statusbar-item', { hasText: `Ln ${line}, Col ${column}` }).waitFor({ timeout: 10000 });
}

/** Edits the user settings the way a user does: Open User Settings (JSON), replace, save, close. */
async function editUserSettings(patch) {
  const settingsFile = path.join(userData, 'User', 'settings.json');
  const settings = { ...JSON.parse(fs.readFileSync(settingsFile, 'utf8')), ...patch };
  await runCommand('Preferences: Open User Settings (JSON)');
  // (a tab, or a modal editor in recent VS Code)
  const editor = page.locator('.monaco-editor', { hasText: 'codeloupe.logLevel' }).last();
  await editor.waitFor({ timeout: 15000 });
  await editor.locator('.view-lines').click();
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Delete');
  await page.keyboard.insertText(JSON.stringify(settings));
  await page.keyboard.press('Control+S');
  const saved = () => {
    try {
      return JSON.stringify(JSON.parse(fs.readFileSync(settingsFile, 'utf8'))) === JSON.stringify(settings);
    } catch {
      return false; // being written
    }
  };
  const until = Date.now() + 10000;
  while (!saved()) {
    if (Date.now() > until) throw new Error('settings.json was not saved');
    await new Promise((r) => setTimeout(r, 100));
  }
  // Escape closes the modal editor (a first one may only close a suggestion widget);
  // else its close button, else the command.
  for (let i = 0; i < 3 && (await editor.isVisible()); i++) {
    await page.keyboard.press('Escape');
    await editor.waitFor({ state: 'hidden', timeout: 1500 }).catch(() => undefined);
  }
  if (await editor.isVisible()) {
    const close = page.locator('.monaco-modal-editor-block .codicon-close, .monaco-modal-editor-block [aria-label^="Close"]').first();
    if (await close.isVisible()) {
      await close.click();
    } else {
      await runCommand('View: Close Editor');
    }
    await editor.waitFor({ state: 'hidden', timeout: 5000 });
  }
}

async function step(name, fn) {
  const start = Date.now();
  try {
    await fn();
    log(`ok   ${name} (${((Date.now() - start) / 1000).toFixed(1)}s)`);
  } catch (err) {
    log(`FAIL ${name}: ${err.message.split('\n')[0]}`);
    await screenshot(`failed-${name.replace(/\W+/g, '-')}`).catch(() => undefined);
    throw err;
  }
}

try {
  await waitForHealth(60000);
  log(`code-server up on port ${port}`);
  browser = await chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-dev-shm-usage'],
  });
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  page = await context.newPage();
  page.setDefaultTimeout(30000);

  await step('workbench loads', async () => {
    await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(workspace)}`);
    await page.locator('.monaco-workbench').waitFor({ timeout: 60000 });
    await page.locator('.statusbar').waitFor();
  });

  // Opening a Python file activates the extension; the server indexes the workspace.
  await step('extension starts the server and indexes the workspace', async () => {
    await openFile('shop/cart.py');
    // The status bar item, sampled until the index is ready: it goes through the
    // server's $/progress (a percentage) or the index states before "N symbols".
    const item = page.locator('.statusbar-item', { hasText: 'codeloupe' }).first();
    const seen = [];
    const until = Date.now() + 180000;
    for (;;) {
      const label = ((await item.getAttribute('aria-label', { timeout: 1000 }).catch(() => null))
        ?? (await item.innerText().catch(() => ''))).trim();
      const tip = await item.locator('a').first().getAttribute('aria-label').catch(() => '');
      const state = label || tip || '';
      if (state && seen.at(-1) !== state) seen.push(state);
      if (/codeloupe [\d,]+ symbols/.test(state)) break;
      if (Date.now() > until) throw new Error(`not ready; status bar went through: ${seen.join(' | ')}`);
      await page.waitForTimeout(100);
    }
    log(`status bar went through: ${seen.join(' | ')}`);
    if (!seen.some((t) => /codeloupe \d+%/.test(t))) {
      throw new Error('the status bar showed no indexing progress before the index was ready');
    }
    await screenshot('indexed');
  });

  await step('search codebase and open a result', async () => {
    await runCommand('codeloupe: Search Codebase');
    await quickInput().waitFor({ state: 'visible' });
    await quickInputBox().fill('retry failed connections with backoff');
    const hit = quickRows().filter({ hasText: 'Client.fetch' }).first();
    await hit.waitFor({ timeout: 30000 });
    const rows = await quickRows().allInnerTexts();
    log(`search rows: ${rows.slice(0, 4).map((r) => r.replace(/\s+/g, ' ')).join(' | ')}`);
    const first = rows[0].replace(/\s+/g, ' ');
    if (!first.includes('Client.fetch')) {
      throw new Error(`Client.fetch is not the first result: ${first}`);
    }
    if (!/method · shop\/http\.py:8 · \d+\.\d\d/.test(first)) {
      throw new Error(`the row does not show kind · path:line · score: ${first}`);
    }
    // The active item is previewed while the picker is open.
    await page.locator('.tab', { hasText: 'http.py' }).waitFor({ timeout: 10000 });
    await screenshot('search-results');
    await hit.click();
    await quickInput().waitFor({ state: 'hidden' });
    await page.locator('.tab.active', { hasText: 'http.py' }).waitFor();
    await page.locator('.statusbar-item', { hasText: /Ln 8, Col \d+/ }).waitFor({ timeout: 10000 });
    await screenshot('search-opened');
  });

  await step('call hierarchy shows the callers', async () => {
    await goToLine(8, 10); // on "fetch" in "def fetch"
    await runCommand('Calls: Show Call Hierarchy');
    const view = page.locator('.pane', { hasText: /Callers Of|Calls/ }).last();
    await view.locator('.monaco-list-row', { hasText: 'checkout' }).first().waitFor({ timeout: 20000 });
    await view.locator('.monaco-list-row', { hasText: 'refund' }).first().waitFor({ timeout: 5000 });
    await screenshot('call-hierarchy');
  });

  await step('hover shows callers and related functions', async () => {
    await page.locator('.monaco-editor .view-lines').first().click({ position: { x: 5, y: 5 } });
    await goToLine(8, 10);
    await runCommand('Show or Focus Hover');
    const hover = page.locator('.monaco-hover-content', { hasText: 'called by' }).first();
    await hover.waitFor({ timeout: 20000 });
    const text = await hover.innerText();
    log(`hover: ${text.replace(/\s+/g, ' ').slice(0, 300)}`);
    for (const needed of ['Client.fetch', 'checkout', 'refund']) {
      if (!text.includes(needed)) throw new Error(`the hover lacks ${needed}`);
    }
    if (expectRelated) {
      if (!text.includes('Related functions')) throw new Error('the hover lacks "Related functions"');
      if (!/upload_receipt|store_file|parse_header|total_price|add_item/.test(text)) {
        throw new Error('"Related functions" lists none of the fixture\'s other functions');
      }
    } else {
      log('the server does not offer "Related functions" yet: checked callers only');
    }
    await screenshot('hover');
    await page.keyboard.press('Escape');
  });

  await step('outline and references come from the server', async () => {
    await runCommand('Explorer: Focus on Outline View');
    const outline = page.locator('.pane', { hasText: 'Outline' }).last();
    await outline.locator('.monaco-list-row', { hasText: 'Client' }).first().waitFor({ timeout: 15000 });
    await outline.locator('.monaco-list-row', { hasText: 'parse_header' }).first().waitFor({ timeout: 5000 });
    await goToLine(8, 10);
    await runCommand('Go to References');
    const peek = page.locator('.peekview-widget');
    await peek.locator('.monaco-list-row', { hasText: 'cart.py' }).first().waitFor({ timeout: 15000 });
    await screenshot('outline-references');
    await page.keyboard.press('Escape');
  });

  await step('call chain tree', async () => {
    await runCommand('codeloupe: Show Call Chain');
    await quickInputBox().fill('checkout');
    await quickRows().filter({ hasText: 'checkout' }).first().waitFor({ timeout: 15000 });
    await quickInputBox().press('Enter');
    await page.locator('.quick-input-widget .quick-input-title', { hasText: '(2/2)' }).waitFor({ timeout: 10000 });
    await quickInputBox().fill('send');
    await quickRows().filter({ hasText: 'Client.send' }).first().waitFor({ timeout: 15000 });
    await quickInputBox().press('Enter');
    const chain = page.locator('.monaco-list-row', { hasText: 'checkout → Client.fetch → Client.send' }).first();
    await chain.waitFor({ timeout: 20000 });
    const site = page.locator('.monaco-list-row', { hasText: 'Client.fetch' })
      .filter({ hasText: 'shop/cart.py:23' }).first();
    await site.waitFor({ timeout: 10000 });
    await screenshot('call-chain');
    await site.click();
    await page.locator('.tab.active', { hasText: 'cart.py' }).waitFor({ timeout: 10000 });
    await page.locator('.statusbar-item', { hasText: /Ln 23, Col/ }).waitFor({ timeout: 10000 });
  });

  await step('ask without a model shows the retrieved code with source links', async () => {
    await runCommand('codeloupe: Ask About Codebase');
    await quickInputBox().fill('How are failed connections retried?');
    await quickInputBox().press('Enter');
    const frame = page.frameLocator('iframe.webview.ready').frameLocator('#active-frame');
    const source = frame.locator('a.source', { hasText: 'Client.fetch' }).first();
    await source.waitFor({ timeout: 60000 });
    const note = await frame.locator('#note').innerText();
    if (!/no language model/i.test(note)) throw new Error(`no "no model" note: ${note}`);
    await screenshot('ask');
    await source.click();
    await page.locator('.tab.active', { hasText: 'http.py' }).waitFor({ timeout: 10000 });
    await page.locator('.statusbar-item', { hasText: /Ln 8, Col/ }).waitFor({ timeout: 10000 });
    await screenshot('ask-source-opened');
  });

  await step('show status and reindex', async () => {
    await runCommand('codeloupe: Show Status');
    await quickRows().filter({ hasText: /codeloupe [\d.]+: ready/ }).first().waitFor({ timeout: 15000 });
    await quickRows().filter({ hasText: /shop-workspace: ready/ }).filter({ hasText: /files · \d+ symbols/ })
      .first().waitFor({ timeout: 5000 });
    await screenshot('status');
    await page.keyboard.press('Escape');
    await runCommand('codeloupe: Reindex Workspace');
    await page.locator('.notification-toast', { hasText: /codeloupe: index up to date \(\d+ files, \d+ symbols\)/ })
      .waitFor({ timeout: 60000 });
  });

  // Copilot's agent mode calls the tools through VS Code's language-model API; this VS Code
  // has no Copilot, so the extension's own "Show Agent Tools" lists them as VS Code does
  // (vscode.lm.tools) and invokes one through it (vscode.lm.invokeTool).
  await step('agent tools: listed by VS Code and invoked through it', async () => {
    await runCommand('codeloupe: Show Agent Tools');
    const none = page.locator('.notification-toast', { hasText: 'has no language-model tools API' });
    const callersRow = quickRows().filter({ hasText: 'codeloupe_callers' }).first();
    const shown = await Promise.race([
      none.waitFor({ timeout: 20000 }).then(() => 'none'),
      callersRow.waitFor({ timeout: 20000 }).then(() => 'tools'),
    ]);
    if (shown === 'none') {
      log(`agent tools NOT tested: ${(await none.innerText()).replace(/\s+/g, ' ')}`);
      await screenshot('agent-tools-unavailable');
      return;
    }
    const names = (await quickRows().allInnerTexts()).map((t) => t.split('\n')[0]);
    log(`agent tools listed by VS Code: ${names.join(', ')}`);
    if (names.filter((n) => n.startsWith('codeloupe_')).length !== 7) {
      throw new Error(`expected the 7 codeloupe tools, VS Code lists: ${names.join(', ')}`);
    }
    await screenshot('agent-tools');
    await quickInputBox().fill('codeloupe_callers');
    await callersRow.waitFor();
    await quickInputBox().press('Enter');
    await quickInput().filter({ hasText: 'codeloupe_callers: target' }).waitFor({ timeout: 10000 });
    await quickInputBox().fill('Client.fetch');
    await quickInputBox().press('Enter');
    // VS Code asks the user before a tool runs, with the tool's own confirmation message
    const confirm = page.locator('.monaco-dialog-box', { hasText: 'Finding the callers of Client.fetch' });
    await confirm.waitFor({ timeout: 20000 });
    await screenshot('agent-tools-confirm');
    await confirm.getByRole('button', { name: 'Yes' }).click();
    const result = page.locator('.monaco-editor .view-lines', { hasText: '"qualified_name": "checkout"' }).first();
    await result.waitFor({ timeout: 30000 });
    await screenshot('agent-tools-callers');
  });

  await step('ask with an LLM endpoint streams a cited answer', async () => {
    // The key goes to secret storage; the server gets it in CODELOUPE_LLM_API_KEY.
    await runCommand('codeloupe: Set LLM API Key');
    await quickInputBox().fill('sk-e2e-secret');
    await quickInputBox().press('Enter');
    await page.locator('.notification-toast', { hasText: 'API key saved' }).waitFor({ timeout: 10000 });
    await editUserSettings({ 'codeloupe.llmEndpoint': `http://127.0.0.1:${llmPort}/v1`, 'codeloupe.llmModel': 'fake-coder' });
    await page.locator('.statusbar-item', { hasText: /codeloupe [\d,]+ symbols/ }).waitFor({ timeout: 120000 });
    await runCommand('codeloupe: Ask About Codebase');
    await quickInputBox().fill('How are failed connections retried?');
    await quickInputBox().press('Enter');
    const frame = page.frameLocator('iframe.webview.ready').frameLocator('#active-frame');
    const answer = frame.locator('#answer');
    // The answer streams: sample it until the last piece arrives.
    const seen = new Set();
    const until = Date.now() + 60000;
    while (Date.now() < until) {
      const text = (await answer.innerText().catch(() => '')).trim();
      if (text) seen.add(text);
      if (text.includes('between tries')) break;
      await page.waitForTimeout(100);
    }
    log(`answer states seen while streaming: ${seen.size}`);
    if (![...seen].some((t) => t.includes('between tries'))) throw new Error('the answer never completed');
    if (seen.size < 2) throw new Error('the answer did not stream (one state only)');
    const cite = frame.locator('#answer a[href="codeloupe-source:shop/http.py#L8-L15"]');
    await cite.waitFor({ timeout: 10000 });
    await frame.locator('#footer', { hasText: 'Answered by fake-coder' }).waitFor({ timeout: 10000 });
    await frame.locator('#sources li', { hasText: 'Client.fetch' }).filter({ hasText: 'cited' }).waitFor({ timeout: 10000 });
    const last = llmRequests.at(-1);
    if (!last) throw new Error('the endpoint got no request');
    if (last.authorization !== 'Bearer sk-e2e-secret') throw new Error(`API key not passed: "${last.authorization}"`);
    if (!JSON.stringify(last.request.messages).includes('def fetch')) throw new Error('the prompt lacks the code of Client.fetch');
    await screenshot('ask-answer');
    await cite.click();
    await page.locator('.tab.active', { hasText: 'http.py' }).waitFor({ timeout: 10000 });
    await page.locator('.statusbar-item', { hasText: /Ln 8, Col/ }).waitFor({ timeout: 10000 });
  });

  // `codeloupe mcp` offered to VS Code's MCP support, as the extension's provider defines it
  await step('the MCP server definition is listed and started by VS Code', async () => {
    // the MCP commands live with the AI features this run keeps off until here
    await editUserSettings({ 'chat.disableAIFeatures': false });
    await openQuickInput('>MCP: List Servers');
    const entry = quickRows().filter({ hasText: 'MCP: List Servers' }).first();
    if (!(await entry.waitFor({ timeout: 5000 }).then(() => true, () => false))) {
      log('MCP server definition NOT tested: this VS Code has no "MCP: List Servers" command');
      await page.keyboard.press('Escape');
      return;
    }
    await quickInputBox().press('Enter');
    const ours = quickRows().filter({ hasText: 'codeloupe: shop-workspace' }).first();
    await ours.waitFor({ timeout: 15000 });
    await screenshot('mcp-servers');
    // started by VS Code itself: `python -m codeloupe mcp <folder>` with the extension's Python
    await ours.click();
    const start = quickRows().filter({ hasText: 'Start Server' }).first();
    await start.waitFor({ timeout: 10000 });
    await start.click();
    // VS Code's log of the server: it connects, then lists the server's tools
    await page.locator('.output-view, .panel', { hasText: 'Discovered 7 tools' }).first()
      .waitFor({ timeout: 120000 });
    log('VS Code started `codeloupe mcp` and discovered its 7 tools');
    await screenshot('mcp-server-running');
  });

  // A Python without codeloupe: the extension restarts on the setting change and says
  // exactly how to install it, once, with "Show Logs".
  await step('a Python without codeloupe gets the install command', async () => {
    const bare = path.join(work, 'bare-venv');
    execFileSync(python, ['-m', 'venv', '--without-pip', bare]);
    const barePython = path.join(bare, 'bin', 'python');
    await editUserSettings({ 'codeloupe.python': barePython });
    const toast = page.locator('.notification-toast', { hasText: 'codeloupe is not installed in' });
    await toast.waitFor({ timeout: 30000 });
    const text = (await toast.innerText()).replace(/\s+/g, ' ');
    if (!text.includes(`Install it with: ${barePython} -m pip install codeloupe`)) {
      throw new Error(`no exact install command in: ${text}`);
    }
    await page.locator('.statusbar-item.error-kind', { hasText: 'codeloupe' }).first().waitFor({ timeout: 10000 });
    await screenshot('not-installed');
    await toast.getByRole('button', { name: 'Show Logs' }).click();
    await page.locator('.output-view, .panel', { hasText: 'codeloupe is not installed in' }).first()
      .waitFor({ timeout: 10000 });
    await screenshot('logs');
  });

  exitCode = 0;
  log('all steps passed');
} catch (err) {
  console.error(err);
  exitCode = 1;
} finally {
  await browser?.close().catch(() => undefined);
  stopAll();
  llm.close();
  // Keep the extension's log with the artifacts.
  try {
    const logs = path.join(userData, 'logs');
    for (const file of fs.readdirSync(logs, { recursive: true })) {
      if (String(file).endsWith('codeloupe.log')) {
        fs.copyFileSync(path.join(logs, String(file)), path.join(artifacts, 'codeloupe-output.log'));
      }
    }
  } catch {
    // no logs
  }
  if (exitCode === 0 && !process.env.CODELOUPE_E2E_KEEP) {
    fs.rmSync(work, { recursive: true, force: true });
  } else {
    log(`workspace and user data kept in ${work}`);
  }
  log(`artifacts in ${artifacts}`);
  process.exit(exitCode);
}
