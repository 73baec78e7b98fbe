// What the browser tests share: the static server (web/serve.mjs, on 127.0.0.1, stopped by its own
// pid), Debian's Chromium driven by playwright-core with a fresh profile, a page that records CSP
// violations, dialogs and errors, and screenshots in tests/out/browser/.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import { chromium } from 'playwright-core';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const webDist = process.env.VQ_WEB_DIST ?? path.join(root, 'web/dist');
export const pairsDir = path.join(root, 'tests/fixtures/pairs');
export const cli = path.join(process.env.VQ_NATIVE_BUILD ?? path.join(root, 'build/native'), 'bin/visualquant');
export const shotsDir = path.join(root, 'tests/out/browser');
const chromiumPath = process.env.VQ_CHROMIUM ?? '/usr/bin/chromium';

/**
 * A generated model pair in a new temporary folder (named from `prefix`): tests/browser/`script` run
 * with Debian's Python, given the folder and then `args`. The caller removes the folder.
 */
export function generatePair(script, prefix, ...args) {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  const python = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';
  const r = spawnSync(python, [path.join(root, 'tests/browser', script), dir, ...args.map(String)], { encoding: 'utf8' });
  if (r.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`${script} failed: ${r.stderr}`);
  }
  return dir;
}

/** The CLI's compare report of a pair (the reference the page must agree with). */
export function cliCompare(floatPath, quantPath) {
  const r = spawnSync(cli, ['compare', floatPath, quantPath, '--json', '-'], { encoding: 'utf8', maxBuffer: 1 << 28 });
  if (r.status !== 0) throw new Error(`visualquant compare failed: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

/**
 * Starts web/serve.mjs on a free port with extra mounts ([['/models/', dir]]) and arguments;
 * resolves to { url, printed, stop }: the base URL, the URL the server printed, and a stop that ends
 * the server by its pid.
 */
export function startServer(mounts = [], extraArgs = []) {
  const args = [path.join(root, 'web/serve.mjs'), '--port', '0', '--root', webDist, ...extraArgs];
  for (const [prefix, dir] of mounts) args.push('--mount', `${prefix}=${dir}`);
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let out = '', err = '';
    const timer = setTimeout(() => reject(new Error(`server did not start: ${out}${err}`)), 15000);
    child.stderr.on('data', (d) => { err += d; });
    child.stdout.on('data', (d) => {
      out += d;
      const m = /(http:\/\/127\.0\.0\.1:(\d+)\/\S*)\n/.exec(out);
      if (!m) return;
      clearTimeout(timer);
      resolve({
        url: `http://127.0.0.1:${m[2]}/`,
        printed: m[1],
        stop: () => new Promise((done) => {
          if (child.exitCode !== null) return done();
          child.once('exit', () => done());
          process.kill(child.pid, 'SIGTERM');
        }),
      });
    });
    child.once('exit', (code) => reject(new Error(`server exited (${code}): ${err}`)));
  });
}

/** Chromium with a fresh profile directory; resolves to { context, close }. */
export async function launchBrowser() {
  const profile = mkdtempSync(path.join(tmpdir(), 'vq-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'],
    viewport: { width: 1440, height: 900 },
    acceptDownloads: true,
  });
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/**
 * A new page that records what must never happen: CSP violations, dialogs (alert() from an injected
 * payload), uncaught errors, console errors. `problems()` lists them.
 */
export async function newPage(context) {
  const page = await context.newPage();
  const events = { dialogs: [], errors: [], console: [] };
  await page.addInitScript(() => {
    window.__cspViolations = [];
    document.addEventListener('securitypolicyviolation', (e) => {
      window.__cspViolations.push(`${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`);
    });
  });
  page.on('dialog', (d) => {
    events.dialogs.push(`${d.type()}: ${d.message()}`);
    void d.dismiss();
  });
  page.on('pageerror', (e) => events.errors.push(String(e)));
  page.on('console', (m) => {
    if (m.type() === 'error') events.console.push(m.text());
  });
  page.problems = async () => {
    const csp = await page.evaluate(() => window.__cspViolations ?? []).catch(() => []);
    return { csp, dialogs: events.dialogs, errors: events.errors, console: events.console };
  };
  return page;
}

export async function screenshot(page, name) {
  mkdirSync(shotsDir, { recursive: true });
  await page.screenshot({ path: path.join(shotsDir, `${name}.png`) });
}

