// A pair whose weights are in external-data files opens with its data read by range, a weight at a
// time (never a whole data file): by URL (?data=, byte ranges the server answers) and by files
// given to the page (File slices), with the CLI's weights. A model file too large for the core's
// memory is refused before it is read, with its size and the limit, and the progress card goes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readdirSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { assertClean, cliCompare, newPage, pairsDir, root, screenshot, useBrowserOnFolder, waitDrawn } from './harness.mjs';

const PAIR = 'ortopt_transformer_ptq';
const env = useBrowserOnFolder('/ext/', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'vq-range-page-'));
  for (const side of ['float', 'quant']) {
    const r = spawnSync('/usr/bin/python3', [path.join(root, 'tests/fixtures/externalise.py'), path.join(pairsDir, PAIR, `${side}.onnx`), dir, side, '--flat'], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
  }
  return dir;
});

const dataFiles = () => readdirSync(env.dir).filter((f) => f.endsWith('.bin')).sort();

/** The layer table's rows as (entry, rank): what the weight analysis ranked. */
const tableRows = (page) => page.$$eval('#layer-table tbody tr[data-entry]', (trs) => trs.map((tr) => [Number(tr.dataset.entry), Number(tr.dataset.rank)]));

/** The page's layer table ranks the layers as the CLI's weight analysis of the same files does. */
async function expectCliWeights(page) {
  const reference = cliCompare(path.join(env.dir, 'float.onnx'), path.join(env.dir, 'quant.onnx'));
  assert.ok(reference.weights.layers.length > 0);
  const byEntry = (rows) => [...rows].sort((a, b) => a[0] - b[0]);
  assert.deepEqual(byEntry(await tableRows(page)), byEntry(reference.weights.layers.map((l) => [l.entry, l.rank])));
}

test('by URL: the data files are read by byte ranges, each of one weight, and the weights are the CLI\'s', async () => {
  const page = await newPage(env.browser.context);
  const requests = [];
  page.on('request', (r) => {
    if (new URL(r.url()).pathname.endsWith('.bin')) requests.push({ url: r.url(), range: r.headers().range ?? null });
  });
  const data = dataFiles().map((f) => `&data=ext/${f}`).join('');
  await page.goto(`${env.server.url}?float=ext/float.onnx&quant=ext/quant.onnx${data}`);
  await waitDrawn(page);
  await expectCliWeights(page);
  assert.ok(requests.length > dataFiles().length, JSON.stringify(requests));
  assert.deepEqual(requests.filter((r) => !/^bytes=\d+-\d+$/.test(r.range ?? '')), [], 'no data file is requested whole');
  await screenshot(page, 'external-by-range-url');
  await assertClean(page);
  await page.close();
});

test('given as files: the data files are read by slices, and the weights are the CLI\'s', async () => {
  const page = await newPage(env.browser.context);
  await page.goto(env.server.url);
  await page.setInputFiles('#file-external', dataFiles().map((f) => path.join(env.dir, f)));
  await page.setInputFiles('#file-float', path.join(env.dir, 'float.onnx'));
  await page.setInputFiles('#file-quant', path.join(env.dir, 'quant.onnx'));
  await waitDrawn(page);
  await expectCliWeights(page);
  await assertClean(page);
  await page.close();
});

test('a model file past what the core can hold is refused before it is read: its size, the limit, no progress card left', async () => {
  // A sparse file stands in for a 2.5 GB model with its weights inline.
  const big = path.join(env.dir, 'huge_inline.onnx');
  const fd = openSync(big, 'w');
  writeSync(fd, Buffer.from([0x08, 0x07]), 0, 2, 2.5e9 - 2);
  closeSync(fd);
  try {
    const page = await newPage(env.browser.context);
    await page.goto(env.server.url);
    await page.setInputFiles('#file-float', big);
    await page.setInputFiles('#file-quant', path.join(pairsDir, PAIR, 'quant.onnx'));
    await page.waitForSelector('#error:not([hidden])', { timeout: 30000 });
    const text = await page.textContent('#error');
    assert.match(text, /huge_inline\.onnx is 2500000000 bytes \(2\.33 GiB\) with its weights inline, more than the 1\.98 GiB/);
    assert.match(text, /\[out_of_memory\]/);
    assert.equal(await page.isVisible('#progress'), false);
    await screenshot(page, 'external-by-range-too-large');
    await page.close();
  } finally {
    rmSync(big, { force: true });
  }
});
