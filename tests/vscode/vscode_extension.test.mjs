// The VS Code extension end to end, in a real VS Code: code-server 4.139.1 (VS Code 1.139) on
// 127.0.0.1 with the extension installed from its .vsix, driven in Debian's Chromium by
// playwright-core. A workspace holds a fixture pair and a corrupt model; VS Code keeps it in Restricted
// Mode (untrusted), where the extension works as anywhere. The tests select the two models in the
// Explorer and run Compare Quantization from the context menu, check both graphs in the webview and
// that clicking a node selects its counterpart, hide and show the tab (selection, overlay, cameras and
// keyboard focus come back), open a model in the custom editor (with a node's detail from the core),
// open the corrupt one, save the JSON and CSV exports, compare from the Command Palette, cancel a
// long load from its notification, and open a model whose external data is a symbolic link (refused);
// the Activations tab runs both models in the extension host; two models that are not one network
// open with the verdict above the graphs.
// Keys are sent only once VS Code's focus has come to rest (workbench_focus.mjs says why).
// Screenshots go to tests/out/vscode/.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { cli, cliCompare, launchBrowser, newPage, pairsDir, root } from '../browser/harness.mjs';
import { installExtension, makeHome, shot, startCodeServer, throttleIfAsked, vsixPath, webviewFrame } from './harness.mjs';
import { acceptFocusedRow, openFromExplorer, pickInQuickPick, quickInputFocused, runCommand, showTab } from './workbench_focus.mjs';

const PAIR = 'torch_eager_ptq_cnn_perchannel';
const reference = cliCompare(path.join(pairsDir, PAIR, 'float.onnx'), path.join(pairsDir, PAIR, 'quant.onnx'));
// A Conv+BatchNormalization fold: two float ops, one quantized op.
const fused = reference.mapping.find((e) => e.kind === 'fused' && e.float_ops.length >= 2 && e.quant_ops.length === 1);

let home, server, browser, page, installLog;

