// A pair of about a thousand nodes (a real model's size) opens at reading size on its inputs, Fit
// stops at reading size until pressed again, and a node selected far away is brought into view with
// its counterpart at reading size; only the user's own zooming goes smaller, and it is kept.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertClean, findNode, generatePair, newPage, nodeInView, screenshot, useBrowserOnFolder, waitDrawn } from './harness.mjs';

const BLOCKS = 280;  // 4 ops a block: 1,121 float nodes against 3,921 quantized ones
const READING_SCALE = 0.75;  // web/src/ui/view_cameras.ts
const env = useBrowserOnFolder('/pair/', () => generatePair('make_large_pair.py', 'vq-reading-', BLOCKS));

const scales = (page) => page.evaluate(() => ['float', 'quant'].map((s) =>
  Number(document.querySelector(`#graph-${s} .graph-canvas`).dataset.transform.split(' ')[0])));

/** Whether every drawn node's centre of one side is inside its view. */
const allInView = (page, side) => page.evaluate((side) => {
  const host = document.getElementById(`graph-${side}`);
  const canvas = host.querySelector('.graph-canvas');
  const [s, tx, ty] = canvas.dataset.transform.split(' ').map(Number);
  const r = canvas.getBoundingClientRect();
  return [...host.querySelectorAll('li[data-id]')].every((li) => {
    const x = tx + Number(li.dataset.x) * s, y = ty + Number(li.dataset.y) * s;
    return x >= 0 && x <= r.width && y >= 0 && y <= r.height;
  });
}, side);

test('a thousand-node pair opens at reading size on its inputs; Fit stops there until pressed again', async () => {
  const page = await newPage(env.browser.context);
  await page.goto(`${env.server.url}?float=pair/float.onnx&quant=pair/quant.onnx`);
  await waitDrawn(page, false);
  for (const s of await scales(page)) assert.ok(s >= READING_SCALE, `opened at scale ${s}`);
  for (const side of ['float', 'quant']) assert.ok(await nodeInView(page, side, 'input'), `${side}: the input is in view`);
  await screenshot(page, '18-reading-size-open');

  await page.click('#zoom-fit');
  for (const s of await scales(page)) assert.equal(s, READING_SCALE, 'Fit stops at reading size');
  assert.ok(!(await allInView(page, 'quant')), 'the whole graph does not fit at reading size');
  await page.click('#zoom-fit');
  for (const s of await scales(page)) assert.ok(s < READING_SCALE, `pressed again, Fit shows the whole graph (scale ${s})`);
  for (const side of ['float', 'quant']) assert.ok(await allInView(page, side), `${side}: every node in view`);
  await screenshot(page, '18-reading-size-whole');
  await assertClean(page);
  await page.close();
});

test('a node found far away comes into view with its counterpart at reading size; a smaller zoom of the user is kept', async () => {
  const page = await newPage(env.browser.context);
  await page.goto(`${env.server.url}?float=pair/float.onnx&quant=pair/quant.onnx`);
  await waitDrawn(page, false);
  const far = '/stage5/block20/conv2/Conv';
  assert.ok(!(await nodeInView(page, 'float', far)), 'the node is out of view at first');
  await findNode(page, far);
  const [f, q] = await scales(page);
  assert.ok(f >= READING_SCALE && q >= READING_SCALE, `reading size kept: ${f}, ${q}`);
  for (const side of ['float', 'quant']) assert.ok(await nodeInView(page, side, far), `${side}: the node is in view`);
  await screenshot(page, '18-reading-size-found');

  // The user zooms out below reading size: the next selection is brought into view at their size.
  await page.locator('#graph-float .graph-canvas').focus();
  for (let i = 0; i < 6; i++) await page.click('#zoom-out');
  const [own] = await scales(page);
  assert.ok(own < READING_SCALE, `zoomed out to ${own}`);
  const back = '/stage0/block3/relu/Relu';
  await findNode(page, back);
  for (const s of await scales(page)) assert.ok(Math.abs(s - own) < 1e-9, `the user's zoom ${own} is kept: ${s}`);
  for (const side of ['float', 'quant']) assert.ok(await nodeInView(page, side, back), `${side}: the node is in view`);
  await assertClean(page);
  await page.close();
});
