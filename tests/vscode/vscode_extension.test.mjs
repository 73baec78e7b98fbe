// The VS Code extension end to end, in a real VS Code: code-server 4.139.1 (VS Code 1.139) on
// 127.0.0.1 with the extension installed from its .vsix, driven in Debian's Chromium by
// playwright-core. A workspace holds a fixture pair and a corrupt model; VS Code keeps it in Restricted
// Mode (untrusted), where the extension works as anywhere. The tests select the two models in the
// Explorer and run Compare Quantization from the context menu, check both graphs in the webview and
// that clicking a node selects its counterpart, hide and show the tab, open a model in the custom
// editor, and open the corrupt one. Screenshots go to tests/out/vscode/.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { cliCompare, launchBrowser, newPage, pairsDir } from '../browser/harness.mjs';
import { installExtension, makeHome, shot, startCodeServer, vsixPath, webviewFrame } from './harness.mjs';

const PAIR = 'torch_eager_ptq_cnn_perchannel';
const reference = cliCompare(path.join(pairsDir, PAIR, 'float.onnx'), path.join(pairsDir, PAIR, 'quant.onnx'));
// A Conv+BatchNormalization fold: two float ops, one quantized op.
const fused = reference.mapping.find((e) => e.kind === 'fused' && e.float_ops.length >= 2 && e.quant_ops.length === 1);

let home, server, browser, page, installLog;

before(async () => {
  home = makeHome();
  mkdirSync(path.join(home.workspace, 'cnn'));
  for (const f of ['float.onnx', 'quant.onnx']) copyFileSync(path.join(pairsDir, PAIR, f), path.join(home.workspace, 'cnn', f));
  // A model cut short: the core's 'truncated'.
  writeFileSync(path.join(home.workspace, 'broken.onnx'), readFileSync(path.join(pairsDir, PAIR, 'float.onnx')).subarray(0, 200));
  installLog = installExtension(home, vsixPath());
  server = await startCodeServer(home);
  browser = await launchBrowser();
  page = await newPage(browser.context);
  await page.goto(server.url);
  await page.locator('.explorer-folders-view .monaco-list-row').first().waitFor({ timeout: 90000 });
});

after(async () => {
  await browser?.close();
  await server?.stop();
  if (server) writeFileSync(path.join(home.home, 'code-server.log'), server.log());
  home?.remove();
});

const row = (name) => page.locator('.explorer-folders-view .monaco-list-row', { has: page.locator('.label-name', { hasText: new RegExp(`^${name.replace('.', '\\.')}$`) }) });

/** CSP violations recorded in a frame (tests/browser/harness.mjs's init script runs in every frame). */
const violations = (frame) => frame.evaluate(() => window.__cspViolations ?? []);

/** Clicks a drawn node on a webview's canvas, where the page says it drew it. */
async function clickNode(frame, side, id) {
  const pos = await frame.evaluate(({ side, id }) => {
    const host = document.getElementById(`graph-${side}`);
    const item = [...host.querySelectorAll('li[data-id]')].find((li) => li.dataset.id === id);
    if (!item) return null;
    const [scale, tx, ty] = host.querySelector('.graph-canvas').dataset.transform.split(' ').map(Number);
    return { x: tx + Number(item.dataset.x) * scale, y: ty + Number(item.dataset.y) * scale };
  }, { side, id });
  assert.ok(pos, `node ${id} drawn on the ${side} side`);
  await frame.locator(`#graph-${side} .graph-canvas`).click({ position: pos });
}

/** Runs a command from the Command Palette (F1), the workbench focused first. */
async function runCommand(title) {
  // The palette can close again while the workbench moves focus as it opens (seen on a fresh CI
  // machine: its input went inert, then hidden): it is opened again, at most three times.
  for (let attempt = 1; ; ++attempt) {
    await page.locator('.tabs-container .tab.active').click();
    await page.keyboard.press('F1');
    const input = page.locator('.quick-input-widget input');
    try {
      await input.waitFor();
      await input.fill(`>${title}`, { timeout: 5000 });
      await page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first().waitFor({ timeout: 15000 });
      break;
    } catch (e) {
      if (attempt === 3) throw e;
      await page.keyboard.press('Escape');
    }
  }
  await page.keyboard.press('Enter');
}

const selected = (frame, host) => frame.evaluate((host) => [...document.querySelectorAll(`#${host} li[aria-selected="true"]`)].map((li) => li.dataset.id).sort(), host);

test('VS Code serves on 127.0.0.1 with the extension installed from its .vsix', async () => {
  assert.match(installLog, /visualquant/i);
  assert.ok(readdirSync(home.extensions).some((d) => d.startsWith('visualquant.visualquant-')), readdirSync(home.extensions).join(', '));
  assert.match(server.log(), /HTTP server listening on http:\/\/127\.0\.0\.1:\d+/);
  await shot(page, '01-workbench');
});

let compare, lastSelection, lastCameras;
const cameras = (frame) => frame.evaluate(() => ['float', 'quant'].map((s) => document.querySelector(`#graph-${s} .graph-canvas`).dataset.transform));

