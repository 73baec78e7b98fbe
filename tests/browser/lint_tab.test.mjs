// The Lint tab in Chromium: every finding of the pair in one list, errors first, each with its
// severity, rule, node and message as the core reports them; a row selects the op it is on (also
// when the finding names a Q/DQ node folded into that op), whose detail then shows the finding.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { assertClean, clickNode, cliCompare, openFixturePair, pairsDir, screenshot, useBrowser } from './harness.mjs';

const PAIR = 'ort_qdq_blockwise_int4';
const reference = cliCompare(path.join(pairsDir, PAIR, 'float.onnx'), path.join(pairsDir, PAIR, 'quant.onnx'));
const env = useBrowser();

test('the Lint tab lists every finding, errors first; a row selects its op and the detail shows the finding', async () => {
  const page = await openFixturePair(env, PAIR);
  assert.equal(await page.textContent('#lint-count'), String(reference.lint.length));
  await page.click('#tab-lint');
  assert.equal(await page.isHidden('#layer-table'), true, 'one tab at a time');
  const rows = await page.$$eval('#lint-table tbody tr', (trs) => trs.map((tr) => [...tr.cells].map((td) => td.textContent)));
  const order = { error: 0, warning: 1, info: 2 };
  const want = reference.lint.slice().sort((a, b) => order[a.severity] - order[b.severity] || a.check.localeCompare(b.check) || a.node.localeCompare(b.node));
  assert.deepEqual(rows, want.map((f) => [f.severity, f.check, f.node, f.message]));
  // fc1_DQ_Q4 is the weight's DequantizeLinear: in the logical view it is folded into the MatMul.
  const finding = want.find((f) => f.node === 'fc1_DQ_Q4');
  await page.click(`#lint-table tbody tr[data-node="${finding.node}"]`);
  await page.waitForSelector('#detail .lint-list li');
  assert.ok((await page.textContent('#detail .lint-list')).includes(finding.message));
  assert.ok(JSON.parse(await page.getAttribute('#selection-status', 'data-quant')).length > 0, 'an op is selected in the quantized graph');
  assert.equal(await page.getAttribute(`#lint-table tbody tr[data-node="${finding.node}"]`, 'aria-selected'), 'true');
  await screenshot(page, 'lint-tab-01');
  await assertClean(page);
  await page.close();
});

test('a conv with a zeroed and a collapsed output channel (PyTorch per-tensor PTQ): ranked first by its worst channel, both named in the lint', async () => {
  const pair = 'torch_eager_ptq_cnn_deadchannel';
  const ref = cliCompare(path.join(pairsDir, pair, 'float.onnx'), path.join(pairsDir, pair, 'quant.onnx'));
  const page = await openFixturePair(env, pair);
  // The table's order is the core's: the lowest SQNR, of the tensor or of its worst channel.
  const first = ref.weights.layers[0];
  assert.equal(first.quant_node, '/down/conv/Conv');
  assert.equal(first.channels.worst.index, 3);
  assert.ok(first.channels.worst.sqnr_db < first.error.sqnr_db - 10, 'the dead channel is far below the tensor-wide figure');
  const cells = await page.$$eval('#layer-table tbody tr:first-child td', (tds) => tds.map((td) => td.textContent));
  const headers = await page.$$eval('#layer-table thead th', (ths) => ths.map((th) => th.textContent));
  const at = (title) => cells[headers.indexOf(title)];
  assert.equal(at('Quantized node'), '/down/conv/Conv');
  assert.equal(at('Worst ch. dB'), `${first.channels.worst.sqnr_db.toFixed(1)} (ch 3)`, 'the worst channel and its index');
  await page.click('#tab-lint');
  const rows = await page.$$eval('#lint-table tbody tr', (trs) => trs.map((tr) => [...tr.cells].map((td) => td.textContent)));
  const zeroed = rows.find((r) => r[1] === 'weight_channel_zeroed');
  const collapsed = rows.find((r) => r[1] === 'weight_channel_collapsed');
  assert.ok(zeroed && zeroed[2] === '/down/conv/Conv' && /output channel\(s\) 3 \(1 of 16\)/.test(zeroed[3]), JSON.stringify(rows));
  assert.ok(collapsed && /output channel\(s\) 11 \(1 of 16\)/.test(collapsed[3]), JSON.stringify(rows));
  await screenshot(page, 'lint-tab-02-dead-channel');
  await assertClean(page);
  await page.close();
});

test('a quantized model that lost its BatchNormalizations (PyTorch PTQ, bit-identical weights): removed, not fused; the lint names each; lossless weights read ∞', async () => {
  const page = await openFixturePair(env, 'torch_eager_ptq_cnn_bndropped');
  // The layer table: every weight without error, said as ∞, not as unknown.
  const sqnr = await page.$$eval('#layer-table tbody tr', (trs) => trs.map((tr) => tr.cells[6].textContent));
  assert.deepEqual(sqnr, ['∞', '∞', '∞', '∞']);
  assert.equal(await page.textContent('#fusion-count'), '0', 'no fusion claimed');
  await page.click('#tab-lint');
  const lost = await page.$$eval('#lint-table tbody tr', (trs) => trs.map((tr) => [...tr.cells].map((td) => td.textContent)).filter((r) => r[1] === 'batchnorm_lost'));
  assert.deepEqual(lost.map((r) => r[2]).sort(), ['/down/conv/Conv', '/res/conv/Conv', '/stem/conv/Conv']);
  for (const r of lost) assert.match(r[3], /BatchNormalization '\/(stem|down|res)\/bn\/BatchNormalization' .* has no counterpart in the quantized model/);
  // The float BatchNormalization: removed, its evidence never "fused into it".
  await clickNode(page, 'float', '/down/bn/BatchNormalization');
  assert.equal(await page.textContent('#detail [data-field="kind"]'), 'removed');
  assert.doesNotMatch(await page.textContent('#detail'), /fused into it|Why matched/);
  assert.match(await page.textContent('#detail'), /Why unmatched\s*no counterpart in the quantized model/);
  await screenshot(page, 'lint-tab-03-bn-lost');
  // The Activations table shows the lossless weight as ∞ too, and its CSV leaves that cell empty (the layer CSV's rule).
  await page.click('#tab-activations');
  await page.waitForFunction(() => /Model inputs: /.test(document.querySelector('[data-field="declared-inputs"]')?.textContent ?? ''));
  await page.click('#activation-run');
  await page.waitForFunction(() => document.querySelector('#activation-status')?.dataset.state === 'done', null, { timeout: 120000 });
  const headers = await page.$$eval('#point-table thead th', (ths) => ths.map((th) => th.textContent));
  const weightColumn = headers.findIndex((t) => t.startsWith('Weight dB'));
  const row = await page.$$eval('#point-table tbody tr', (trs, k) => trs.map((tr) => [tr.cells[2].textContent, tr.cells[k].textContent]), weightColumn);
  assert.deepEqual(row.find((r) => r[0] === '/down/conv/Conv')?.[1], '∞');
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#activation-csv')]);
  const lines = readFileSync(await download.path(), 'utf8').trim().split('\n');
  const cols = lines[0].split(',');
  const conv = lines.find((l) => l.split(',')[2] === '/down/conv/Conv').split(',');
  assert.equal(conv[cols.findIndex((t) => t.startsWith('Weight dB'))], '');
  await assertClean(page);
  await page.close();
});
