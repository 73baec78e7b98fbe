// The VS Code extension end to end, in a real VS Code: code-server 4.139.1 (VS Code 1.139) on
// 127.0.0.1 with the extension installed from its .vsix, driven in Debian's Chromium by
// playwright-core. A workspace holds a fixture pair and a corrupt model; VS Code keeps it in Restricted
// Mode (untrusted), where the extension works as anywhere. The tests select the two models in the
// Explorer and run Compare Quantization from the context menu, check both graphs in the webview and
// that clicking a node selects its counterpart, hide and show the tab (selection, overlay, cameras and
// keyboard focus come back), open a model in the custom editor (with a node's detail from the core),
// open the corrupt one, save the JSON and CSV exports, compare from the Command Palette, and cancel a
// long load from its notification. Screenshots go to tests/out/vscode/.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { cli, cliCompare, launchBrowser, newPage, pairsDir, root } from '../browser/harness.mjs';
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
  // A pair large enough that opening it takes seconds (60,001 QDQ nodes; about 4 s in the extension
  // host): its progress notification is cancelled while the core is still at work.
  const big = spawnSync(existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3',
    [path.join(root, 'tests/browser/make_large_pair.py'), path.join(home.workspace, 'big'), '5000'], { encoding: 'utf8' });
  assert.equal(big.status, 0, big.stderr);
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
  // Another overlay, to be found again when the tab comes back.
  await compare.selectOption('#overlay', 'precision');
  await compare.waitForFunction(() => document.querySelector('#legend [data-key]') && /precision|int8|float/i.test(document.getElementById('legend').textContent));
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
  const target = reference.logical_graphs.quant.find((op) => op.op_type === 'Conv').op;  // it has attributes
  const pos = await viewer.evaluate((id) => {
    const item = [...document.querySelectorAll('#graph-model li[data-id]')].find((li) => li.dataset.id === id);
    const [scale, tx, ty] = document.querySelector('#graph-model .graph-canvas').dataset.transform.split(' ').map(Number);
    return { x: tx + Number(item.dataset.x) * scale, y: ty + Number(item.dataset.y) * scale };
  }, target);
  await viewer.locator('#graph-model .graph-canvas').click({ position: pos });
  await viewer.waitForFunction((id) => document.getElementById('selection-status').dataset.id === id, target);
  assert.match(await viewer.textContent('#node-detail'), /Inputs from/);
  // The node's own detail, asked of the core (`node`): what `visualquant inspect --node` reports.
  const box = `#node-detail .node-detail[data-node="${target}"][data-loaded="true"]`;
  await viewer.waitForSelector(box, { timeout: 60000 });
  const want = JSON.parse(spawnSync(cli, ['inspect', path.join(home.workspace, 'cnn/quant.onnx'), '--node', target, '--json'], { encoding: 'utf8' }).stdout);
  const names = await viewer.$$eval(`${box} [data-field="inputs"] tbody tr th`, (ths) => ths.map((th) => th.textContent));
  assert.deepEqual(names, want.inputs.map((i) => i.name));
  const attributes = await viewer.$$eval(`${box} [data-field="attributes"] tbody tr`, (trs) => trs.map((tr) => tr.dataset.key));
  assert.deepEqual(attributes, want.attributes.map((a) => a.name));
  assert.ok(attributes.length > 0, `${target} has attributes`);
  const shapes = await viewer.$$eval(`${box} [data-field="outputs"] tbody td:nth-child(2)`, (tds) => tds.map((td) => td.textContent));
  assert.deepEqual(shapes, want.outputs.map((o) => `${o.element_type} [${o.shape.join(' × ')}]`));
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
  assert.equal(await frame.inputValue('#overlay'), 'precision');
  // Keyboard focus: the tab shown again, its graph has the focus without a click, so keys reach the page.
  await frame.waitForFunction(() => document.hasFocus() && document.activeElement === document.querySelector('#graph-float canvas'), null, { timeout: 15000 });
  await shot(page, '07-shown-again');
  // Tab moves on through the page (it is not kept by the canvas); Escape in the search field gives focus back to the graph.
  await page.keyboard.press('Tab');
  assert.notEqual(await frame.evaluate(() => document.activeElement?.tagName), 'BODY');
  assert.equal(await frame.evaluate(() => document.activeElement === document.querySelector('#graph-float canvas')), false);
  await frame.focus('#search');
  await page.keyboard.type('Conv');
  await frame.waitForSelector('#search-results:not([hidden])');
  await page.keyboard.press('Escape');
  await frame.waitForFunction(() => document.getElementById('search-results').hidden
    && document.activeElement === document.querySelector('#graph-float canvas'));
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