before(async () => {
  home = makeHome();
  mkdirSync(path.join(home.workspace, 'cnn'));
  for (const f of ['float.onnx', 'quant.onnx']) copyFileSync(path.join(pairsDir, PAIR, f), path.join(home.workspace, 'cnn', f));
  // Two initialisations of one architecture: not one network (tests/fixtures/versions).
  mkdirSync(path.join(home.workspace, 'wrong'));
  for (const f of ['a.onnx', 'b.onnx']) copyFileSync(path.join(root, 'tests/fixtures/versions/torch_cnn_reinit', f), path.join(home.workspace, 'wrong', f));
  // One float network and two quantized versions of it (PyTorch eager and FX PTQ): a three-way comparison.
  mkdirSync(path.join(home.workspace, 'versions'));
  // (Named apart from cnn/'s files: the Explorer shows both folders' rows at once.)
  for (const f of ['float.onnx', 'eager_ptq.onnx', 'fx_ptq.onnx']) copyFileSync(path.join(root, 'tests/fixtures/versions/torch_cnn_three_way', f), path.join(home.workspace, 'versions', `net_${f}`));
  // A model cut short: the core's 'truncated'.
  writeFileSync(path.join(home.workspace, 'broken.onnx'), readFileSync(path.join(pairsDir, PAIR, 'float.onnx')).subarray(0, 200));
  // A pair large enough that opening it takes seconds (60,001 QDQ nodes; about 4 s in the extension
  // host): its progress notification is cancelled while the core is still at work.
  const big = spawnSync(existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3',
    [path.join(root, 'tests/browser/make_large_pair.py'), path.join(home.workspace, 'big'), '5000'], { encoding: 'utf8' });
  assert.equal(big.status, 0, big.stderr);
  // A model with its weights in an external-data file (float.weights), twice: beside the model as a
  // regular file, and as a symbolic link to a copy outside the workspace, which must be refused.
  const external = path.join(home.home, 'external');
  const made = spawnSync(existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3',
    [path.join(root, 'tests/browser/make_large_pair.py'), external, '2', '--external'], { encoding: 'utf8' });
  assert.equal(made.status, 0, made.stderr);
  for (const dir of ['regular', 'linked']) {
    mkdirSync(path.join(home.workspace, dir));
    copyFileSync(path.join(external, 'float.onnx'), path.join(home.workspace, dir, `${dir}.onnx`));
  }
  copyFileSync(path.join(external, 'float.weights'), path.join(home.workspace, 'regular/float.weights'));
  symlinkSync(path.join(external, 'float.weights'), path.join(home.workspace, 'linked/float.weights'));
  installLog = installExtension(home, vsixPath());
  server = await startCodeServer(home);
  browser = await launchBrowser();
  page = await newPage(browser.context);
  await throttleIfAsked(page);
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

/**
 * Opens `folder` in the Explorer, selects `files` in order (the first clicked, the others
 * Ctrl-clicked), right-clicks the last and runs Compare Quantization from the context menu (a
 * screenshot of the menu when `menuShot` names one).
 */
async function compareFromExplorer(folder, files, menuShot = null) {
  const last = files[files.length - 1];
  await row(folder).click();
  await row(last).waitFor();
  await row(files[0]).click();
  for (const f of files.slice(1)) await row(f).click({ modifiers: ['Control'] });
  await page.waitForFunction((n) => document.querySelectorAll('.explorer-folders-view .monaco-list-row[aria-selected="true"]').length === n, files.length);
  await row(last).click({ button: 'right' });
  const item = page.locator('.monaco-menu .action-label', { hasText: /^Compare Quantization$/ });
  try {
    await item.waitFor({ timeout: 15000 });
  } finally {
    if (menuShot) await shot(page, menuShot);
  }
  await item.click();
  // A menu opened while the workbench's focus is still moving can swallow the first click (the
  // item shows focused, the menu stays): then the focused item is chosen with Enter.
  const menu = page.locator('.monaco-menu').first();
  if (await menu.isVisible().catch(() => false)) {
    await page.waitForTimeout(500);
    if (await menu.isVisible().catch(() => false)) {
      await item.hover();
      await page.keyboard.press('Enter');
    }
  }
}

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

/**
 * Waits until the extension says it saved `name` (its status bar message comes once
 * workspace.fs.writeFile is done: the file can exist, still empty, before that).
 */
const saidSaved = (name) => page.locator('.statusbar-item', { hasText: `VisualQuant: saved ${name}` }).first().waitFor({ timeout: 30000 });

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
  await compareFromExplorer('cnn', ['float.onnx', 'quant.onnx'], '02-context-menu');
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
  await openFromExplorer(page, row('quant.onnx'));
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
  await openFromExplorer(page, row('broken.onnx'));
  const viewer = await webviewFrame(page, () => document.body.classList.contains('viewer') && document.body.dataset.state === 'error', 120000);
  const error = viewer.locator('#error');
  assert.equal(await error.isVisible(), true);
  const code = await error.getAttribute('data-code');
  assert.ok(['truncated', 'not_onnx'].includes(code), code);
  assert.match(await error.textContent(), new RegExp(`Could not open broken\\.onnx\\. .*\\[${code}\\]`));
  await shot(page, '06-corrupt');
});

test('the comparison keeps its selection when its tab is hidden and shown again', async () => {
  const frame = await showTab(page, page.locator('.tabs-container .tab', { hasText: 'float.onnx ↔ quant.onnx' }), () => document.body.dataset.state === 'ready'
    && !!document.getElementById('graph-float') && document.querySelectorAll('#graph-quant li[aria-selected="true"]').length > 0);
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
  await runCommand(page, 'VisualQuant: Swap Float and Quantized');
  const toast = page.locator('.notifications-toasts .notification-toast', { hasText: 'stays the quantized model' });
  await toast.waitFor({ timeout: 60000 });
  const frame = await webviewFrame(page, () => document.body.dataset.state === 'ready' && !!document.getElementById('graph-float'), 60000);
  assert.equal(await frame.textContent('#name-float'), 'float.onnx');
  assert.equal(await frame.textContent('#name-quant'), 'quant.onnx');
  assert.match(await frame.textContent('#summary'), /given in the other order/);
  await shot(page, '08-swap');
});

