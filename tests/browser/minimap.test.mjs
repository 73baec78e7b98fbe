// The minimap of each graph in Chromium: drawn once per layout or colouring (not per frame), its
// viewport rectangle follows the view, and a click or a drag on it moves the view there.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertClean, nodeInView, openFixturePair, screenshot, setTheme, useBrowser } from './harness.mjs';

const PAIR = 'torch_eager_ptq_cnn_perchannel';
const env = useBrowser();

const minimap = (page, side) => page.$eval(`#graph-${side} .minimap`, (c) => ({ renders: Number(c.dataset.renders), viewport: c.dataset.viewport }));
const frame = (page) => page.waitForFunction(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(() => done(true)))));

test('the minimap shows the viewport, is drawn once per layout, and moves the view on click and drag', async () => {
  const page = await openFixturePair(env, PAIR);
  for (let i = 0; i < 3; i++) await page.click('#zoom-in');
  await frame(page);
  const first = await minimap(page, 'float');
  assert.ok(first.renders >= 1 && first.viewport, 'drawn, with the viewport');
  const canvas = page.locator('#graph-float .graph-canvas');
  for (let i = 0; i < 10; i++) await canvas.dispatchEvent('wheel', { deltaY: 40 });
  await frame(page);
  const panned = await minimap(page, 'float');
  assert.equal(panned.renders, first.renders, 'panning does not draw the overview again');
  assert.notEqual(panned.viewport, first.viewport, 'the viewport rectangle follows the view');

  // A click at the bottom of the minimap brings the graph's output into view, on both sides (linked views).
  const box = await page.locator('#graph-float .minimap').boundingBox();
  await page.mouse.click(box.x + box.width / 2, box.y + box.height - 4);
  await frame(page);
  assert.ok(await nodeInView(page, 'float', 'output'), 'float output in view');
  assert.ok(await nodeInView(page, 'quant', 'output'), 'the quantized view followed');
  assert.ok(!(await nodeInView(page, 'float', 'input')), 'the input is out of view');
  // A drag to the top brings the input back.
  await page.mouse.move(box.x + box.width / 2, box.y + box.height - 4);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2, { steps: 4 });
  await page.mouse.move(box.x + box.width / 2, box.y + 4, { steps: 4 });
  await page.mouse.up();
  await frame(page);
  assert.ok(await nodeInView(page, 'float', 'input'), 'float input in view after the drag');

  // New colours draw the overview again.
  await page.selectOption('#overlay', 'heat');
  await frame(page);
  assert.ok((await minimap(page, 'float')).renders > panned.renders, 'redrawn for the new overlay');
  for (const theme of ['light', 'dark']) {
    await setTheme(page, theme);
    await frame(page);
    await screenshot(page, `24-minimap-${theme}`);
  }
  await assertClean(page);
  await page.close();
});