/**
 * Waits until both graphs are drawn and their node lists are whole (and, with `analysed`, the weight
 * analysis and lint are in: 'ready', which implies the lists).
 */
export async function waitDrawn(page, analysed = true) {
  await page.waitForFunction((want) => {
    const s = document.body.dataset.state;
    return want ? s === 'ready' : (s === 'drawn' || s === 'ready') && document.body.dataset.listed === 'yes';
  }, analysed, { timeout: 60000 });
}

/**
 * Waits until `test(arg)` holds in the page and its node lists are complete (data-listed). A new
 * layout (a group opened or closed, the raw view) empties the accessible lists and builds them
 * again over several tasks (web/src/ui/node_list.ts); a list read between two of them is partial:
 * a group the test waits to see gone is gone from an empty list too.
 */
export async function waitListed(page, test, arg = null, options = {}) {
  // In three waits, not one expression (the page's CSP refuses a string to evaluate): `test` first
  // holds once the new layout's task has run, and that task also set data-listed 'no'; 'yes' then
  // means the lists are whole, and `test` is asked again of them.
  await page.waitForFunction(test, arg, options);
  await page.waitForFunction(() => document.body.dataset.listed === 'yes', null, options);
  await page.waitForFunction(test, arg, options);
}

/**
 * Clicks a drawn node on its canvas where the page drew it (its data-x/y and the canvas transform),
 * first scrolling the view with the mouse wheel as a person would when the node is out of sight.
 */
export async function clickNode(page, side, id) {
  const where = async () => {
    const at = await nodeOnScreen(page, side, id);
    if (!at) return null;
    const { canvas: r, minimap: m } = at;
    // The minimap covers the bottom-right corner: a node there is not clickable until scrolled away.
    return { x: r.left + at.x, y: r.top + at.y, r, m: m ? { left: m.left - 8, top: m.top - 8 } : null };
  };
  for (let attempt = 0; ; attempt++) {
    const pos = await where();
    if (!pos) throw new Error(`no drawn node ${id} on the ${side} side`);
    const { r } = pos;
    const underMinimap = pos.m && pos.x > pos.m.left && pos.y > pos.m.top;
    const inside = pos.x > r.left + 8 && pos.x < r.right - 8 && pos.y > r.top + 8 && pos.y < r.bottom - 8 && !underMinimap;
    if (inside) return page.mouse.click(pos.x, pos.y);
    if (attempt === 6) throw new Error(`node ${id} stays outside the ${side} view`);
    await page.mouse.move((r.left + r.right) / 2, (r.top + r.bottom) / 2);
    await page.mouse.wheel(pos.x - (r.left + r.right) / 2, pos.y - (r.top + r.bottom) / 2);
    await page.waitForFunction(() => new Promise((done) => requestAnimationFrame(() => done(true))));
  }
}

/** The node ids selected on one side, as the node list's aria-selected says. */
export function selectedIds(page, side) {
  return page.evaluate((side) => [...document.querySelectorAll(`#graph-${side} li[aria-selected="true"]`)].map((li) => li.dataset.id).sort(), side);
}

/** The page URL's query that opens a fixture pair (served under /models/). */
export const pairUrl = (pair) => `?float=models/${pair}/float.onnx&quant=models/${pair}/quant.onnx`;

/** Fails on any CSP violation, dialog, uncaught error or console error the page reported. */
export async function assertClean(page) {
  const p = await page.problems();
  assert.deepEqual(p, { csp: [], dialogs: [], errors: [], console: [] });
}

/**
 * Where a drawn node's centre is, from its list item's data-x/y and the canvas transform: x and y in
 * the canvas's CSS pixels, with the canvas's and the minimap's page boxes; null for no such node.
 */
function nodeOnScreen(page, side, id) {
  return page.evaluate(({ side, id }) => {
    const host = document.getElementById(`graph-${side}`);
    const item = [...host.querySelectorAll('li[data-id]')].find((li) => li.dataset.id === id);
    if (!item) return null;
    const canvas = host.querySelector('.graph-canvas');
    const [scale, tx, ty] = canvas.dataset.transform.split(' ').map(Number);
    const box = (e) => { const r = e.getBoundingClientRect(); return { left: r.left, top: r.top, right: r.right, bottom: r.bottom }; };
    const minimap = host.querySelector('.minimap:not([hidden])');
    return { x: tx + Number(item.dataset.x) * scale, y: ty + Number(item.dataset.y) * scale, canvas: box(canvas), minimap: minimap ? box(minimap) : null };
  }, { side, id });
}