test('the Activations tab runs both models in the extension host (onnxruntime-web): the CLI\'s figures, synthetic inputs labelled', async () => {
  const frame = await webviewFrame(page, () => document.body.dataset.state === 'ready' && !!document.getElementById('graph-float'), 60000);
  await frame.click('#tab-activations');
  await frame.waitForFunction(() => /Model inputs: /.test(document.querySelector('[data-field="declared-inputs"]')?.textContent ?? ''));
  await frame.click('#activation-run');
  await frame.waitForFunction(() => ['done', 'error'].includes(document.querySelector('#activation-status')?.dataset.state ?? ''), null, { timeout: 120000 });
  const status = await frame.textContent('#activation-status');
  assert.equal(await frame.$eval('#activation-status', (e) => e.dataset.state), 'done', status);
  assert.match(status, /onnxruntime-web 1\.30\.0 \(wasm, 1 thread\)/);
  const r = spawnSync(cli, ['activations', path.join(home.workspace, 'cnn/float.onnx'), path.join(home.workspace, 'cnn/quant.onnx'), '--engine', 'web', '--tap-budget', '64M', '--json', '-'],
    { encoding: 'utf8', maxBuffer: 1 << 28 });
  assert.equal(r.status, 0, r.stderr);
  const want = JSON.parse(r.stdout);
  const rows = await frame.$$eval('#point-table tbody tr', (trs) => trs.map((tr) => [Number(tr.dataset.point), tr.cells[3].textContent]));
  const worstFirst = want.points.slice().sort((a, b) => a.accumulated.sqnr_db - b.accumulated.sqnr_db || a.point - b.point);
  assert.deepEqual(rows, worstFirst.map((p) => [p.point, p.accumulated.sqnr_db.toFixed(1)]));
  assert.match(await frame.textContent('[data-field="synthetic"]'), /directional only/);
  assert.deepEqual(await violations(frame), []);
  await shot(page, '08b-activations');
});

test('Save the JSON Report… writes where the user chooses (the workspace by default): the CLI\'s report', async () => {
  await runCommand(page, 'VisualQuant: Save the JSON Report…');
  // code-server's save dialog: a path field that starts in the workspace folder.
  const input = await quickInputFocused(page, { value: 'float-compare\\.json$' });
  assert.equal(await input.inputValue(), path.join(home.workspace, 'float-compare.json'));
  await shot(page, '09-save-dialog');
  await page.keyboard.press('Enter');
  const saved = path.join(home.workspace, 'float-compare.json');
  await saidSaved('float-compare.json');
  // The tab was swapped above: the core was given quant.onnx first, which the report says.
  const expected = cliCompare(path.join(home.workspace, 'cnn/quant.onnx'), path.join(home.workspace, 'cnn/float.onnx'));
  // With the activation comparison run above, under `activations`: the CLI's `activations --engine web`.
  const { activations, ...compare } = JSON.parse(readFileSync(saved, 'utf8'));
  assert.deepEqual(compare, expected);
  const r = spawnSync(cli, ['activations', path.join(home.workspace, 'cnn/float.onnx'),
    path.join(home.workspace, 'cnn/quant.onnx'), '--engine', 'web', '--tap-budget', '64M', '--json', '-'], { encoding: 'utf8', maxBuffer: 1 << 28 });
  assert.deepEqual(activations, JSON.parse(r.stdout));
  assert.ok(!existsSync(path.join(home.workspace, 'cnn/float-compare.json')), 'nothing written next to the models');
});

test('Save the CSV Layer Table… writes the layer table into the workspace: every quantized weight, worst first', async () => {
  await runCommand(page, 'VisualQuant: Save the CSV Layer Table…');
  const input = await quickInputFocused(page, { value: 'float-layers\\.csv$' });
  assert.equal(await input.inputValue(), path.join(home.workspace, 'float-layers.csv'));
  await page.keyboard.press('Enter');
  const saved = path.join(home.workspace, 'float-layers.csv');
  await saidSaved('float-layers.csv');
  const lines = readFileSync(saved, 'utf8').trim().split(/\r?\n/);
  assert.match(lines[0], /^Rank,Float node,Quantized node,Op,Codes,Params,SQNR dB,/);
  assert.equal(lines.length, reference.weights.layers.length + 1);
  reference.weights.layers.forEach((layer, i) => {
    const cells = lines[i + 1].split(',');  // the fixture's names hold no comma or quote
    assert.deepEqual([cells[0], cells[1], cells[2], cells[6]],
      [String(layer.rank), layer.float_node, layer.quant_node, layer.error.sqnr_db === null ? '' : String(layer.error.sqnr_db)], lines[i + 1]);
  });
});

