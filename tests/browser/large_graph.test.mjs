// A large pair stays usable: 5,000 float ops against their 15,000-node QDQ version (12,500 drawn in
// the raw view, the weights' DequantizeLinear being folded), opened, drawn and panned in Chromium. It reports the time to the drawn view and the drawing time per frame (the
// canvas draws only what the viewport shows), with generous bounds for a shared 2-core machine;
// the comparison with Netron is a separate benchmark.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generatePair, median, newPage, pan, screenshot, useBrowserOnFolder, waitDrawn, waitListed } from './harness.mjs';

const BLOCKS = 1250;  // 4 ops a block: 5,001 float nodes; the QDQ model has 15,001
const env = useBrowserOnFolder('/large/', () => generatePair('make_large_pair.py', 'vq-large-', BLOCKS));

test('a 5,000-op pair (15,000 quantized nodes) opens, draws and pans smoothly', async (t) => {
  const page = await newPage(env.browser.context);
  // The page's states as they change ("state/listed"): 'drawn' comes with the frame that shows the
  // graphs, before the node lists are whole; 'ready' only once they are.
  await page.addInitScript(() => {
    window.__vqStates = [];
    const note = () => {
      const s = `${document.body.dataset.state ?? ''}/${document.body.dataset.listed ?? ''}`;
      if (window.__vqStates.at(-1) !== s) window.__vqStates.push(s);
    };
    const watch = () => new MutationObserver(note).observe(document.body, { attributes: true, attributeFilter: ['data-state', 'data-listed'] });
    if (document.body) watch(); else document.addEventListener('DOMContentLoaded', watch);
  });
  const started = Date.now();
  await page.goto(`${env.server.url}?float=large/float.onnx&quant=large/quant.onnx&groups=open`);  // whole, not on its 25 stages
  await waitDrawn(page, false);
  const drawnAfter = (Date.now() - started) / 1000;
  await waitDrawn(page, true);
  const analysedAfter = (Date.now() - started) / 1000;
  assert.equal(await page.$$eval('#graph-float li[data-kind="op"]', (l) => l.length), 5001);
  const states = await page.evaluate(() => window.__vqStates);
  const drawnFirst = states.indexOf('drawn/no'), listed = states.findIndex((s) => s.endsWith('/yes'));
  assert.ok(drawnFirst >= 0 && drawnFirst < listed, `drawn before the lists are whole: ${states.join(', ')}`);
  assert.ok(!states.includes('ready/no'), `never ready before the lists: ${states.join(', ')}`);
  assert.equal(states.at(-1), 'ready/yes');

  // The layer table of 2,500 layers keeps only the rows near the view in the page; scrolled to its
  // end it shows the last one, which selects its layer in both graphs like any row.
  const tableRows = () => page.$$eval('#layer-table tbody tr[data-entry]', (rows) => rows.map((r) => Number(r.dataset.rank)));
  assert.equal(await page.textContent('#table-count'), '2500 layers');
  const firstRows = await tableRows();
  assert.ok(firstRows.length > 10 && firstRows.length < 300, `${firstRows.length} rows in the page`);
  assert.deepEqual(firstRows.slice(0, 3), [1, 2, 3]);
  await page.$eval('#layers-panel', (panel) => { panel.scrollTop = panel.scrollHeight; });
  await page.waitForFunction(() => [...document.querySelectorAll('#layer-table tbody tr[data-entry]')].some((r) => r.dataset.rank === '2500'));
  const lastRow = page.locator('#layer-table tbody tr[data-rank="2500"]');
  const lastBox = await lastRow.boundingBox(), panelBox = await page.locator('#layers-panel').boundingBox();
  assert.ok(lastBox.y + lastBox.height <= panelBox.y + panelBox.height + 1, 'the last row ends where the table does');
  await lastRow.click();
  assert.equal(await lastRow.getAttribute('aria-selected'), 'true');
  assert.ok((await page.$eval('#graph-float .graph-canvas', (c) => JSON.parse(c.dataset.selected ?? '[]'))).length > 0, 'its layer is selected');
  await screenshot(page, '17a-large-pair-table-end');

  const minimap = () => page.$eval('#graph-quant .minimap', (c) => ({ renders: Number(c.dataset.renders), ms: Number(c.dataset.renderMs) }));
  const before = await minimap();
  const readable = await pan(page, 'quant', 60, 120);
  assert.equal((await minimap()).renders, before.renders, 'panning never draws the minimap overview again');
  await screenshot(page, '17-large-pair');
  await page.check('#raw-view');
  await waitListed(page, () => document.querySelectorAll('#graph-quant li[data-kind="op"]').length > 12000, null, { timeout: 60000 });
  const raw = await pan(page, 'quant', 60, 120);
  const rawMinimap = await minimap();
  t.diagnostic(`minimap overview of the raw graph drawn in ${rawMinimap.ms} ms`);
  assert.ok(rawMinimap.ms < 250, `the minimap overview of 12,500 nodes: ${rawMinimap.ms} ms`);
  // Name-scope groups (/stage/block/…): every block closed, then all open again, one layout each.
  let started2 = Date.now();
  await page.click('#collapse-all');
  await waitListed(page, () => document.querySelectorAll('#graph-quant li[data-kind="group"]').length > 0, null, { timeout: 60000 });
  const collapsed = (Date.now() - started2) / 1000;
  const groupNodes = await page.$$eval('#graph-quant li[data-id]', (l) => l.length);
  started2 = Date.now();
  await page.click('#expand-all');
  await waitListed(page, () => document.querySelectorAll('#graph-quant li[data-kind="group"]').length === 0, null, { timeout: 60000 });
  const expanded = (Date.now() - started2) / 1000;
  t.diagnostic(`collapse all: ${collapsed.toFixed(1)} s (${groupNodes} nodes drawn), expand all: ${expanded.toFixed(1)} s`);
  assert.ok(groupNodes < 100, `closed, the graph is its top-level groups: ${groupNodes} nodes`);
  assert.ok(collapsed < 20 && expanded < 30, `collapse all ${collapsed} s, expand all ${expanded} s`);
  // Fit stops at reading size; pressed again, it shows the whole graph.
  await page.click('#zoom-fit');
  await page.click('#zoom-fit');
  const whole = await pan(page, 'quant', 20, 1);
  await screenshot(page, '18-large-pair-raw-fit');
  t.diagnostic(`drawn after ${drawnAfter.toFixed(1)} s, weights and lint after ${analysedAfter.toFixed(1)} s`);
  for (const [name, r] of Object.entries({ readable, raw, whole })) {
    t.diagnostic(`${name}: median frame ${median(r.times).toFixed(1)} ms, worst ${Math.max(...r.times).toFixed(1)} ms, ` +
      `${r.drawnNodes} nodes in view, ${(r.times.length / r.seconds).toFixed(0)} frames/s`);
  }
  assert.ok(drawnAfter < 60, `drawn after ${drawnAfter} s`);
  assert.ok(readable.times.length >= 30 && median(readable.times) < 16, `panning at reading size: ${median(readable.times)} ms a frame`);
  assert.ok(median(raw.times) < 16, `panning the raw 15,000-node graph: ${median(raw.times)} ms a frame`);
  assert.ok(whole.drawnNodes > 12000, `the whole raw graph in view: ${whole.drawnNodes} nodes drawn`);
  assert.ok(median(whole.times) < 200, `the whole raw graph in view: ${median(whole.times)} ms a frame`);
  assert.deepEqual(await page.problems(), { csp: [], dialogs: [], errors: [], console: [] });
  await page.close();
});
