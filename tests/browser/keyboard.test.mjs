// Keyboard navigation of the web page in Chromium: n / p through the mismatches, w / W through the
// layer table's order, arrow keys along edges, / to search, f to fit, Esc to clear, ? for the key
// help, focus rings, and no shortcut while typing. Each selection made by a key is linked (both
// sides) and scrolled into view on both sides.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import {
  assertClean, clickNode, cliCompare, nodeInView, openFixturePair, pairsDir, screenshot, selectedIds, setTheme, useBrowser,
} from './harness.mjs';

const PAIR = 'torch_eager_ptq_cnn_perchannel';
const reference = cliCompare(path.join(pairsDir, PAIR, 'float.onnx'), path.join(pairsDir, PAIR, 'quant.onnx'));
const env = useBrowser();

const openPair = () => openFixturePair(env, PAIR);

const isMismatch = (e) => !['identical', 'renamed'].includes(e.kind) || e.confidence < 0.5;

/** The mapping entry that the page has selected (all of its ops selected on both sides). */
async function selectedEntry(page) {
  const f = await selectedIds(page, 'float'), q = await selectedIds(page, 'quant');
  const at = reference.mapping.findIndex((e) => e.float_ops.length + e.quant_ops.length > 0 &&
    e.float_ops.every((id) => f.includes(id)) && e.quant_ops.every((id) => q.includes(id)) &&
    f.length + q.length > 0 && (e.float_ops.some((id) => f.includes(id)) || e.quant_ops.some((id) => q.includes(id))));
  return at < 0 ? null : at;
}

async function assertSelectionInView(page, entry) {
  const e = reference.mapping[entry];
  for (const [side, ids] of [['float', e.float_ops], ['quant', e.quant_ops]]) {
    for (const id of ids) assert.ok(await nodeInView(page, side, id), `${side} ${id} scrolled into view`);
  }
}

test('n / p step through the mismatches top to bottom, selected on both sides and scrolled into view', async () => {
  const page = await openPair();
  const drawn = new Set(await page.$$eval('#graph-float li[data-id], #graph-quant li[data-id]', (lis) => lis.map((li) => li.dataset.id)));
  const expected = reference.mapping.map((e, i) => [e, i])
    .filter(([e]) => isMismatch(e) && [...e.float_ops, ...e.quant_ops].some((id) => drawn.has(id))).map(([, i]) => i);
  assert.ok(expected.length >= 2, 'the pair has mismatches (BatchNormalization folds)');
  // Far zoomed in, so that each step has to scroll both views.
  await page.uncheck('#link-views');
  for (const side of ['float', 'quant']) {
    for (let i = 0; i < 8; i++) await page.locator(`#graph-${side} .graph-canvas`).dispatchEvent('wheel', { deltaY: -300, ctrlKey: true });
  }
  await page.locator('#graph-float .graph-canvas').focus();
  const visited = [], ys = [];
  for (let k = 0; k < expected.length; k++) {
    await page.keyboard.press('n');
    const entry = await selectedEntry(page);
    assert.notEqual(entry, null, 'n selects a whole mapping entry');
    assert.ok(isMismatch(reference.mapping[entry]), `entry ${entry} (${reference.mapping[entry].kind}) is a mismatch`);
    await assertSelectionInView(page, entry);
    visited.push(entry);
    ys.push(await page.$eval('#graph-float li[aria-selected="true"], #graph-quant li[aria-selected="true"]', (li) => Number(li.dataset.y)));
  }
  assert.deepEqual([...visited].sort((a, b) => a - b), [...expected].sort((a, b) => a - b), 'every mismatch once');
  assert.deepEqual(ys, [...ys].sort((a, b) => a - b), 'in drawing order, top to bottom');
  await screenshot(page, '21-keyboard-mismatch');
  await page.keyboard.press('p');
  assert.equal(await selectedEntry(page), visited.at(-2), 'p goes back');
  await page.keyboard.press('n');
  await page.keyboard.press('n');
  assert.equal(await selectedEntry(page), visited[0], 'n wraps around');
  await page.keyboard.press('Escape');
  assert.deepEqual([await selectedIds(page, 'float'), await selectedIds(page, 'quant')], [[], []], 'Esc clears the selection');
  await assertClean(page);
  await page.close();
});

