// Collapsible name-scope groups in Chromium: a click on an open group's header closes it (on both
// sides, by name), a click on a collapsed group opens it, Enter does either for the selection,
// Collapse all / Expand all, and linked selection when the counterpart is hidden in a collapsed
// group (the group is selected in its place).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertClean, clickNode, openFixturePair, screenshot, selectedIds, setTheme, useBrowser, waitListed } from './harness.mjs';

const PAIR = 'torch_eager_ptq_cnn_perchannel';
const env = useBrowser();

const drawnIds = (page, side) => page.$$eval(`#graph-${side} li[data-id]`, (lis) => lis.map((li) => li.dataset.id));
const groupNodes = (page, side) => page.$$eval(`#graph-${side} li[data-kind="group"]`, (lis) => lis.map((li) => li.dataset.id).sort());

/** Screen position of an open group's header (its label line), from its box and the canvas transform. */
function headerAt(page, side, name) {
  return page.evaluate(({ side, name }) => {
    const host = document.getElementById(`graph-${side}`);
    const li = [...host.querySelectorAll('.group-list li')].find((l) => l.dataset.name === name);
    if (!li) return null;
    const [x, y] = li.dataset.box.split(' ').map(Number);
    const [s, tx, ty] = host.querySelector('.graph-canvas').dataset.transform.split(' ').map(Number);
    const r = host.querySelector('.graph-canvas').getBoundingClientRect();
    return { x: r.left + tx + (x + 12) * s, y: r.top + ty + (y + 5) * s };
  }, { side, name });
}

/** Zooms in until group headers take clicks (the page ignores them below a readable scale) and
 *  scrolls the group's header into view; returns its screen position. */
async function readableHeader(page, side, name) {
  const scale = () => page.$eval(`#graph-${side} .graph-canvas`, (c) => Number(c.dataset.transform.split(' ')[0]));
  for (let i = 0; i < 8 && (await scale()) < 0.5; i++) await page.click('#zoom-in');
  for (let attempt = 0; attempt < 6; attempt++) {
    const header = await headerAt(page, side, name);
    if (!header) return null;
    const r = await page.$eval(`#graph-${side} .graph-canvas`, (c) => {
      const b = c.getBoundingClientRect();
      return { left: b.left, top: b.top, right: b.right, bottom: b.bottom };
    });
    if (header.x > r.left + 8 && header.x < r.right - 140 && header.y > r.top + 8 && header.y < r.bottom - 140) return header;
    await page.mouse.move((r.left + r.right) / 2, (r.top + r.bottom) / 2);
    await page.mouse.wheel(header.x - (r.left + r.right) / 2, header.y - (r.top + r.bottom) / 2);
    await page.waitForFunction(() => new Promise((done) => requestAnimationFrame(() => done(true))));
  }
  return headerAt(page, side, name);
}

async function waitGroupNode(page, side, name, present = true) {
  await waitListed(page, ({ side, name, present }) =>
    [...document.querySelectorAll(`#graph-${side} li[data-kind="group"]`)].some((li) => li.dataset.id === name) === present, { side, name, present });
}

test('a group header click closes the group on both sides; a counterpart inside it selects the group; a click opens it', async () => {
  const page = await openFixturePair(env, PAIR);
  assert.deepEqual(await groupNodes(page, 'float'), [], 'every group open at first');
  await page.click('#zoom-fit');
  const header = await readableHeader(page, 'float', 'res/conv');
  assert.ok(header, 'the float graph draws the group res/conv');
  await page.mouse.click(header.x, header.y);
  await waitGroupNode(page, 'float', 'res/conv');
  await waitGroupNode(page, 'quant', 'res/conv');
  for (const side of ['float', 'quant']) assert.ok(!(await drawnIds(page, side)).includes('/res/conv/Conv'), `${side}: the Conv is hidden`);
  // The group stays where it was on screen.
  const node = await page.evaluate(() => {
    const host = document.getElementById('graph-float');
    const li = [...host.querySelectorAll('li[data-kind="group"]')].find((l) => l.dataset.id === 'res/conv');
    const [s, tx, ty] = host.querySelector('.graph-canvas').dataset.transform.split(' ').map(Number);
    const r = host.querySelector('.graph-canvas').getBoundingClientRect();
    return { x: r.left + tx + (Number(li.dataset.x) - Number(li.dataset.w) / 2) * s, y: r.top + ty + (Number(li.dataset.y) - Number(li.dataset.h) / 2) * s };
  });
  assert.ok(Math.abs(node.x - (header.x - 12)) < 30 && Math.abs(node.y - (header.y - 5)) < 30, `kept in place: ${JSON.stringify({ node, header })}`);

  // The float Relu's counterpart (the quantized Relu) is inside the quantized res/conv: the group is selected there.
  await clickNode(page, 'float', '/res/relu/Relu');
  assert.deepEqual(await selectedIds(page, 'quant'), ['res/conv']);
  assert.ok((await selectedIds(page, 'float')).includes('/res/relu/Relu'));
  for (let i = 0; i < 3; i++) await page.click('#zoom-in');
  await clickNode(page, 'float', '/res/relu/Relu');
  for (const theme of ['light', 'dark']) {
    await setTheme(page, theme);
    await screenshot(page, `23-group-collapsed-${theme}`);
  }

  // A click on the collapsed group opens it again (on both sides).
  await clickNode(page, 'quant', 'res/conv');
  await waitGroupNode(page, 'quant', 'res/conv', false);
  for (const side of ['float', 'quant']) assert.ok((await drawnIds(page, side)).includes('/res/conv/Conv'), `${side}: the Conv is back`);
  assert.deepEqual(await selectedIds(page, 'quant'), ['/res/conv/Relu'], 'the selection follows into the opened group');
  await assertClean(page);
  await page.close();
});