test('Explorer: two .onnx files selected, right-click, Compare Quantization opens both graphs', async () => {
  await row('cnn').click();
  await row('quant.onnx').waitFor();
  await row('float.onnx').click();
  await row('quant.onnx').click({ modifiers: ['Control'] });
  await page.waitForFunction(() => document.querySelectorAll('.explorer-folders-view .monaco-list-row[aria-selected="true"]').length === 2);
  await row('quant.onnx').click({ button: 'right' });
  const item = page.locator('.monaco-menu .action-label', { hasText: /^Compare Quantization$/ });
  try {
    await item.waitFor({ timeout: 15000 });
  } finally {
    await shot(page, '02-context-menu');
  }
  await item.click();
  compare = await webviewFrame(page, () => document.body.dataset.state === 'ready' && !!document.getElementById('graph-float'), 120000);
  for (const side of ['float', 'quant']) {
    const ids = await compare.$$eval(`#graph-${side} li[data-id]`, (lis) => lis.map((li) => li.dataset.id));
    for (const op of reference.logical_graphs[side]) assert.ok(ids.includes(op.op), `${side}: ${op.op} drawn`);
    assert.equal(await compare.textContent(`#name-${side}`), reference[side].file === 'float.onnx' ? 'float.onnx' : reference[side].file);
  }
  assert.match(await compare.textContent('#summary'), new RegExp(`${reference.summary.entries} matches`));
  const tab = page.locator('.tabs-container .tab', { hasText: 'float.onnx ↔ quant.onnx' });
  await tab.waitFor();
  assert.deepEqual(await violations(compare), []);
  await shot(page, '03-compare');
});

test('clicking a node selects its counterparts on the other side (a fused Conv+BatchNormalization)', async () => {
  await compare.locator('#zoom-fit').click();
  await clickNode(compare, 'float', fused.float_ops[0]);
  await compare.waitForFunction(() => document.querySelectorAll('#graph-quant li[aria-selected="true"]').length > 0);
  const quantIds = new Set(await selected(compare, 'graph-quant'));
  for (const id of fused.quant_ops) assert.ok(quantIds.has(id), `${id} selected on the quantized side`);
  const floatIds = new Set(await selected(compare, 'graph-float'));
  for (const id of fused.float_ops) assert.ok(floatIds.has(id), `${id} selected on the float side`);
  assert.match(await compare.textContent('#detail'), /fused/);
  await shot(page, '04-selected');
  // And the other way: the quantized op selects both float ops.
  await clickNode(compare, 'quant', fused.quant_ops[0]);
  await compare.waitForFunction((id) => JSON.parse(document.getElementById('selection-status').dataset.quant || '[]').includes(id), fused.quant_ops[0]);
  const back = new Set(await selected(compare, 'graph-float'));
  for (const id of fused.float_ops) assert.ok(back.has(id), `${id} selected back on the float side`);
  lastSelection = { float: await selected(compare, 'graph-float'), quant: await selected(compare, 'graph-quant') };
  lastCameras = await cameras(compare);
});

test('a model opens in the custom editor: its graph, node details and quantization summary', async () => {
  await row('quant.onnx').click();
  await page.keyboard.press('Enter');
  const viewer = await webviewFrame(page, () => document.body.classList.contains('viewer') && document.body.dataset.state === 'ready'
    && document.getElementById('model-name').textContent === 'quant.onnx', 120000);
  const ids = await viewer.$$eval('#graph-model li[data-id]', (lis) => lis.map((li) => li.dataset.id));
  for (const op of reference.logical_graphs.quant) assert.ok(ids.includes(op.op), `${op.op} drawn`);
  assert.match(await viewer.textContent('#model-summary'), /Quantization/);
  assert.match(await viewer.textContent('#model-summary'), /qdq/);
  const target = reference.logical_graphs.quant[1].op;
  const pos = await viewer.evaluate((id) => {
    const item = [...document.querySelectorAll('#graph-model li[data-id]')].find((li) => li.dataset.id === id);
    const [scale, tx, ty] = document.querySelector('#graph-model .graph-canvas').dataset.transform.split(' ').map(Number);
    return { x: tx + Number(item.dataset.x) * scale, y: ty + Number(item.dataset.y) * scale };
  }, target);
  await viewer.locator('#graph-model .graph-canvas').click({ position: pos });
  await viewer.waitForFunction((id) => document.getElementById('selection-status').dataset.id === id, target);
  assert.match(await viewer.textContent('#node-detail'), /Inputs from/);
  assert.deepEqual(await violations(viewer), []);
  await shot(page, '05-viewer');
});

test('a corrupt .onnx shows the core\'s error in the tab, not a blank tab', async () => {
  await row('broken.onnx').click();
  await page.keyboard.press('Enter');
  const viewer = await webviewFrame(page, () => document.body.classList.contains('viewer') && document.body.dataset.state === 'error', 120000);
  const error = viewer.locator('#error');
  assert.equal(await error.isVisible(), true);
  const code = await error.getAttribute('data-code');
  assert.ok(['truncated', 'not_onnx'].includes(code), code);
  assert.match(await error.textContent(), new RegExp(`Could not open broken\\.onnx\\. .*\\[${code}\\]`));
  await shot(page, '06-corrupt');
});