test('w / W follow the layer table, worst first; arrow keys walk along edges', async () => {
  const page = await openPair();
  await page.locator('#graph-quant .graph-canvas').focus();
  const layers = reference.weights.layers;
  await page.keyboard.press('w');
  assert.ok((await selectedIds(page, 'quant')).includes(layers[0].quant_node), 'w: the worst layer');
  assert.ok((await selectedIds(page, 'float')).includes(layers[0].float_node), 'linked to its float op');
  await page.keyboard.press('w');
  assert.ok((await selectedIds(page, 'quant')).includes(layers[1].quant_node), 'w: the second worst');
  assert.equal(await page.getAttribute('#layer-table tr[aria-selected="true"]', 'data-rank'), String(layers[1].rank));
  await page.keyboard.press('Shift+W');
  assert.ok((await selectedIds(page, 'quant')).includes(layers[0].quant_node), 'W goes back');

  // A float op with one reader, which has it as its only input: down and up again.
  const graph = reference.logical_graphs.float;
  const op = graph.find((o) => o.succs.length === 1 && graph[o.succs[0]].preds.length === 1 && o.preds.length === 1);
  const next = graph[op.succs[0]];
  await clickNode(page, 'float', op.op);
  await page.keyboard.press('ArrowDown');
  assert.ok((await selectedIds(page, 'float')).includes(next.op), `↓ from ${op.op} to ${next.op}`);
  const entry = reference.mapping.find((e) => e.float.includes(next.op));
  assert.deepEqual(await selectedIds(page, 'quant'), [...entry.quant_ops].sort(), 'the counterpart selected too');
  await page.keyboard.press('ArrowUp');
  assert.ok((await selectedIds(page, 'float')).includes(op.op), '↑ back');
  await assertClean(page);
  await page.close();
});

test('+ and − zoom by 1.25 per press, both views alike, linked or not', async () => {
  const page = await openPair();
  const scale = (side) => page.$eval(`#graph-${side} .graph-canvas`, (c) => Number(c.dataset.transform.split(' ')[0]));
  const close = (a, b, what) => assert.ok(Math.abs(a / b - 1) < 1e-6, `${what}: ${a} vs ${b}`);
  for (const linked of [true, false]) {
    if (!linked) await page.uncheck('#link-views');
    await page.click('#zoom-fit');
    const before = { float: await scale('float'), quant: await scale('quant') };
    await page.locator('#graph-float .graph-canvas').focus();
    await page.keyboard.press('+');
    for (const side of ['float', 'quant']) close(await scale(side), before[side] * 1.25, `${linked ? 'linked' : 'unlinked'} + ${side}`);
    await page.click('#zoom-out');
    for (const side of ['float', 'quant']) close(await scale(side), before[side], `${linked ? 'linked' : 'unlinked'} − ${side}`);
  }
  await assertClean(page);
  await page.close();
});

test('/ focuses the search and keys typed there are text; f fits; ? shows the key help; focus rings', async () => {
  const page = await openPair();
  await page.click('#zoom-fit');
  const fitted = await page.getAttribute('#graph-float .graph-canvas', 'data-transform');
  await page.locator('#graph-float .graph-canvas').focus();
  await page.keyboard.press('+');
  await page.keyboard.press('+');
  assert.notEqual(await page.getAttribute('#graph-float .graph-canvas', 'data-transform'), fitted, '+ zooms');
  await page.keyboard.press('f');
  assert.equal(await page.getAttribute('#graph-float .graph-canvas', 'data-transform'), fitted, 'f fits as the Fit button does');

  await page.keyboard.press('/');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'search');
  await page.keyboard.type('np');
  assert.equal(await page.inputValue('#search'), 'np', 'typed as text');
  assert.deepEqual(await selectedIds(page, 'float'), [], 'no shortcut ran while typing');

  // Tab from the search to the graphs: the focused canvas shows a focus ring.
  await page.keyboard.press('Escape');
  let focused = '';
  for (let i = 0; i < 40 && focused !== 'graph-float'; i++) {
    await page.keyboard.press('Shift+Tab');
    focused = await page.evaluate(() => document.activeElement?.parentElement?.id ?? '');
  }
  assert.equal(focused, 'graph-float', 'the float graph takes the focus by Tab');
  const ring = await page.$eval('#graph-float .graph-canvas', (c) => [c.matches(':focus-visible'), getComputedStyle(c).outlineStyle, getComputedStyle(c).outlineWidth]);
  assert.deepEqual(ring, [true, 'solid', '2px']);

  await page.keyboard.press('?');
  assert.equal(await page.isVisible('#key-help'), true);
  assert.equal(await page.getAttribute('#keys', 'aria-expanded'), 'true', 'the ? button says the help is open');
  const help = await page.textContent('#key-help');
  for (const words of ['next mismatch', 'worst first', 'find a node', 'fit at reading size']) assert.ok(help.includes(words), words);
  for (const theme of ['light', 'dark']) {
    await setTheme(page, theme);
    if (await page.isHidden('#key-help')) await page.keyboard.press('?');
    await screenshot(page, `22-key-help-${theme}`);
  }
  await page.keyboard.press('Escape');
  assert.equal(await page.isHidden('#key-help'), true, 'Esc closes the help');
  await assertClean(page);
  await page.close();
});