test('the Sensitivity tab runs the sweep in the extension host and saves the mixed-precision model through the dialog, into the workspace', async () => {
  const frame = await showTab(page, page.locator('.tabs-container .tab', { hasText: 'float.onnx ↔ quant.onnx' }).first(),
    () => document.body.dataset.state === 'ready' && !!document.getElementById('graph-float'));
  await frame.click('#tab-sensitivity');
  await frame.waitForFunction(() => /seeded synthetic inputs/.test(document.querySelector('[data-field="sensitivity-inputs"]')?.textContent ?? ''));
  await frame.fill('#sensitivity-target', '45');
  await frame.click('#sensitivity-run');
  await frame.waitForFunction(() => ['done', 'error'].includes(document.querySelector('#sensitivity-status')?.dataset.state ?? ''), null, { timeout: 180000 });
  const status = await frame.textContent('#sensitivity-status');
  assert.equal(await frame.$eval('#sensitivity-status', (e) => e.dataset.state), 'done', status);
  const [f, q] = [path.join(home.workspace, 'cnn/float.onnx'), path.join(home.workspace, 'cnn/quant.onnx')];
  const r = spawnSync(cli, ['sensitivity', f, q, '--engine', 'web', '--target-sqnr', '45', '--json', '-'], { encoding: 'utf8', maxBuffer: 1 << 28 });
  assert.equal(r.status, 0, r.stderr);
  const want = JSON.parse(r.stdout);
  const rows = await frame.$$eval('#sensitivity-table tbody tr', (trs) => trs.map((tr) => Number(tr.dataset.entry)));
  assert.deepEqual(rows.slice(0, want.ranking.length), want.ranking);
  assert.match(await frame.textContent('#sensitivity-summary [data-field="synthetic"]'), /directional only/);
  assert.match(await frame.textContent('[data-field="suggestion-verdict"]'), new RegExp(`kept in float: ${want.suggestion.set.join(', ')};`));
  await shot(page, '09b-sensitivity');
  await frame.click('#sensitivity-save-model');
  const input = await quickInputFocused(page, { value: 'quant-mixed\\.onnx$' });
  assert.equal(await input.inputValue(), path.join(home.workspace, 'quant-mixed.onnx'));
  await page.keyboard.press('Enter');
  await saidSaved('quant-mixed.onnx');
  const out = path.join(home.dir ?? path.dirname(home.workspace), 'cli-mixed.onnx');
  const made = spawnSync(cli, ['sensitivity', f, q, '--engine', 'web', '--keep', want.exports.set.join(','), '--measure', 'chosen', '--out', out], { encoding: 'utf8' });
  assert.equal(made.status, 0, made.stderr);
  assert.deepEqual(readFileSync(path.join(home.workspace, 'quant-mixed.onnx')), readFileSync(out));
  assert.ok(!existsSync(path.join(home.workspace, 'cnn/quant-mixed.onnx')), 'nothing written next to the models');
  assert.deepEqual(await violations(frame), []);
});

test('the webview\'s Graphs menu saves the whole graphs as a PNG through the same dialog, into the workspace', async () => {
  const frame = await showTab(page, page.locator('.tabs-container .tab', { hasText: 'float.onnx ↔ quant.onnx' }).first(),
    () => document.body.dataset.state === 'ready' && !!document.getElementById('graph-float'));
  await frame.locator('#export-graphs').click();
  await frame.locator('#export-menu input[value="whole"]').check();
  await frame.locator('#export-png').click();
  const input = await quickInputFocused(page, { value: 'float-graphs\\.png$' });
  assert.equal(await input.inputValue(), path.join(home.workspace, 'float-graphs.png'));
  await page.keyboard.press('Enter');
  await saidSaved('float-graphs.png');
  const png = readFileSync(path.join(home.workspace, 'float-graphs.png'));
  assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'a PNG');
  // The whole graphs: every node of both in one image, taller than the view shows at reading size.
  const viewHeight = await frame.$eval('#graph-float .graph-canvas', (c) => c.height);
  assert.ok(png.readUInt32BE(20) > viewHeight, `${png.readUInt32BE(20)} px tall, the view ${viewHeight}`);
  assert.ok(!existsSync(path.join(home.workspace, 'cnn/float-graphs.png')), 'nothing written next to the models');
});

