// The page's second core for the weight analysis (web/src/worker/weights_helper.ts): on an idle page
// the core worker starts a helper worker; a pair of 96 MB or more given to it is analysed partly
// there, partly in the core worker (each takes the other's pairs once done with its own share, so
// which core analyses which pair depends on timing). A page opened with URLs has no idle time: its
// helper starts when the table is asked, after the drawing. Either way the layer table is the
// CLI's ranking row by row, and the two pages' CSV exports are the same bytes (that two wasm
// instances make one instance's report bytes is tests/node/weights_share.test.mjs; that the cores
// meet with at most one pair analysed twice, tests/unit/test_weights_run.cc). A ResNet-50-sized
// float/QDQ pair of 125 MB (bench/make_compare_pair.py). The JSON export's full report is shared the
// same way, and is the CLI's report.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { assertClean, cli, newPage, root, screenshot, useBrowserOnFolder, waitDrawn } from './harness.mjs';

const env = useBrowserOnFolder('/pair/', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'vq-helper-'));
  const r = spawnSync('/usr/bin/python3', [path.join(root, 'bench/make_compare_pair.py'), 'resnet50', dir], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  // And a small pair, far below the helper's floor.
  for (const side of ['float', 'quant']) copyFileSync(path.join(root, 'tests/fixtures/pairs/torch_fx_ptq_cnn', `${side}.onnx`), path.join(dir, `small_${side}.onnx`));
  return dir;
});
const file = (name) => path.join(env.dir, `resnet50_${name}.onnx`);

/** Records every text the table's status line and the progress card show (they say when two cores analyse). */
async function recordStatus(page) {
  await page.addInitScript(() => {
    window.__statusTexts = [];
    window.__progressTexts = [];
    document.addEventListener('DOMContentLoaded', () => {
      const watch = (id, into) => {
        const e = document.getElementById(id);
        new MutationObserver(() => into.push(e.textContent)).observe(e, { childList: true, characterData: true, subtree: true });
      };
      watch('table-status', window.__statusTexts);
      watch('progress-stage', window.__progressTexts);
    });
  });
}
const statusTexts = (page) => page.evaluate(() => window.__statusTexts);
const progressTexts = (page) => page.evaluate(() => window.__progressTexts);

async function tableCsv(page) {
  const [csv] = await Promise.all([page.waitForEvent('download'), page.click('#export-csv')]);
  return readFileSync(await csv.path(), 'utf8');
}

test('a large pair is analysed by two cores, given to an idle page and from URLs, to the CLI\'s ranking', async () => {
  const reference = JSON.parse(spawnSync(cli, ['weights', file('float'), file('quant'), '--json', '-'], { encoding: 'utf8', maxBuffer: 1 << 28 }).stdout);
  // From URLs: the helper starts when the table is asked, once drawn.
  const fromUrls = await newPage(env.browser.context);
  await recordStatus(fromUrls);
  await fromUrls.goto(`${env.server.url}?float=pair/resnet50_float.onnx&quant=pair/resnet50_quant.onnx`);
  await waitDrawn(fromUrls);
  assert.equal(fromUrls.workers().length, 2, 'a helper core started for the table');
  const saidFromUrls = await statusTexts(fromUrls);
  assert.ok(saidFromUrls.some((t) => /^Analysing weights on two cores: \d+ of 54 layers, \d+ %$/.test(t)), JSON.stringify(saidFromUrls));
  const one = await tableCsv(fromUrls);
  await fromUrls.close();

  // Given to a page that was idle: its helper is up (a nested worker of the core's).
  const page = await newPage(env.browser.context);
  await recordStatus(page);
  await page.goto(env.server.url);
  const deadline = Date.now() + 30000;
  while (page.workers().length < 2 && Date.now() < deadline) await page.waitForTimeout(100);
  assert.equal(page.workers().length, 2, 'the idle page started a helper core');
  await page.setInputFiles('#file-float', file('float'));
  await page.setInputFiles('#file-quant', file('quant'));
  await waitDrawn(page);
  // The helper took part: the status line said so while the weights were analysed.
  const said = await statusTexts(page);
  assert.ok(said.some((t) => /^Analysing weights on two cores: \d+ of 54 layers, \d+ %$/.test(t)), JSON.stringify(said));
  const two = await tableCsv(page);
  assert.equal(two, one);
  // The CLI's ranking, row by row (it rests on every layer's SQNR and sensitivity, to the bit).
  const lines = two.trim().split('\n').slice(1);
  assert.deepEqual(lines.map((l) => l.split(',').slice(0, 3).join(',')),
    reference.layers.map((l) => `${l.rank},${l.float_node},${l.quant_node}`));
  assert.match(await page.textContent('#table-status'), /lint finding|no lint findings/);
  // The JSON export's full report, on two cores as well (the helper holds the pair): the CLI's.
  const [json] = await Promise.all([page.waitForEvent('download'), page.click('#export-json')]);
  const exported = JSON.parse(readFileSync(await json.path(), 'utf8'));
  assert.deepEqual(exported.weights, reference);
  const preparing = await progressTexts(page);
  assert.ok(preparing.some((t) => /^Preparing the JSON report: analysing weights on two cores: \d+ of 54 layers$/.test(t)), JSON.stringify(preparing));
  await screenshot(page, 'weights-helper-table');
  await assertClean(page);
  await page.close();
});

test('a small pair from URLs gets no helper core: its size, known from the responses, is below the floor', async () => {
  // Started while the files came, the helper's script and instance competed with the open and the
  // drawing for the two cores, for a table one core makes in milliseconds.
  const page = await newPage(env.browser.context);
  await page.goto(`${env.server.url}?float=pair/small_float.onnx&quant=pair/small_quant.onnx`);
  await waitDrawn(page);
  await page.waitForFunction(() => document.body.dataset.state === 'ready', null, { timeout: 30000 });
  assert.equal(page.workers().length, 1, page.workers().map((w) => w.url()).join(', '));
  await assertClean(page);
  await page.close();
});
