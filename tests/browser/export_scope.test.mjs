// Exports beyond the viewport, and feedback while things take time, on a pair of about a thousand
// nodes: the Export scope gives the SVG, PNG and HTML the whole graphs or the selection with its
// neighbours; a PNG too large for one canvas is drawn smaller (within the canvas limits); the
// selection scope with nothing selected says so; the weight analysis reports how far it is, and
// the JSON export shows a progress card while the core prepares every layer's detail.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { assertClean, findNode, exportGraphs, generatePair, launchBrowser, newPage, screenshot, startServer, waitDrawn } from './harness.mjs';

const BLOCKS = 280;
let server, browser, dir, outDir;

before(async () => {
  dir = generatePair('make_large_pair.py', 'vq-scope-', BLOCKS);
  outDir = mkdtempSync(path.join(tmpdir(), 'vq-scope-out-'));
  server = await startServer([['/pair/', dir]]);
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.stop();
  for (const d of [dir, outDir]) if (d) rmSync(d, { recursive: true, force: true });
});

/** Opens the pair, recording every text the table status line and the progress card showed. */
async function openPair() {
  const page = await newPage(browser.context);
  await page.addInitScript(() => {
    window.__texts = { status: [], progress: [] };
    document.addEventListener('DOMContentLoaded', () => {
      const watch = (id, into) => new MutationObserver(() => {
        const e = document.getElementById(id);
        if (e.textContent && !e.closest('[hidden]')) into.push(e.textContent);
      }).observe(document.getElementById(id), { childList: true, characterData: true, subtree: true });
      watch('table-status', window.__texts.status);
      watch('progress-stage', window.__texts.progress);
    });
  });
  await page.goto(`${server.url}?float=pair/float.onnx&quant=pair/quant.onnx`);
  await waitDrawn(page);
  return page;
}

/** Exports `what` ('json', or an image format of `scope`) and keeps the file under `name`. */
async function exported(page, what, name, scope = 'view') {
  const download = what === 'json'
    ? (await Promise.all([page.waitForEvent('download'), page.click('#export-json')]))[0]
    : await exportGraphs(page, what, scope);
  const file = path.join(outDir, name);
  copyFileSync(await download.path(), file);
  return { file, suggested: download.suggestedFilename() };
}

const drawnIds = (page, side) => page.$$eval(`#graph-${side} li[data-id]`, (l) => l.map((li) => li.dataset.id));

/** The node names (SVG <title>s) of each pane of an exported SVG. */
async function svgPanes(page, file) {
  const text = readFileSync(file, 'utf8');
  return page.evaluate((text) => {
    const doc = new DOMParser().parseFromString(text, 'image/svg+xml');
    return [...doc.documentElement.children].filter((g) => g.tagName === 'g').map((g) => [...g.querySelectorAll('g.node > title')].map((t) => t.textContent));
  }, text);
}

test('the SVG of the whole graphs holds every node of both; of the selection, it and its neighbours only', async () => {
  const page = await openPair();
  const whole = await exported(page, 'svg', 'whole.svg', 'whole');
  assert.match(whole.suggested, /-graphs\.svg$/);
  const [f, q] = await svgPanes(page, whole.file);
  assert.deepEqual(f.sort(), (await drawnIds(page, 'float')).sort(), 'every float node');
  assert.deepEqual(q.sort(), (await drawnIds(page, 'quant')).sort(), 'every quantized node');

  await findNode(page, '/stage3/block7/relu/Relu');
  const near = await exported(page, 'svg', 'selection.svg', 'selection');
  const [nf, nq] = await svgPanes(page, near.file);
  for (const [names, side] of [[nf, 'float'], [nq, 'quant']]) {
    assert.ok(names.includes('/stage3/block7/relu/Relu'), `${side}: the selected node`);
    assert.ok(names.includes('/stage3/block7/conv1/Conv') && names.includes('/stage3/block7/conv2/Conv'), `${side}: its neighbours`);
    assert.ok(names.length < 40, `${side}: only the neighbourhood (${names.length} nodes)`);
  }
  await assertClean(page);
  await page.close();
});

test('the PNG of the whole graphs is larger than the view and within one canvas; the HTML report carries the whole graphs', async () => {
  const page = await openPair();
  const view = await exported(page, 'png', 'view.png');
  const whole = await exported(page, 'png', 'whole.png', 'whole');
  // A PNG's size is in its IHDR chunk, first after the signature: width and height, big-endian.
  const size = (file) => {
    const png = readFileSync(file);
    return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
  };
  const [a, b] = [size(view.file), size(whole.file)];
  assert.ok(b.height > 2 * a.height, `taller than the view: ${JSON.stringify({ view: a, whole: b })}`);
  assert.ok(b.height <= 16384 && b.width <= 16384 && b.width * b.height <= 40e6, `within one canvas: ${JSON.stringify(b)}`);

  const html = await exported(page, 'html', 'report.html', 'whole');
  const titles = readFileSync(html.file, 'utf8').match(/<g class="node"/g)?.length ?? 0;
  const total = (await drawnIds(page, 'float')).length + (await drawnIds(page, 'quant')).length;
  assert.equal(titles, total, 'the report draws every node of both graphs');
  await assertClean(page);
  await page.close();
});

test('the selection scope with nothing selected says so; progress is shown for the analysis and the JSON export', async () => {
  const page = await openPair();
  await page.click('#export-graphs');
  await page.check('#export-menu input[value="selection"]');
  await page.click('#export-svg');
  await page.waitForSelector('#error:not([hidden])');
  assert.match(await page.textContent('#error'), /Nothing is selected/);
  await screenshot(page, '18-export-nothing-selected');

  const status = await page.evaluate(() => window.__texts.status);
  assert.ok(status.some((t) => /^Analysing weights: \d+ of \d+ layers, \d+ %$/.test(t)), `the analysis said how far it was: ${JSON.stringify(status.slice(0, 5))}`);
  assert.ok(status.includes(`Analysing weights: ${BLOCKS * 2} of ${BLOCKS * 2} layers, 100 %`), 'and when it was done');

  const json = await exported(page, 'json', 'report.json');
  assert.equal(JSON.parse(readFileSync(json.file, 'utf8')).weights.layers.length, BLOCKS * 2);
  const progress = await page.evaluate(() => window.__texts.progress);
  assert.ok(progress.some((t) => t.startsWith('Preparing the JSON report')), `the export showed progress: ${JSON.stringify(progress.slice(-3))}`);
  assert.ok(await page.isHidden('#progress'), 'and the card is gone after it');
  await page.close();
});