test('Enter closes the group around the selection and opens a selected group; Collapse all and Expand all', async () => {
  const page = await openFixturePair(env, PAIR);
  await clickNode(page, 'float', '/down/relu/Relu');
  await page.keyboard.press('Enter');
  await waitGroupNode(page, 'float', 'down/relu');
  assert.deepEqual(await selectedIds(page, 'float'), ['down/relu'], 'the closed group holds the selection');
  await page.keyboard.press('Enter');
  await waitGroupNode(page, 'float', 'down/relu', false);
  assert.ok((await selectedIds(page, 'float')).includes('/down/relu/Relu'), 'opened again, the node is selected');

  await page.click('#collapse-all');
  await waitListed(page, () => document.querySelectorAll('#graph-float li[data-kind="group"]').length > 0);
  const top = await page.$$eval('#graph-float .group-list li', (lis) => lis.length);
  assert.equal(top, 0, 'no group is open');
  const float = await groupNodes(page, 'float');
  assert.deepEqual(float, ['down', 'fc', 'flat', 'pool', 'res', 'stem'], 'the top-level groups, each one node');
  assert.equal((await drawnIds(page, 'float')).filter((id) => id.startsWith('/') && id !== '/Add').length, 0, 'no op inside a group drawn');
  // Find a node hidden in a closed group: its group is selected; opening the groups leads to it.
  await page.fill('#search', '/res/conv/Conv');
  await page.waitForSelector('#search-results li[data-side="float"][data-id="/res/conv/Conv"]');
  await page.press('#search', 'Enter');
  assert.deepEqual(await selectedIds(page, 'float'), ['res']);
  assert.match(await page.textContent('#detail'), /res: a closed group of \d+ nodes/);
  await clickNode(page, 'float', 'res');
  await waitGroupNode(page, 'float', 'res', false);
  assert.deepEqual(await selectedIds(page, 'float'), ['res/conv'], 'the next closed group around it');
  await clickNode(page, 'float', 'res/conv');
  await waitGroupNode(page, 'float', 'res/conv', false);
  assert.ok((await selectedIds(page, 'float')).includes('/res/conv/Conv'), 'the node found, selected');
  await page.click('#collapse-all');
  await waitListed(page, () => document.querySelectorAll('#graph-float .group-list li').length === 0);
  // The raw view keeps the groups closed.
  await page.check('#raw-view');
  await page.waitForSelector('#graphs[data-view="nodes"]');
  assert.deepEqual(await groupNodes(page, 'float'), float);
  await page.click('#expand-all');
  await waitListed(page, () => document.querySelectorAll('#graph-float li[data-kind="group"]').length === 0);
  assert.ok((await drawnIds(page, 'float')).includes('/stem/conv/Conv'));
  await assertClean(page);
  await page.close();
});

test('Collapse all after scrolling far down shows the graphs, not empty space; a closed group selects its counterpart group', async () => {
  const page = await openFixturePair(env, PAIR);
  // Reading size, scrolled to the end of the graph (the outputs).
  for (let i = 0; i < 4; i++) await page.click('#zoom-in');
  const box = await page.$eval('#graph-float .graph-canvas', (c) => {
    const r = c.getBoundingClientRect();
    return { x: r.left + r.width / 2, y: r.top + r.height / 2 };
  });
  await page.mouse.move(box.x, box.y);
  for (let i = 0; i < 12; i++) await page.mouse.wheel(0, 800);
  await page.click('#collapse-all');
  await waitListed(page, () => document.querySelectorAll('#graph-float li[data-kind="group"]').length > 0);
  // Some drawn node of each side is on its canvas (before the fix, both canvases were blank until Fit).
  for (const side of ['float', 'quant']) {
    const onScreen = await page.evaluate((side) => {
      const host = document.getElementById(`graph-${side}`);
      const canvas = host.querySelector('.graph-canvas');
      const [s, tx, ty] = canvas.dataset.transform.split(' ').map(Number);
      const { width, height } = canvas.getBoundingClientRect();
      return [...host.querySelectorAll('li[data-id]')].filter((li) => li.dataset.x !== undefined).some((li) => {
        const x = tx + Number(li.dataset.x) * s, y = ty + Number(li.dataset.y) * s;
        return x >= 0 && x <= width && y >= 0 && y <= height;
      });
    }, side);
    assert.ok(onScreen, `${side}: the collapsed graph is in view`);
  }
  await screenshot(page, 'groups-04-collapsed-after-scroll');
  // A closed group (selected through a node hidden in it) selects the other side's closed group
  // of the same name, where it selected nothing before.
  const quantGroups = await groupNodes(page, 'quant');
  assert.ok(quantGroups.includes('res'), quantGroups.join(', '));
  await page.fill('#search', '/res/conv/Conv');
  await page.waitForSelector('#search-results li[data-side="float"][data-id="/res/conv/Conv"]');
  await page.press('#search', 'Enter');
  assert.deepEqual(await selectedIds(page, 'float'), ['res']);
  assert.deepEqual(await selectedIds(page, 'quant'), ['res'], 'the counterpart group is selected');
  await assertClean(page);
  await page.close();
});

test('a pair without name scopes has nothing to collapse: the group buttons are disabled', async () => {
  const page = await openFixturePair(env, 'vendor_quark_qdq');
  assert.deepEqual(await page.$$eval('#collapse-all, #expand-all', (bs) => bs.map((b) => b.disabled)), [true, true]);
  await assertClean(page);
  await page.close();
});