test('Save the CSV Layer Table… writes the layer table into the workspace: every quantized weight, worst first', async () => {
  await runCommand('VisualQuant: Save the CSV Layer Table…');
  await page.waitForFunction(() => /float-layers\.csv$/.test(document.querySelector('.quick-input-widget input')?.value ?? ''));
  assert.equal(await page.locator('.quick-input-widget input').inputValue(), path.join(home.workspace, 'float-layers.csv'));
  await page.keyboard.press('Enter');
  const saved = path.join(home.workspace, 'float-layers.csv');
  for (let i = 0; i < 100 && !existsSync(saved); i++) await page.waitForTimeout(100);
  const lines = readFileSync(saved, 'utf8').trim().split(/\r?\n/);
  assert.match(lines[0], /^Rank,Float node,Quantized node,Op,Codes,Params,SQNR dB,/);
  assert.equal(lines.length, reference.weights.layers.length + 1);
  reference.weights.layers.forEach((layer, i) => {
    const cells = lines[i + 1].split(',');  // the fixture's names hold no comma or quote
    assert.deepEqual([cells[0], cells[1], cells[2], cells[6]],
      [String(layer.rank), layer.float_node, layer.quant_node, layer.error.sqnr_db === null ? '' : String(layer.error.sqnr_db)], lines[i + 1]);
  });
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

/** Picks a model in the quick pick the compare commands show, by its path in the workspace. */
async function pickInQuickPick(relative) {
  const input = page.locator('.quick-input-widget input');
  await input.waitFor();
  await input.fill(relative);
  await page.locator('.quick-input-list .monaco-list-row', { hasText: relative }).first().waitFor({ timeout: 15000 });
  await page.keyboard.press('Enter');
}

const pairTabs = () => page.locator('.tabs-container .tab', { hasText: 'float.onnx ↔ quant.onnx' }).count();

/** Marks the pages shown now, so that a page found later is a new one (an old tab's frame may be detached any moment). */
const markOldFrames = () => Promise.all(page.frames().map((f) => f.evaluate(() => { window.__vqOld = true; }).catch(() => undefined)));

test('Compare Quantization… from the Command Palette asks for both models and opens the comparison', async () => {
  const before = await pairTabs();
  await markOldFrames();
  await runCommand('VisualQuant: Compare Quantization…');
  await pickInQuickPick('cnn/quant.onnx');
  // The second pick offers the likely counterpart first: the float model of the same folder.
  const first = page.locator('.quick-input-list .monaco-list-row').first();
  await page.waitForFunction(() => /Compare quant\.onnx with/.test(document.querySelector('.quick-input-widget .quick-input-title')?.textContent ?? ''));
  assert.match(await first.textContent(), /float\.onnx.*cnn/);
  await shot(page, '12-palette-second-pick');
  await page.keyboard.press('Enter');
  const frame = await webviewFrame(page, () => !window.__vqOld && document.body.dataset.state === 'ready' && !!document.getElementById('graph-float')
    && document.querySelectorAll('#graph-float li[data-id]').length > 0, 120000);
  assert.equal(await frame.textContent('#name-float'), 'float.onnx');
  assert.match(await frame.textContent('#summary'), new RegExp(`${reference.summary.entries} matches`));
  assert.equal(await pairTabs(), before + 1);
});

test('cancelling a long load from its notification closes the tab and says so', async () => {
  const before = await pairTabs();
  await runCommand('VisualQuant: Compare Quantization…');
  await pickInQuickPick('big/quant.onnx');
  await page.waitForFunction(() => /Compare quant\.onnx with/.test(document.querySelector('.quick-input-widget .quick-input-title')?.textContent ?? ''));
  await pickInQuickPick('big/float.onnx');
  const progress = page.locator('.notifications-toasts .notification-toast', { hasText: 'Opening float.onnx and quant.onnx' });
  await progress.waitFor({ timeout: 60000 });
  await shot(page, '13-load-progress');
  await progress.locator('.monaco-button', { hasText: 'Cancel' }).click();
  await page.locator('.notifications-toasts .notification-toast', { hasText: 'was cancelled; nothing is open' }).waitFor({ timeout: 30000 });
  await shot(page, '14-load-cancelled');
  // No tab is left behind for the cancelled pair (and none shows an error).
  await page.waitForFunction((n) => document.querySelectorAll('.tabs-container .tab').length > 0
    && [...document.querySelectorAll('.tabs-container .tab')].filter((t) => t.textContent.includes('float.onnx ↔ quant.onnx')).length === n, before);
  for (const frame of page.frames()) {
    const state = await frame.evaluate(() => (document.getElementById('graph-float') ? document.body.dataset.state : null)).catch(() => null);
    assert.notEqual(state, 'error', 'a comparison page in error');
  }
});
