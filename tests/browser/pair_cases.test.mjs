// Any two models in Chromium: a pair that is not one network says so above the graphs before
// anything else (and nothing is "identical", the layer table says why it is empty); two float
// models and two quantized models are named A and B by what they are, never "Float" /
// "Quantized" at random, and their weight figures read as changes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { assertClean, newPage, root, screenshot, useBrowser, waitDrawn } from './harness.mjs';

const versions = path.join(root, 'tests/fixtures/versions');
const env = useBrowser([['/versions/', versions]]);

async function open(a, b) {
  const page = await newPage(env.browser.context);
  await page.goto(`${env.server.url}?float=versions/${a}&quant=versions/${b}`);
  await waitDrawn(page);
  return page;
}

const headers = (page) => page.$$eval('#layer-table thead th', (ths) => ths.map((th) => th.textContent));

test('two initialisations of one architecture: the banner says they are not one network; matches are structural; no weights compared', async () => {
  const page = await open('torch_cnn_reinit/a.onnx', 'torch_cnn_reinit/b.onnx');
  assert.equal(await page.isVisible('#pair-notice'), true, 'the banner is shown');
  assert.equal(await page.getAttribute('#pair-notice', 'data-kind'), 'wrong');
  assert.match(await page.textContent('#pair-notice'), /^Not the same network: weights disagree in 4 of 4 weighted matches/);
  assert.equal(await page.textContent('#tag-float'), 'A · float');
  assert.equal(await page.textContent('#tag-quant'), 'B · float');
  assert.doesNotMatch(await page.textContent('#summary'), /identical/);
  assert.match(await page.textContent('#summary'), /structural/);
  assert.equal(await page.textContent('#tab-layers'), 'Weights');
  assert.equal(await page.textContent('#table-count'), 'No weights compared: the two models are not the same network');
  assert.match(await page.getAttribute('#table-count', 'title'), /weights disagree in 4 of 4/);
  assert.equal(await page.$$eval('#layer-table tbody tr', (r) => r.length), 0);
  await screenshot(page, 'pair-cases-01-wrong-pair');
  await assertClean(page);
  await page.close();
});

test('a model and its fine-tune: A and B, same network, the weight table reads as changes', async () => {
  const page = await open('torch_cnn_finetuned/a.onnx', 'torch_cnn_finetuned/b.onnx');
  assert.equal(await page.getAttribute('#pair-notice', 'data-kind'), 'case');
  assert.match(await page.textContent('#pair-notice'), /^Two float models: A and B are compared with each other/);
  assert.equal(await page.textContent('#tab-layers'), 'Weight changes, largest first');
  const h = await headers(page);
  for (const title of ['A node', 'B node', 'Changed', 'Rel. change']) assert.ok(h.includes(title), `${title} in ${h}`);
  assert.ok(!h.includes('Float node') && !h.includes('Quantized node'));
  const rows = await page.$$eval('#layer-table tbody tr', (trs) => trs.map((tr) => [...tr.cells].map((td) => td.textContent)));
  assert.ok(rows.length >= 4);
  const changed = h.indexOf('Changed');
  assert.ok(rows.some((r) => /^\d+(\.\d)? %$/.test(r[changed]) && r[changed] !== '0 %'), JSON.stringify(rows));
  await screenshot(page, 'pair-cases-02-fine-tune');
  await assertClean(page);
  await page.close();
});

test('two quantized versions without a float model: named A and B by their form; runs that need a float model say so', async () => {
  const page = await open('torch_cnn_three_way/eager_ptq.onnx', 'torch_cnn_three_way/qat.onnx');
  assert.match(await page.textContent('#pair-notice'), /^Two quantized models, no float model/);
  const tags = [await page.textContent('#tag-float'), await page.textContent('#tag-quant')].sort();
  assert.deepEqual(tags, ['A · quantized, QDQ', 'B · quantized, QDQ']);
  assert.equal(await page.textContent('#tab-layers'), 'Weight differences, largest first');
  await page.click('#tab-sensitivity');
  assert.match(await page.textContent('#sensitivity-panel'), /needs a float model and its quantized version; both models are quantized/);
  await screenshot(page, 'pair-cases-03-quant-vs-quant');
  await assertClean(page);
  await page.close();
});
