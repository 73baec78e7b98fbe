// A three-way comparison in Chromium: one float model and two quantized versions of it (PyTorch's
// eager and FX PTQ of one network), opened by URL in any order. Three panes, linked: a selection in
// any pane selects the aligned nodes in the other two; the Versions tab ranks the rows where the
// versions differ, with the differences in words; the JSON and CSV exports are the three-way ones.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { assertClean, clickNode, newPage, root, screenshot, selectedIds, useBrowser, waitDrawn } from './harness.mjs';

const versions = path.join(root, 'tests/fixtures/versions');
const env = useBrowser([['/versions/', versions]]);
const dir = 'versions/torch_cnn_three_way';

async function open(...files) {
  const page = await newPage(env.browser.context);
  const [first, ...rest] = files;
  await page.goto(`${env.server.url}?float=${dir}/${first}&${rest.map((f) => `quant=${dir}/${f}`).join('&')}`);
  return page;
}

const versionIds = (page) => page.$eval('#selection-status', (s) => JSON.parse(s.dataset.version ?? 'null'));

test('three models: three linked panes, the Versions tab, a click in any pane follows in the others', async () => {
  const page = await open('float.onnx', 'eager_ptq.onnx', 'fx_ptq.onnx');
  await waitDrawn(page);
  assert.equal(await page.isVisible('#pane-version'), true);
  assert.equal(await page.textContent('#tag-float'), 'Float');
  assert.equal(await page.textContent('#tag-quant'), 'A · qdq');
  assert.equal(await page.textContent('#tag-version'), 'B · qdq');
  assert.equal(await page.textContent('#name-quant'), 'eager_ptq.onnx');
  assert.equal(await page.textContent('#name-version'), 'fx_ptq.onnx');
  assert.equal(await page.getAttribute('#pair-notice', 'data-kind'), 'case');
  assert.match(await page.textContent('#pair-notice'), /^Three-way: versions A \(eager_ptq\.onnx\) and B \(fx_ptq\.onnx\) of the float model float\.onnx/);

  // The Versions tab: every row of the core's table, those that differ first with their words.
  await page.click('#tab-versions');
  const rows = await page.$$eval('#versions-table tbody tr', (trs) => trs.map((tr) => ({ differs: tr.dataset.differs === 'true', cells: [...tr.cells].map((td) => td.textContent) })));
  assert.equal(rows.length, 10);
  assert.equal(rows[0].differs, true);
  assert.match(rows[0].cells[8], /B's output scale is 0\.00156 vs 0\.00544 in A/);
  assert.match(await page.textContent('#versions-count'), /^1 of 10 differ$/);
  await screenshot(page, 'three-way-01-versions');

  // Float pane -> A and B: the stem conv (fused with its BatchNormalization in both versions).
  await clickNode(page, 'float', '/stem/conv/Conv');
  assert.deepEqual(await selectedIds(page, 'float'), ['/stem/bn/BatchNormalization', '/stem/conv/Conv']);
  assert.deepEqual(await selectedIds(page, 'quant'), ['/stem/conv/Conv']);
  assert.deepEqual(await versionIds(page), ['/conv/Conv']);
  assert.deepEqual(await selectedIds(page, 'version'), ['/conv/Conv']);
  assert.equal(await page.$eval('#versions-table tbody tr[aria-selected="true"]', (tr) => tr.cells[1].textContent), 'Conv + BatchNormalization');

  // B pane -> float and A.
  await clickNode(page, 'version', '/conv/Relu');
  assert.deepEqual(await selectedIds(page, 'version'), ['/conv/Relu']);
  assert.deepEqual(await selectedIds(page, 'float'), ['/stem/relu/Relu']);
  assert.deepEqual(await selectedIds(page, 'quant'), ['/stem/conv/Relu']);
  assert.match(await page.textContent('#selection-status'), /↔\s+A: .*↔\s+B: /);

  // A pane -> float and B.
  await clickNode(page, 'quant', '/stem/conv/Relu');
  assert.deepEqual(await selectedIds(page, 'float'), ['/stem/relu/Relu']);
  assert.deepEqual(await selectedIds(page, 'version'), ['/conv/Relu']);

  // A row of the Versions tab selects its float ops, and both versions' counterparts.
  await page.click('#versions-table tbody tr:first-child');
  const row = await page.$eval('#versions-table tbody tr:first-child', (tr) => tr.cells[1].title);
  assert.deepEqual(await selectedIds(page, 'float'), [row]);
  assert.ok((await selectedIds(page, 'version')).length > 0);
  await screenshot(page, 'three-way-02-linked-selection');
  await assertClean(page);
  await page.close();
});

test('the Activations tab runs both versions on the same inputs: the Versions tab then compares their activation error row by row', async () => {
  const page = await open('float.onnx', 'eager_ptq.onnx', 'qat.onnx');
  await waitDrawn(page);
  await page.click('#tab-activations');
  await page.waitForFunction(() => /Model inputs: /.test(document.querySelector('[data-field="declared-inputs"]')?.textContent ?? ''));
  await page.click('#activation-run');
  await page.waitForFunction(() => document.querySelectorAll('#versions-table [data-field="activation-a"]').length > 0, null, { timeout: 120000 });
  await page.click('#tab-versions');
  const heads = await page.$$eval('#versions-table thead th', (ths) => ths.map((th) => th.textContent));
  assert.ok(heads.includes('A act. SQNR') && heads.includes('B act. SQNR'), heads.join(', '));
  assert.match(await page.textContent('#versions-count'), /synthetic inputs/);
  const rows = await page.$$eval('#versions-table tbody tr', (trs) => trs.map((tr) => ({
    a: tr.querySelector('[data-field="activation-a"]').textContent, b: tr.querySelector('[data-field="activation-b"]').textContent,
    winner: tr.querySelector('.winner').textContent, reason: tr.querySelector('.winner').title })));
  assert.equal(rows.length, 10);
  for (const r of rows) {
    assert.match(r.a, /^\d+(\.\d+)?$/);
    assert.match(r.b, /^\d+(\.\d+)?$/);
    assert.match(r.reason, /^activation SQNR at the output/);
    const gap = Number(r.a) - Number(r.b);
    // Shown to 3 significant digits: only clear-cut rows are checked against the rule.
    if (Math.abs(gap) > 0.6) assert.equal(r.winner, gap > 0 ? 'A' : 'B');
  }
  await screenshot(page, 'three-way-04-activations');
  await assertClean(page);
  await page.close();
});

test('the float model need not come first: the core finds it; versions keep the order given', async () => {
  const page = await open('fx_ptq.onnx', 'float.onnx', 'qat.onnx');
  await waitDrawn(page);
  assert.equal(await page.textContent('#name-float'), 'float.onnx');
  assert.equal(await page.textContent('#name-quant'), 'fx_ptq.onnx');
  assert.equal(await page.textContent('#name-version'), 'qat.onnx');
  // Two quantized first: the third must be the float one.
  const again = await open('eager_ptq.onnx', 'qat.onnx', 'float.onnx');
  await waitDrawn(again);
  assert.deepEqual([await again.textContent('#name-float'), await again.textContent('#name-quant'), await again.textContent('#name-version')],
    ['float.onnx', 'eager_ptq.onnx', 'qat.onnx']);
  await assertClean(page);
  await page.close();
  await again.close();
});

test('three quantized models: a clear error, nothing half open', async () => {
  const page = await open('eager_ptq.onnx', 'fx_ptq.onnx', 'qat.onnx');
  await page.waitForFunction(() => document.body.dataset.state === 'error', null, { timeout: 60000 });
  assert.match(await page.textContent('#error'), /a three-way comparison takes one float model and two quantized versions of it: none of eager_ptq\.onnx, fx_ptq\.onnx and qat\.onnx is float/);
  assert.equal(await page.isVisible('#progress'), false);
  assert.equal(await page.isVisible('#pane-version'), false);
  await screenshot(page, 'three-way-03-no-float');
  await page.close();
});

test('two models after three: the third pane and the Versions tab go', async () => {
  const page = await open('float.onnx', 'eager_ptq.onnx', 'fx_ptq.onnx');
  await waitDrawn(page);
  await page.evaluate((url) => history.replaceState(null, '', url), `?float=${dir}/float.onnx&quant=${dir}/qat.onnx`);
  await page.reload();
  await waitDrawn(page);
  assert.equal(await page.isVisible('#pane-version'), false);
  assert.equal(await page.isVisible('#tab-versions'), false);
  assert.equal(await page.$eval('#selection-status', (s) => s.dataset.version), undefined);
  await page.close();
});
