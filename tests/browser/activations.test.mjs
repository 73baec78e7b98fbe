// The Activations tab in Chromium, as a user meets it: both models run in the page (onnxruntime-web
// in the core's worker, under the page's CSP), on synthetic inputs that are labelled as such or on
// the user's .npy files. The report the page saves is byte for byte the command line's with
// `--engine web`; the table, the overlay and the node detail show its figures; a bad input file is
// refused with the core's message; and Cancel ends a run without restarting the core.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { assertClean, cli, exportGraphs, openFixturePair, pairsDir, screenshot, selectedIds, useBrowser } from './harness.mjs';
import { makeInputs, npy } from '../activations/peer_measure.mjs';

const PAIR = 'torch_eager_ptq_cnn';
const floatPath = path.join(pairsDir, PAIR, 'float.onnx');
const quantPath = path.join(pairsDir, PAIR, 'quant.onnx');
const env = useBrowser();
let dir;

before(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'vq-act-page-'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

/** The command line's report text with the page's engine and tap budget (64 MiB), on the same inputs. */
function cliReport(args) {
  const r = spawnSync(cli, ['activations', floatPath, quantPath, '--engine', 'web', '--tap-budget', '64M', ...args, '--json', '-'], { encoding: 'utf8', maxBuffer: 1 << 28 });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout;
}

function image(name, dims = [1, 3, 16, 16]) {
  const count = dims.reduce((a, b) => a * b, 1);
  const file = path.join(dir, name);
  writeFileSync(file, npy('float32', dims, Float32Array.from({ length: count }, (_, i) => Math.cos(i * 0.37) * 0.9)));
  return file;
}

async function runAndWait(page) {
  await page.click('#activation-run');
  await page.waitForFunction(() => ['done', 'error'].includes(document.querySelector('#activation-status')?.dataset.state ?? ''), null, { timeout: 120000 });
  return page.$eval('#activation-status', (e) => ({ state: e.dataset.state, text: e.textContent }));
}

async function savedReport(page) {
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#activation-json')]);
  return readFileSync(await download.path(), 'utf8');
}

test('synthetic inputs: labelled, and the saved report is the command line\'s byte for byte; table, overlay and detail show it', async () => {
  const page = await openFixturePair(env, PAIR);
  await page.click('#tab-activations');
  await page.waitForFunction(() => /Model inputs: /.test(document.querySelector('[data-field="declared-inputs"]')?.textContent ?? ''));
  assert.match(await page.textContent('[data-field="declared-inputs"]'), /input: float32\[1,3,16,16\]/);
  assert.match(await page.textContent('[data-field="picked"]'), /synthetic inputs/);
  const status = await runAndWait(page);
  assert.equal(status.state, 'done', status.text);
  assert.match(status.text, /onnxruntime-web 1\.30\.0 \(wasm, 1 thread\), graph optimisation disabled/);
  const text = await savedReport(page);
  assert.equal(text, cliReport([]), 'the page\'s report is the CLI\'s with --engine web');
  const report = JSON.parse(text);
  assert.match(await page.textContent('[data-field="synthetic"]'), /Synthetic inputs .* directional only/);
  assert.match(await page.textContent('[data-field="tapping"]'), /bit-identical/);

  // The table: every compared tensor, worst accumulated SQNR first, as the header says.
  assert.match(await page.textContent('#activation-count'), new RegExp(`^${report.points.length} compared tensors, worst accumulated error first`));
  const rows = await page.$$eval('#point-table tbody tr', (trs) => trs.map((tr) => Number(tr.dataset.point)));
  const worstFirst = report.points.slice().sort((a, b) => a.accumulated.sqnr_db - b.accumulated.sqnr_db || a.point - b.point).map((p) => p.point);
  assert.deepEqual(rows, worstFirst);
  await page.waitForSelector('[data-field="activation-chart"][data-loaded="true"] canvas');

  // A row selects its ops in both graphs, and the detail panel shows that tensor's figures.
  const worst = report.points.find((p) => p.point === worstFirst[0]);
  await page.click(`#point-table tbody tr[data-point="${worst.point}"]`);
  assert.deepEqual(await selectedIds(page, 'quant'), (await page.evaluate(() => JSON.parse(document.querySelector('#selection-status').dataset.quant))));
  assert.ok((await selectedIds(page, 'quant')).length > 0);
  await page.waitForSelector('#detail [data-field="activation"]');
  assert.equal(await page.textContent('#detail [data-field="verdict"]'), worst.verdict);
  assert.match(await page.textContent('#detail [data-field="activation"]'), /Synthetic inputs/);
  await page.waitForSelector('#detail [data-field="activation-charts"][data-loaded="true"] [data-chart="activation-histogram"]');
  await page.locator('#detail [data-field="activation-charts"]').scrollIntoViewIfNeeded();
  await screenshot(page, 'activations-01b-detail');

  // The overlay colours by the accumulated SQNR and says the inputs were synthetic.
  await page.selectOption('#overlay', 'activations');
  assert.match(await page.textContent('#legend'), /synthetic inputs: directional only/);
  const counted = await page.$$eval('#legend .legend-item', (items) => items.reduce((n, i) => n + Number(i.dataset.quant), 0));
  assert.ok(counted > 0);
  await screenshot(page, 'activations-01-synthetic');
  // The HTML report carries the run, its synthetic inputs said first, the worst tensors as in the table.
  const html = readFileSync(await (await exportGraphs(page, 'html')).path(), 'utf8');
  const section = html.slice(html.indexOf('<h2>Activations</h2>'), html.indexOf('<h2>Fusions</h2>'));
  assert.match(section, /Synthetic inputs \(1 seeded sample from the declared types and shapes\): every figure below is directional only/);
  const first = report.points.find((p) => p.rank === 1);
  assert.ok(section.includes(`<td class="num">1</td><td>${first.quant_nodes.join(' + ')}</td>`), 'the worst tensor first');
  assert.ok(section.includes(`First jump`) && section.includes(report.runtime.engine));
  await assertClean(page);
  await page.close();
});

test('the user\'s .npy inputs: two samples, not labelled synthetic, the same bytes as the command line', async () => {
  const a = image('x_1.npy'), b = image('x_2.npy', [1, 3, 16, 16]);
  writeFileSync(b, npy('float32', [1, 3, 16, 16], Float32Array.from({ length: 768 }, (_, i) => Math.sin(i * 0.11))));
  const page = await openFixturePair(env, PAIR);
  await page.click('#tab-activations');
  await page.waitForFunction(() => /Model inputs: /.test(document.querySelector('[data-field="declared-inputs"]')?.textContent ?? ''));
  await page.setInputFiles('#activation-inputs', [b, a]);
  assert.match(await page.textContent('[data-field="picked"]'), /2 input files: x_1\.npy → input, x_2\.npy → input/);
  const status = await runAndWait(page);
  assert.equal(status.state, 'done', status.text);
  const text = await savedReport(page);
  assert.equal(text, cliReport(['--input', a, '--input', b]));
  assert.deepEqual(JSON.parse(text).inputs.samples, ['sample 0: input=x_1.npy', 'sample 1: input=x_2.npy']);
  assert.match(await page.textContent('[data-field="inputs"]'), /sample 0: input=x_1\.npy; sample 1: input=x_2\.npy/);
  assert.equal(await page.$('[data-field="synthetic"]'), null, 'no synthetic label on real inputs');
  await screenshot(page, 'activations-02-npy');
  await assertClean(page);
  await page.close();
});

test('a file of the wrong shape is refused with the core\'s message; the page stays usable', async () => {
  const wrong = image('wrong.npy', [1, 3, 8, 8]);
  const page = await openFixturePair(env, PAIR);
  await page.click('#tab-activations');
  await page.waitForFunction(() => /Model inputs: /.test(document.querySelector('[data-field="declared-inputs"]')?.textContent ?? ''));
  await page.setInputFiles('#activation-inputs', wrong);
  const status = await runAndWait(page);
  assert.equal(status.state, 'error');
  assert.match(status.text, /\[input_mismatch\].*wrong\.npy/);
  // Nothing restarted: the same pair answers, and a synthetic run still works.
  await page.click('#activation-clear');
  assert.equal((await runAndWait(page)).state, 'done');
  await assertClean(page);
  await page.close();
});

test('Cancel ends a run after the model run in progress, without restarting the core', async () => {
  const page = await openFixturePair(env, PAIR);
  await page.click('#tab-activations');
  await page.waitForFunction(() => /Model inputs: /.test(document.querySelector('[data-field="declared-inputs"]')?.textContent ?? ''));
  await page.fill('#activation-samples', '64');
  await page.click('#activation-run');
  await page.waitForFunction(() => /^run \d+ of \d+/.test(document.querySelector('#activation-status')?.textContent ?? ''), null, { timeout: 60000 });
  await page.click('#activation-cancel');
  await page.waitForFunction(() => document.querySelector('#activation-status')?.dataset.state === 'error', null, { timeout: 60000 });
  assert.match(await page.textContent('#activation-status'), /Cancelled/);
  // The pair is still open in the core: a node's detail loads (a restarted core would have lost it).
  await page.click('#tab-layers');
  await page.click('#layer-table tbody tr');
  await page.waitForSelector('#detail .node-detail, #detail [data-field="weight-charts"][data-loaded="true"]', { timeout: 30000 });
  assert.equal(await page.isHidden('#error'), true, await page.textContent('#error'));
  await assertClean(page);
  await page.close();
});

test('tensors inside If and Loop bodies: compared in the page, the untaken branch said not computed', async () => {
  const pair = 'ort_dynamic_if_loop';
  const fp = path.join(pairsDir, pair, 'float.onnx'), qp = path.join(pairsDir, pair, 'quant.onnx');
  // x and -x send this If down its two branches (tests/node/activations_bodies.test.mjs).
  const [x] = await makeInputs(fp, 7);
  const a = path.join(dir, 'branch_a.npy'), b = path.join(dir, 'branch_b.npy');
  writeFileSync(a, npy('float32', x.dims, x.data));
  writeFileSync(b, npy('float32', x.dims, x.data.map((v) => -v)));
  const page = await openFixturePair(env, pair);
  await page.click('#tab-activations');
  await page.waitForFunction(() => /Model inputs: /.test(document.querySelector('[data-field="declared-inputs"]')?.textContent ?? ''));
  await page.setInputFiles('#activation-inputs', [a, b]);
  const status = await runAndWait(page);
  assert.equal(status.state, 'done', status.text);
  const text = await savedReport(page);
  const r = spawnSync(cli, ['activations', fp, qp, '--engine', 'web', '--tap-budget', '64M', '--input', a, '--input', b, '--json', '-'], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(text, r.stdout, 'the page\'s report is the CLI\'s with --engine web');
  const report = JSON.parse(text);
  const thenOut = report.points.find((p) => p.float_tensor === 'then_out');
  const looped = report.points.find((p) => p.float_tensor === 'fc3_mm');
  assert.ok(thenOut?.body && looped?.body);
  await page.click(`#point-table tbody tr[data-point="${thenOut.point}"]`);
  await page.waitForSelector('#detail [data-field="activation"]');
  const facts = await page.textContent('#detail [data-field="activation"]');
  assert.match(facts, /insidebranch\/then_branch of branch; local error not measured/);
  assert.match(facts, /per sample(0|1): (not computed|[0-9.]+ dB), (0|1): (not computed|[0-9.]+ dB)/);
  assert.match(facts, /not computed/);
  await screenshot(page, 'activations-05-if-branch');
  await page.click(`#point-table tbody tr[data-point="${looped.point}"]`);
  await page.waitForFunction(() => /loop\/body of loop: every iteration/.test(document.querySelector('#detail [data-field="activation"]')?.textContent ?? ''));
  await assertClean(page);
  await page.close();
});
