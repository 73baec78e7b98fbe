// The Fusions tab in Chromium: every fusion of the compare report listed with its pattern and
// verification; picking one draws the fused float subgraph (its ops and the edges between them)
// next to the quantized op it became, and selects the fusion in both main graphs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { assertClean, cliCompare, openFixturePair, pairsDir, screenshot, selectedIds, setTheme, useBrowser } from './harness.mjs';

const PAIR = 'ort_fused_transformer';
const reference = cliCompare(path.join(pairsDir, PAIR, 'float.onnx'), path.join(pairsDir, PAIR, 'quant.onnx'));
const env = useBrowser();

/** The fusion's float ops (logical ops named in it) and the edges between them, from the CLI's report. */
function subgraph(fusion) {
  const ops = reference.logical_graphs.float.filter((op) => fusion.float.includes(op.op));
  const ids = new Set(ops.map((op) => op.id));
  const edges = ops.reduce((n, op) => n + op.succs.filter((s) => ids.has(s)).length, 0);
  const quant = reference.logical_graphs.quant.filter((op) => fusion.quant.includes(op.op)).map((op) => op.op);
  return { nodes: ops.length, edges, quant };
}

test('the Fusions tab lists every fusion; picking one draws its subgraph and selects it in both graphs', async () => {
  const page = await openFixturePair(env, PAIR);
  assert.equal(await page.textContent('#fusion-count'), String(reference.fusions.length));
  await page.click('#tab-fusions');
  assert.equal(await page.isVisible('#fusion-table'), true);
  assert.equal(await page.isHidden('#layer-table'), true, 'one tab at a time');
  const rows = await page.$$eval('#fusion-table tbody tr', (trs) => trs.map((tr) => [...tr.cells].map((td) => td.textContent)));
  assert.deepEqual(rows.map((r) => [r[0], r[3], r[4]]), reference.fusions.map((f) => [f.pattern, f.verification, f.detail]));

  // The attention fusion: many float ops, one quantized Attention.
  const k = reference.fusions.findIndex((f) => f.pattern.startsWith('attention'));
  const fusion = reference.fusions[k];
  await page.click(`#fusion-table tbody tr[data-index="${k}"]`);
  const drawn = await page.$eval('.fusion-canvas', (c) => ({ nodes: Number(c.dataset.nodes), edges: Number(c.dataset.edges), quant: c.dataset.quant.split('\n') }));
  assert.deepEqual(drawn, subgraph(fusion));
  assert.ok(drawn.nodes > 5 && drawn.edges >= drawn.nodes - 1, 'a connected subgraph');
  assert.equal(await page.textContent('#fusion-detail [data-field="verification"]'), fusion.verification);
  const entry = reference.mapping[fusion.entry];
  assert.deepEqual(await selectedIds(page, 'quant'), [...entry.quant_ops].sort(), 'selected in the quantized graph');
  const floatSelected = await selectedIds(page, 'float');
  for (const id of entry.float_ops) assert.ok(floatSelected.includes(id), `float ${id} selected`);
  for (const theme of ['light', 'dark']) {
    await setTheme(page, theme);
    await screenshot(page, `26-fusion-${theme}`);
  }

  // A selection in the graphs picks its fusion in the list; the keyboard picks rows too.
  const other = reference.fusions.findIndex((f, i) => i !== k);
  await page.focus(`#fusion-table tbody tr[data-index="${other}"]`);
  await page.keyboard.press('Enter');
  assert.equal(await page.getAttribute(`#fusion-table tbody tr[data-index="${other}"]`, 'aria-selected'), 'true');
  assert.deepEqual(await selectedIds(page, 'quant'), [...reference.mapping[reference.fusions[other].entry].quant_ops].sort());
  await page.click('#tab-layers');
  assert.equal(await page.isVisible('#layer-table'), true);
  await assertClean(page);
  await page.close();
});