test('Compare with… from a model\'s viewer: the counterpart comes first in the quick pick', async () => {
  const viewer = await showTab(page, page.locator('.tabs-container .tab', { hasText: /^quant\.onnx$/ }), () => document.body.classList.contains('viewer')
    && document.body.dataset.state === 'ready' && document.getElementById('model-name').textContent === 'quant.onnx');
  await viewer.locator('#compare-with').click();
  await quickInputFocused(page, { title: '^Compare quant\\.onnx with' });
  const first = page.locator('.quick-input-list .monaco-list-row').first();
  assert.match(await first.textContent(), /float\.onnx/);
  await shot(page, '10-compare-with');
  await acceptFocusedRow(page, 'float.onnx');
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
  await runCommand(page, 'Preferences: Toggle between Light/Dark Themes');
  await frame.waitForFunction(() => document.documentElement.dataset.theme === 'dark', null, { timeout: 30000 });
  const after = await theme();
  assert.equal(after.graph, after.editor, 'the graph background is the editor\'s');
  assert.notEqual(after.graph, before.graph);
  await shot(page, '11-dark-theme');
});

/** The titles of the two quick picks the compare commands show (RegExp sources). */
const FIRST_PICK = '^Compare Quantization: a model', SECOND_PICK = '^Compare quant\\.onnx with';

const pairTabs = () => page.locator('.tabs-container .tab', { hasText: 'float.onnx ↔ quant.onnx' }).count();

/** Marks the pages shown now, so that a page found later is a new one (an old tab's frame may be detached any moment). */
const markOldFrames = () => Promise.all(page.frames().map((f) => f.evaluate(() => { window.__vqOld = true; }).catch(() => undefined)));

test('Compare Quantization… from the Command Palette asks for both models and opens the comparison', async () => {
  const before = await pairTabs();
  await markOldFrames();
  await runCommand(page, 'VisualQuant: Compare Quantization…');
  await pickInQuickPick(page, FIRST_PICK, 'cnn/quant.onnx');
  // The second pick offers the likely counterpart first: the float model of the same folder.
  await quickInputFocused(page, { title: SECOND_PICK });
  const first = page.locator('.quick-input-list .monaco-list-row').first();
  assert.match(await first.textContent(), /float\.onnx.*cnn/);
  await shot(page, '12-palette-second-pick');
  await acceptFocusedRow(page, 'cnn/float.onnx');
  const frame = await webviewFrame(page, () => !window.__vqOld && document.body.dataset.state === 'ready' && !!document.getElementById('graph-float')
    && document.querySelectorAll('#graph-float li[data-id]').length > 0, 120000);
  assert.equal(await frame.textContent('#name-float'), 'float.onnx');
  assert.match(await frame.textContent('#summary'), new RegExp(`${reference.summary.entries} matches`));
  assert.equal(await pairTabs(), before + 1);
});

