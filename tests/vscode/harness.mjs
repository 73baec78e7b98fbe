// What the VS Code end-to-end tests run on: code-server (VS Code in the browser, installed into
// .cache/ by scripts/code-server-setup, run with Node 24) serving on 127.0.0.1 only, with a fresh
// user data folder, extensions folder and workspace in a temporary folder, the extension installed
// from its .vsix; Debian's Chromium driven by playwright-core (tests/browser/harness.mjs); and the
// webviews (nested iframes) found by what their pages hold. The server is started detached and
// stopped by its process group.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { root } from '../browser/harness.mjs';

export const shotsDir = path.join(root, 'tests/out/vscode');

/** Node 24 and code-server's entry script: from the environment, else from what scripts/code-server-setup wrote. */
export function codeServerPaths() {
  const env = { VQ_NODE24: process.env.VQ_NODE24, VQ_CODE_SERVER: process.env.VQ_CODE_SERVER };
  const file = path.join(root, '.cache/code-server.env');
  if ((!env.VQ_NODE24 || !env.VQ_CODE_SERVER) && existsSync(file)) {
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      const m = /^(VQ_NODE24|VQ_CODE_SERVER)=(.*)$/.exec(line);
      if (m && !env[m[1]]) env[m[1]] = m[2];
    }
  }
  if (!env.VQ_NODE24 || !env.VQ_CODE_SERVER) throw new Error('code-server is not installed: run scripts/code-server-setup');
  return { node: env.VQ_NODE24, entry: env.VQ_CODE_SERVER };
}