test('the comparison keeps its selection when its tab is hidden and shown again', async () => {
  await page.locator('.tabs-container .tab', { hasText: 'float.onnx ↔ quant.onnx' }).click();
  const frame = await webviewFrame(page, () => document.body.dataset.state === 'ready' && !!document.getElementById('graph-float')
    && document.querySelectorAll('#graph-quant li[aria-selected="true"]').length > 0, 60000);
  assert.deepEqual({ float: await selected(frame, 'graph-float'), quant: await selected(frame, 'graph-quant') }, lastSelection);
  // The same view: both cameras as they were (setState kept them while the tab was hidden).
  await frame.waitForFunction(() => document.querySelector('#graph-float .graph-canvas').dataset.transform);
  assert.deepEqual(await cameras(frame), lastCameras);
  await shot(page, '07-shown-again');
});

test('Swap: the core keeps the quantized model by its content, and the user is told', async () => {
  await runCommand('VisualQuant: Swap Float and Quantized');
  const toast = page.locator('.notifications-toasts .notification-toast', { hasText: 'stays the quantized model' });
  await toast.waitFor({ timeout: 60000 });
  const frame = await webviewFrame(page, () => document.body.dataset.state === 'ready' && !!document.getElementById('graph-float'), 60000);
  assert.equal(await frame.textContent('#name-float'), 'float.onnx');
  assert.equal(await frame.textContent('#name-quant'), 'quant.onnx');
  assert.match(await frame.textContent('#summary'), /given in the other order/);
  await shot(page, '08-swap');
});

test('Save the JSON Report… writes where the user chooses (the workspace by default): the CLI\'s report', async () => {
  await runCommand('VisualQuant: Save the JSON Report…');
  // code-server's save dialog: a path field that starts in the workspace folder.
  const input = page.locator('.quick-input-widget input');
  await page.waitForFunction(() => /float-compare\.json$/.test(document.querySelector('.quick-input-widget input')?.value ?? ''));
  assert.equal(await input.inputValue(), path.join(home.workspace, 'float-compare.json'));
  await shot(page, '09-save-dialog');
  await page.keyboard.press('Enter');
  const saved = path.join(home.workspace, 'float-compare.json');
  for (let i = 0; i < 100 && !existsSync(saved); i++) await page.waitForTimeout(100);
  // The tab was swapped above: the core was given quant.onnx first, which the report says.
  const cli = cliCompare(path.join(home.workspace, 'cnn/quant.onnx'), path.join(home.workspace, 'cnn/float.onnx'));
  assert.deepEqual(JSON.parse(readFileSync(saved, 'utf8')), cli);
  assert.ok(!existsSync(path.join(home.workspace, 'cnn/float-compare.json')), 'nothing written next to the models');
});

test('Compare with… from a model\'s viewer: the counterpart comes first in the quick pick', async () => {
  await page.locator('.tabs-container .tab', { hasText: /^quant\.onnx$/ }).click();
  const viewer = await webviewFrame(page, () => document.body.classList.contains('viewer') && document.body.dataset.state === 'ready'
    && document.getElementById('model-name').textContent === 'quant.onnx', 60000);
  await viewer.locator('#compare-with').click();
  const first = page.locator('.quick-input-list .monaco-list-row').first();
  await first.waitFor();
  assert.match(await first.textContent(), /float\.onnx/);
  await shot(page, '10-compare-with');
  await page.keyboard.press('Enter');
  await webviewFrame(page, () => document.body.dataset.state === 'ready' && !!document.getElementById('graph-float'), 120000);
  assert.equal(await page.locator('.tabs-container .tab', { hasText: 'float.onnx ↔ quant.onnx' }).count(), 2);
});

test('the comparison follows the editor\'s theme: a dark theme repaints the page and its graphs', async () => {
  const frame = await webviewFrame(page, () => document.body.dataset.state === 'ready' && !!document.getElementById('graph-float'), 60000);
  const theme = () => frame.evaluate(() => ({
    kind: document.documentElement.dataset.theme,
    graph: getComputedStyle(document.querySelector('#graph-float .graph-canvas')).getPropertyValue('--graph-bg').trim(),
    editor: getComputedStyle(document.documentElement).getPropertyValue('--vscode-editor-background').trim(),
  }));
  const before = await theme();
  assert.equal(before.kind, 'light');
  await runCommand('Preferences: Toggle between Light/Dark Themes');
  await frame.waitForFunction(() => document.documentElement.dataset.theme === 'dark', null, { timeout: 30000 });
  const after = await theme();
  assert.equal(after.graph, after.editor, 'the graph background is the editor\'s');
  assert.notEqual(after.graph, before.graph);
  await shot(page, '11-dark-theme');
});
