// The Sensitivity tab in Chromium, as a user meets it: the sweep runs in the page (onnxruntime-web in
// the core's worker, under the page's CSP) on the inputs chosen in the Activations tab, labelled
// synthetic when they are. The report the page saves is byte for byte the command line's with
// `--engine web`; the chart, the table (best recovery first) and the suggestion show it; a row
// selects the entry's ops in both graphs; the exclusion lists are the core's Python; the mixed model
// saved is the command line's `--out` byte for byte; entries picked by hand are measured together.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { assertClean, cli, openFixturePair, pairsDir, root, screenshot, selectedIds, useBrowser } from './harness.mjs';

const PAIR = 'torch_eager_ptq_cnn';
const floatPath = path.join(pairsDir, PAIR, 'float.onnx');
const quantPath = path.join(pairsDir, PAIR, 'quant.onnx');
const env = useBrowser();
let dir;

before(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'vq-sens-page-'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

function cliRun(args) {
  const r = spawnSync(cli, ['sensitivity', floatPath, quantPath, '--engine', 'web', ...args], { encoding: 'utf8', maxBuffer: 1 << 28 });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout;
}

async function runAndWait(page, button = '#sensitivity-run') {
  await page.click(button);
  await page.waitForFunction(() => ['done', 'error'].includes(document.querySelector('#sensitivity-status')?.dataset.state ?? ''), null, { timeout: 180000 });
  return page.$eval('#sensitivity-status', (e) => ({ state: e.dataset.state, text: e.textContent }));
}

test('the sweep in the page: the command line\'s report, chart, table, suggestion, exports and the mixed model', async () => {
  const page = await openFixturePair(env, PAIR);
  await page.click('#tab-sensitivity');
  await page.waitForFunction(() => /Runs on the inputs chosen in the Activations tab: seeded synthetic inputs/.test(document.querySelector('[data-field="sensitivity-inputs"]')?.textContent ?? ''));
  await page.fill('#sensitivity-target', '45');
  const status = await runAndWait(page);
  assert.equal(status.state, 'done', status.text);
  assert.match(status.text, /onnxruntime-web 1\.30\.0 \(wasm, 1 thread\), graph optimisation disabled/);
  const [json] = await Promise.all([page.waitForEvent('download'), page.click('#sensitivity-json')]);
  const text = readFileSync(await json.path(), 'utf8');
  assert.equal(text, cliRun(['--target-sqnr', '45', '--json', '-']), 'the page\'s report is the CLI\'s with --engine web');
  const report = JSON.parse(text);
  assert.match(await page.textContent('#sensitivity-summary [data-field="synthetic"]'), /Synthetic inputs .* directional only/);
  assert.match(await page.textContent('[data-field="all-in-float"]'), /exact \(no error\)/);

  // The table: best recovery first, as the report ranks them; the chart drawn.
  const rows = await page.$$eval('#sensitivity-table tbody tr', (trs) => trs.map((tr) => Number(tr.dataset.entry)));
  assert.deepEqual(rows.slice(0, report.ranking.length), report.ranking);
  await page.waitForSelector('[data-field="sensitivity-chart"][data-loaded="true"] canvas');
  assert.match(await page.textContent('[data-field="suggestion-verdict"]'), /^Reached with \d+ entr(y|ies) kept in float/);

  // A row selects that entry's ops in both graphs.
  const best = report.entries.find((e) => e.entry === report.ranking[0]);
  await page.click(`#sensitivity-table tbody tr[data-entry="${best.entry}"] td:nth-child(3)`);
  const floatSelected = await selectedIds(page, 'float');
  assert.ok(best.float_nodes.some((n) => floatSelected.includes(n)), `${JSON.stringify(floatSelected)} vs ${JSON.stringify(best.float_nodes)}`);
  assert.ok((await selectedIds(page, 'quant')).length > 0);

  // The exclusion list: the core's Python for the suggested set.
  await page.click('#sensitivity-exports button[data-format="ort"]');
  await page.waitForFunction(() => document.querySelector('#sensitivity-snippet')?.dataset.format === 'ort');
  const snippet = await page.textContent('#sensitivity-snippet');
  const cliSnippet = cliRun(['--target-sqnr', '45', '--exclude-format', 'ort']);
  assert.ok(cliSnippet.includes(snippet.trim()), snippet);
  for (const name of report.exports.onnxruntime.nodes_to_exclude) assert.ok(snippet.includes(`'${name}'`), name);

  // The mixed-precision model: the command line's --out, byte for byte.
  const [model] = await Promise.all([page.waitForEvent('download'), page.click('#sensitivity-save-model')]);
  assert.equal(model.suggestedFilename(), 'quant-mixed.onnx');
  const out = path.join(dir, 'mixed.onnx');
  cliRun(['--keep', report.exports.set.join(','), '--measure', 'chosen', '--out', out]);
  assert.deepEqual(readFileSync(await model.path()), readFileSync(out));
  await screenshot(page, 'sensitivity');
  await page.$eval('#sensitivity-panel', (e) => { e.scrollTop = 0; });
  await screenshot(page, 'sensitivity-top');
  await (await page.$('[data-field="sensitivity-chart"]')).screenshot({ path: path.join(root, 'tests/out/browser/sensitivity-chart.png') });

  // Two entries picked by hand, measured together: the command line's figure for that set.
  const picked = report.ranking.slice(0, 2).sort((a, b) => a - b);
  for (const e of picked) await page.check(`#sensitivity-table input[data-entry="${e}"]`);
  await runAndWait(page, '#sensitivity-measure-picked');
  const chosen = JSON.parse(cliRun(['--keep', picked.join(','), '--measure', 'chosen', '--json', '-'])).chosen;
  const shown = await page.textContent('[data-field="picked-result"]');
  const db = typeof chosen.error.sqnr_db === 'number' ? `${chosen.error.sqnr_db.toFixed(2)} dB` : 'exact (no error)';
  assert.ok(shown.includes(`output SQNR ${db}`), `${shown} vs ${db}`);
  await assertClean(page);
});

test('a node\'s "Keep in float" box picks its entry for the Sensitivity tab, which measures it alone', async () => {
  const page = await openFixturePair(env, PAIR);
  await page.click('#tab-sensitivity');
  await page.waitForFunction(() => !document.querySelector('#sensitivity-run')?.disabled);
  // The fused Conv+BatchNormalization of /down: its detail's box.
  const r = JSON.parse(cliRun(['--split', 'off', '--json', '-']));
  const entry = r.entries.find((e) => e.float_nodes.includes('/down/conv/Conv'));
  await page.click(`#sensitivity-panel`);  // the tab stays shown while the node is selected
  await page.evaluate(() => document.querySelector('#search').focus());
  await page.fill('#search', '/down/conv/Conv');
  await page.keyboard.press('Enter');
  await page.waitForSelector('#detail [data-field="keep-in-float"]');
  await page.check('#detail [data-field="keep-in-float"]');
  assert.match(await page.textContent('#sensitivity-picked'), new RegExp(`Picked by hand: ${entry.entry}\\.`));
  await runAndWait(page, '#sensitivity-measure-picked');
  const chosen = JSON.parse(cliRun(['--keep', String(entry.entry), '--measure', 'chosen', '--json', '-'])).chosen;
  const db = typeof chosen.error.sqnr_db === 'number' ? `${chosen.error.sqnr_db.toFixed(2)} dB` : 'exact (no error)';
  assert.ok((await page.textContent('[data-field="picked-result"]')).includes(`output SQNR ${db}`));
  // Unticked, the pick goes.
  await page.uncheck('#detail [data-field="keep-in-float"]');
  assert.equal(await page.textContent('#sensitivity-picked'), '');
  await assertClean(page);
});

test('name-scope blocks: the sweep per block in the page is the command line\'s', async () => {
  const pair = 'torch_transformer_ptq';
  const page = await openFixturePair(env, pair);
  await page.click('#tab-sensitivity');
  await page.waitForFunction(() => !document.querySelector('#sensitivity-run')?.disabled);
  await page.selectOption('#sensitivity-unit', 'block');
  await page.fill('#sensitivity-depth', '1');
  await page.uncheck('#sensitivity-split');
  const status = await runAndWait(page);
  assert.equal(status.state, 'done', status.text);
  const [json] = await Promise.all([page.waitForEvent('download'), page.click('#sensitivity-json')]);
  const r = spawnSync(cli, ['sensitivity', path.join(pairsDir, pair, 'float.onnx'), path.join(pairsDir, pair, 'quant.onnx'), '--engine', 'web',
    '--unit', 'block', '--block-depth', '1', '--split', 'off', '--json', '-'], { encoding: 'utf8', maxBuffer: 1 << 28 });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(readFileSync(await json.path(), 'utf8'), r.stdout);
  const cells = await page.$$eval('#sensitivity-table tbody tr td:nth-child(3)', (tds) => tds.map((td) => td.textContent));
  assert.deepEqual(cells.map((c) => c.replace(/ \(\d+ entries\)$/, '')).sort(), ['/layers.0', '/layers.1']);
  await assertClean(page);
});

test('the Activations tab runs the what-if of the entries picked: the command line\'s --keep report, shown on the open pair', async () => {
  const page = await openFixturePair(env, PAIR);
  const r = JSON.parse(cliRun(['--split', 'off', '--json', '-']));
  const entry = r.entries.find((e) => e.float_nodes.includes('/down/conv/Conv'));
  await page.click('#tab-sensitivity');
  await page.waitForFunction(() => !document.querySelector('#sensitivity-run')?.disabled);
  await page.fill('#search', '/down/conv/Conv');
  await page.keyboard.press('Enter');
  await page.check('#detail [data-field="keep-in-float"]');
  await page.click('#tab-activations');
  await page.waitForFunction(() => !document.querySelector('#activation-what-if')?.disabled);
  await page.check('#activation-what-if');
  await page.click('#activation-run');
  await page.waitForFunction(() => ['done', 'error'].includes(document.querySelector('#activation-status')?.dataset.state ?? ''), null, { timeout: 120000 });
  assert.equal(await page.$eval('#activation-status', (e) => e.dataset.state), 'done', await page.textContent('#activation-status'));
  assert.match(await page.textContent('[data-field="what-if"]'), new RegExp(`A what-if: quant\\.onnx with entry ${entry.entry} kept in float`));
  const [json] = await Promise.all([page.waitForEvent('download'), page.click('#activation-json')]);
  const act = spawnSync(cli, ['activations', floatPath, quantPath, '--engine', 'web', '--tap-budget', '64M', '--keep', String(entry.entry), '--json', '-'],
    { encoding: 'utf8', maxBuffer: 1 << 28 });
  assert.equal(act.status, 0, act.stderr);
  assert.equal(readFileSync(await json.path(), 'utf8'), act.stdout);
  // Its rows select the open pair's ops (its entries are the what-if's own, given as the pair's).
  const whatIf = JSON.parse(act.stdout);
  const res = whatIf.points.find((p) => p.float_nodes.includes('/res/conv/Conv'));
  await page.click(`#point-table tbody tr[data-point="${res.point}"]`);
  assert.ok((await selectedIds(page, 'float')).includes('/res/conv/Conv'), JSON.stringify(await selectedIds(page, 'float')));
  // The kept entry's weight is the float model's: no weight SQNR in its row.
  const kept = whatIf.points.find((p) => p.float_nodes.includes('/down/conv/Conv') || p.float_nodes.includes('/down/bn/BatchNormalization'));
  if (kept) assert.equal(await page.$eval(`#point-table tbody tr[data-point="${kept.point}"] td:nth-child(11)`, (td) => td.textContent), '–');
  // On the open pair's graphs: the overlay says it is a what-if.
  await page.selectOption('#overlay', 'activations');
  assert.match(await page.textContent('#legend [data-field="what-if"]'), /a what-if: quant\.onnx with entry \d+ kept in float/);
  await screenshot(page, 'sensitivity-what-if');
  await assertClean(page);
});

test('cancelled, the sweep shows what it measured', async () => {
  const page = await openFixturePair(env, 'torch_transformer_ptq');
  await page.click('#tab-sensitivity');
  await page.waitForFunction(() => !document.querySelector('#sensitivity-run')?.disabled);
  await page.click('#sensitivity-run');
  await page.waitForFunction(() => /run (1[0-9]|[2-9][0-9]) of/.test(document.querySelector('#sensitivity-status')?.textContent ?? ''), null, { timeout: 120000 });
  await page.click('#sensitivity-cancel');
  await page.waitForFunction(() => document.querySelector('#sensitivity-status')?.dataset.state === 'done', null, { timeout: 60000 });
  assert.match(await page.textContent('#sensitivity-status'), /^Cancelled after \d+ runs: what was measured is below\./);
  assert.match(await page.textContent('#sensitivity-table'), /not run/);
  await assertClean(page);
});