/** Whether a drawn node's centre is inside its view. */
export async function nodeInView(page, side, id) {
  const at = await nodeOnScreen(page, side, id);
  if (!at) return false;
  const { x, y, canvas: r } = at;
  return x >= 0 && x <= r.right - r.left && y >= 0 && y <= r.bottom - r.top;
}

/** Picks a theme with the page's Theme button (which cycles auto, light, dark), as a user does. */
export async function setTheme(page, theme) {
  for (let i = 0; i < 3 && (await page.textContent('#theme')) !== `Theme: ${theme}`; i++) await page.click('#theme');
  assert.equal(await page.textContent('#theme'), `Theme: ${theme}`);
  await page.waitForFunction(() => new Promise((done) => requestAnimationFrame(() => done(true))));
}

/**
 * For a test file: a static server with `mounts` (the fixture pairs under /models/ by default) and
 * a browser, started before the file's tests and stopped after them. Returns { server, browser },
 * filled in when the tests run.
 */
export function useBrowser(mounts = [['/models/', pairsDir]]) {
  const env = { server: null, browser: null };
  before(async () => {
    env.server = await startServer(mounts);
    env.browser = await launchBrowser();
  });
  after(async () => {
    await env.browser?.close();
    await env.server?.stop();
  });
  return env;
}

/**
 * useBrowser over a folder made for the tests (a generated pair): `make()` makes it and returns its
 * path, served at `mount`; removed after the tests. The returned { server, browser, dir } is filled
 * in when the tests run.
 */
export function useBrowserOnFolder(mount, make) {
  const env = { server: null, browser: null, dir: null };
  before(async () => {
    env.dir = make();
    env.server = await startServer([[mount, env.dir]]);
    env.browser = await launchBrowser();
  });
  after(async () => {
    await env.browser?.close();
    await env.server?.stop();
    if (env.dir) rmSync(env.dir, { recursive: true, force: true });
  });
  return env;
}

/** A new page (optionally of `viewport` size) with a fixture pair open, drawn and analysed. */
export async function openFixturePair(env, pair, viewport = null) {
  const page = await newPage(env.browser.context);
  if (viewport) await page.setViewportSize(viewport);
  await page.goto(env.server.url + pairUrl(pair));
  await waitDrawn(page);
  return page;
}

/** Pans one view with wheel events for `frames` frames; returns each drawn frame's drawing time (ms), the
 *  seconds it all took and how many nodes the last frame drew (the large-pair test, bench/page_bench.mjs). */
export function pan(page, side, frames, dy) {
  return page.evaluate(async ({ side, frames, dy }) => {
    const canvas = document.querySelector(`#graph-${side} .graph-canvas`);
    const times = [];
    const started = performance.now();
    for (let i = 0; i < frames; i++) {
      canvas.dispatchEvent(new WheelEvent('wheel', { deltaY: dy, clientX: 100, clientY: 100, bubbles: true, cancelable: true }));
      const before = canvas.dataset.frames;
      await new Promise((r) => requestAnimationFrame(r));  // the view's own frame runs first
      if (canvas.dataset.frames !== before) times.push(Number(canvas.dataset.frameMs));
    }
    return { times, seconds: (performance.now() - started) / 1000, drawnNodes: Number(canvas.dataset.drawnNodes) };
  }, { side, frames, dy });
}

export const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * Exports both graphs through the toolbar's Graphs menu, as a user does: `format` png, svg or html,
 * of `scope` (view, whole or selection); resolves to the download.
 */
export async function exportGraphs(page, format, scope = 'view') {
  await page.click('#export-graphs');
  await page.check(`#export-menu input[value="${scope}"]`);
  const [download] = await Promise.all([page.waitForEvent('download'), page.click(`#export-${format}`)]);
  return download;
}

/** Selects a float node through Find a node, as a user does: its full name typed, Enter. */
export async function findNode(page, id) {
  await page.fill('#search', id);
  await page.waitForSelector('#search-results li');
  await page.press('#search', 'Enter');
  await page.waitForFunction((id) => JSON.parse(document.getElementById('selection-status').dataset.float || '[]').includes(id), id);
}