test('cancelling a long load from its notification closes the tab and says so', async () => {
  const before = await pairTabs();
  await runCommand(page, 'VisualQuant: Compare Quantization…');
  await pickInQuickPick(page, FIRST_PICK, 'big/quant.onnx');
  await pickInQuickPick(page, SECOND_PICK, 'big/float.onnx');
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

test('external data that is a symbolic link is refused (unsafe_external_path, as the CLI); a regular file beside the model loads', async () => {
  await row('linked').click();
  await openFromExplorer(page, row('linked.onnx'));
  const refused = await webviewFrame(page, () => document.body.classList.contains('viewer') && document.body.dataset.state === 'error'
    && document.getElementById('model-name').textContent === 'linked.onnx', 120000);
  assert.equal(await refused.getAttribute('#error', 'data-code'), 'unsafe_external_path');
  assert.match(await refused.textContent('#error'), /external data file 'float\.weights' is refused: it is a symbolic link/);
  await shot(page, '15-external-link-refused');
  await row('regular').click();
  await openFromExplorer(page, row('regular.onnx'));
  const viewer = await webviewFrame(page, () => document.body.classList.contains('viewer') && document.body.dataset.state === 'ready'
    && document.getElementById('model-name').textContent === 'regular.onnx', 120000);
  assert.ok(await viewer.$$eval('#graph-model li[data-id]', (lis) => lis.length) > 0);
  assert.deepEqual(await violations(viewer), []);
});

test('two models that are not one network: the webview says so above the graphs, names them A and B, and compares no weights', async () => {
  await compareFromExplorer('wrong', ['a.onnx', 'b.onnx']);
  let wrong;
  try {
    wrong = await webviewFrame(page, () => document.body.dataset.state === 'ready' && document.getElementById('name-float')?.textContent === 'a.onnx', 120000);
  } finally {
    await shot(page, '16-not-the-same-network');
  }
  assert.equal(await wrong.isVisible('#pair-notice'), true);
  assert.equal(await wrong.getAttribute('#pair-notice', 'data-kind'), 'wrong');
  assert.match(await wrong.textContent('#pair-notice'), /^Not the same network: weights disagree in \d+ of \d+ weighted matches/);
  assert.equal(await wrong.textContent('#tag-float'), 'A · float');
  assert.equal(await wrong.textContent('#tag-quant'), 'B · float');
  assert.doesNotMatch(await wrong.textContent('#summary'), /identical/);
  assert.match(await wrong.textContent('#table-count'), /^No weights compared: the two models are not the same network/);
  // The status bar says so too: nothing "damaged" between two different networks.
  await page.locator('.statusbar-item', { hasText: 'weights not compared: not the same network' }).first().waitFor({ timeout: 30000 });
  assert.deepEqual(await violations(wrong), []);
  await shot(page, '16-not-the-same-network');
});

test('three models selected: a three-way comparison, three linked panes and the Versions tab', async () => {
  // Selected with a version first: the core finds the float model; A and B keep the order selected.
  await compareFromExplorer('versions', ['net_eager_ptq.onnx', 'net_float.onnx', 'net_fx_ptq.onnx']);
  let three;
  try {
    three = await webviewFrame(page, () => document.body.dataset.state === 'ready' && document.getElementById('name-version')?.textContent === 'net_fx_ptq.onnx', 120000);
  } finally {
    await shot(page, '17-three-way');
  }
  assert.equal(await three.textContent('#name-float'), 'net_float.onnx');
  assert.equal(await three.textContent('#name-quant'), 'net_eager_ptq.onnx');
  assert.equal(await three.isVisible('#pane-version'), true);
  assert.match(await three.textContent('#pair-notice'), /^Three-way: versions A \(net_eager_ptq\.onnx\) and B \(net_fx_ptq\.onnx\)/);
  await clickNode(three, 'float', '/stem/conv/Conv');
  await three.waitForFunction(() => document.querySelectorAll('#graph-version li[aria-selected="true"]').length > 0);
  assert.deepEqual(await selected(three, 'graph-quant'), ['/stem/conv/Conv']);
  assert.deepEqual(await selected(three, 'graph-version'), ['/conv/Conv']);
  await clickNode(three, 'version', '/conv/Relu');
  await three.waitForFunction(() => [...document.querySelectorAll('#graph-float li[aria-selected="true"]')].some((li) => li.dataset.id === '/stem/relu/Relu'));
  assert.deepEqual(await selected(three, 'graph-quant'), ['/stem/conv/Relu']);
  await three.click('#tab-versions');
  assert.equal(await three.$$eval('#versions-table tbody tr', (r) => r.length), 10);
  assert.match(await three.textContent('#versions-table tbody tr:first-child'), /B's output scale is 0\.00156 vs 0\.00544 in A/);
  assert.deepEqual(await violations(three), []);
  await shot(page, '17-three-way');
});