/** The extension's .vsix, as scripts/build packages it. */
export function vsixPath() {
  const dir = path.join(root, 'build/vscode');
  const vsix = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.vsix')).sort().pop() : undefined;
  if (!vsix) throw new Error('no .vsix in build/vscode: run scripts/build vscode');
  return path.join(dir, vsix);
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/**
 * A temporary home for one code-server: user data (settings that keep VS Code quiet: no welcome page,
 * no tips, no trust prompt, so the workspace stays in Restricted Mode), extensions, and XDG folders.
 */
export function makeHome() {
  const home = mkdtempSync(path.join(tmpdir(), 'vq-code-server-'));
  const dirs = Object.fromEntries(['userData', 'extensions', 'workspace', 'config', 'data'].map((d) => [d, path.join(home, d)]));
  for (const d of Object.values(dirs)) mkdirSync(d, { recursive: true });
  mkdirSync(path.join(dirs.userData, 'User'), { recursive: true });
  writeFileSync(path.join(dirs.userData, 'User/settings.json'), `${JSON.stringify({
    'workbench.startupEditor': 'none',
    'workbench.tips.enabled': false,
    'workbench.enableExperiments': false,
    'workbench.welcomePage.walkthroughs.openOnInstall': false,
    'workbench.secondarySideBar.defaultVisibility': 'hidden',
    'security.workspace.trust.startupPrompt': 'never',
    'security.workspace.trust.banner': 'never',
    'extensions.ignoreRecommendations': true,
    'extensions.autoCheckUpdates': false,
    'extensions.autoUpdate': false,
    'telemetry.telemetryLevel': 'off',
    'update.mode': 'none',
    'chat.disableAIFeatures': true,
    'window.commandCenter': false,
    'workbench.editor.enablePreview': false,
    // A click selects in the Explorer (as it does for a person picking two files); Enter or a double click opens.
    'workbench.list.openMode': 'doubleClick',
  }, null, 2)}\n`);
  return { home, ...dirs, remove: () => rmSync(home, { recursive: true, force: true }) };
}

/** Installs the .vsix into the home's extensions folder with code-server's own installer. */
export function installExtension(home, vsix) {
  const { node, entry } = codeServerPaths();
  const r = spawnSync(node, [entry, '--user-data-dir', home.userData, '--extensions-dir', home.extensions, '--install-extension', vsix],
    { encoding: 'utf8', env: serverEnv(home), timeout: 120000 });
  if (r.status !== 0) throw new Error(`--install-extension failed (${r.status}): ${r.stdout}${r.stderr}`);
  return `${r.stdout}${r.stderr}`;
}

function serverEnv(home) {
  const env = {
    ...process.env, XDG_CONFIG_HOME: home.config, XDG_DATA_HOME: home.data,
    // No extension gallery: VS Code would ask one on the internet; this address refuses at once.
    EXTENSIONS_GALLERY: JSON.stringify({ serviceUrl: 'http://127.0.0.1:9/gallery', itemUrl: 'http://127.0.0.1:9/item' }),
  };
  delete env.VSCODE_IPC_HOOK_CLI;
  return env;
}

/** Starts code-server on 127.0.0.1 (a free port) in its own process group; resolves to { url, log, stop }. */
export async function startCodeServer(home) {
  const { node, entry } = codeServerPaths();
  const port = await freePort();
  const logFile = path.join(home.home, 'code-server.log');
  const child = spawn(node, [entry, '--bind-addr', `127.0.0.1:${port}`, '--auth', 'none', '--disable-telemetry', '--disable-update-check',
    '--user-data-dir', home.userData, '--extensions-dir', home.extensions, '--config', path.join(home.config, 'config.yaml'),
    home.workspace], { detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: serverEnv(home) });
  let log = '';
  const append = (d) => {
    log += d;
    writeFileSync(logFile, log);
  };
  child.stdout.on('data', append);
  child.stderr.on('data', append);
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`code-server did not start in 60 s:\n${log}`)), 60000);
    const check = setInterval(() => {
      if (/HTTP server listening on http:\/\/127\.0\.0\.1:\d+/.test(log)) {
        clearInterval(check);
        clearTimeout(timer);
        resolve();
      }
    }, 100);
    void exited.then(({ code, signal }) => {
      clearInterval(check);
      clearTimeout(timer);
      reject(new Error(`code-server exited (${code ?? signal}):\n${log}`));
    });
  });
  return {
    url: `http://127.0.0.1:${port}/?folder=${encodeURIComponent(home.workspace)}`,
    log: () => log,
    /** Ends the whole process group (the server, its extension host and their children). */
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      try {
        process.kill(-child.pid, 'SIGTERM');
      } catch {
        return;
      }
      const done = await Promise.race([exited, new Promise((r) => setTimeout(() => r(null), 10000))]);
      if (!done) {
        try {
          process.kill(-child.pid, 'SIGKILL');
        } catch {
          // already gone
        }
        await exited;
      }
    },
  };
}

/** The frame of a webview whose page satisfies `predicate` (run in each frame), waiting up to `timeout` ms. */
export async function webviewFrame(page, predicate, timeout = 60000) {
  const until = Date.now() + timeout;
  for (;;) {
    for (const frame of page.frames()) {
      if (frame === page.mainFrame()) continue;
      const ok = await frame.evaluate(predicate).catch(() => false);
      if (ok) return frame;
    }
    if (Date.now() > until) throw new Error(`no webview frame matched ${predicate}`);
    await page.waitForTimeout(250);
  }
}

/**
 * With VQ_VSCODE_CPU_THROTTLE=N, the workbench runs N times slower (Chromium's CPU throttling): VS
 * Code's focus timers then land as late as on a slow or loaded machine, which is where keys sent
 * before the focus settles go astray (workbench_focus.mjs). Off by default.
 */
export async function throttleIfAsked(page) {
  const rate = Number(process.env.VQ_VSCODE_CPU_THROTTLE ?? 0);
  if (rate > 1) await (await page.context().newCDPSession(page)).send('Emulation.setCPUThrottlingRate', { rate });
}

export async function shot(page, name) {
  mkdirSync(shotsDir, { recursive: true });
  await page.screenshot({ path: path.join(shotsDir, `${name}.png`) });
}
