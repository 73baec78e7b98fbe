// The page on a 1366×768 laptop screen, in both themes: the toolbar stays on one line, the graphs
// keep most of the height, the minimaps stay small, nothing overflows the window.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertClean, clickNode, openFixturePair, screenshot, setTheme, useBrowser } from './harness.mjs';

const env = useBrowser();

test('at 1366×768: one toolbar line, graphs in most of the height, small minimaps, no overflow', async () => {
  const page = await openFixturePair(env, 'ort_fused_transformer', { width: 1366, height: 768 });
  await clickNode(page, 'float', '/layer0/attn/q_proj/MatMul');
  const m = await page.evaluate(() => {
    // What is on the toolbar itself (not in its closed menu).
    const tops = [...document.querySelectorAll('.toolbar button, .toolbar .file-button, .toolbar select')].filter((e) => e.offsetParent !== null)
      .map((e) => Math.round(e.getBoundingClientRect().top));
    const pane = document.getElementById('graph-float').getBoundingClientRect();
    const mini = document.querySelector('#graph-float .minimap').getBoundingClientRect();
    return {
      rows: Math.max(...tops) - Math.min(...tops) < 12 ? 1 : 2, paneHeight: pane.height, paneWidth: pane.width, mini: [mini.width, mini.height],
      overflow: [document.documentElement.scrollWidth > innerWidth, document.documentElement.scrollHeight > innerHeight],
    };
  });
  assert.equal(m.rows, 1, 'the toolbar on one line');
  assert.ok(m.paneHeight >= 340, `graph panes ${m.paneHeight} px tall`);
  assert.ok(m.mini[0] <= 0.3 * m.paneWidth && m.mini[1] <= 0.3 * m.paneHeight, `minimap ${m.mini} in a ${m.paneWidth}×${m.paneHeight} pane`);
  assert.deepEqual(m.overflow, [false, false]);
  for (const theme of ['light', 'dark']) {
    await setTheme(page, theme);
    await screenshot(page, `29-laptop-${theme}`);
  }
  await page.click('#tab-fusions');
  await page.click('#fusion-table tbody tr[data-index="1"]');
  await screenshot(page, '30-laptop-fusions-dark');
  await assertClean(page);
  await page.close();
});

test('at 1366×768 the tables fit their panel on one header line, names lose their middle, and the fusion diagram is whole', async () => {
  const page = await openFixturePair(env, 'torch_eager_ptq_cnn_deadchannel', { width: 1366, height: 768 });
  const fit = (id) => page.evaluate((id) => {
    const t = document.getElementById(id);
    const scroller = t.closest('.table-scroll');
    const tall = [...t.querySelectorAll('thead th')].filter((th) => th.getBoundingClientRect().height > 28).map((th) => th.textContent);
    return { width: t.scrollWidth, room: scroller.clientWidth, tall };
  }, id);
  const layers = await fit('layer-table');
  assert.ok(layers.width <= layers.room + 1, `the layer table's columns all in view: ${layers.width} px in ${layers.room}`);
  assert.deepEqual(layers.tall, [], 'every header on one line');
  // A node name cut for its cell keeps its op's own name at the end; the tooltip has it whole.
  const names = await page.$$eval('#layer-table td.name', (tds) => tds.map((td) => [td.textContent, td.title]));
  assert.ok(names.length > 0);
  for (const [text, full] of names) {
    assert.ok(text === full || (text.includes('…') && text.endsWith(full.slice(full.lastIndexOf('/')))), `${text} for ${full}`);
  }

  await page.click('#tab-fusions');
  await page.click('#fusion-table tbody tr[data-index="0"]');
  const fusions = await fit('fusion-table');
  assert.ok(fusions.width <= fusions.room + 1, `the fusion table in its panel: ${fusions.width} px in ${fusions.room}`);
  assert.deepEqual(fusions.tall, [], 'fusion headers on one line');
  // Nothing drawn touches the diagram's right edge: no label or box is cut there.
  const edge = await page.evaluate(() => {
    const c = document.querySelector('#fusion-detail canvas');
    const ctx = c.getContext('2d');
    const data = ctx.getImageData(c.width - 3, 0, 3, c.height).data;
    const bg = ctx.getImageData(c.width - 1, 0, 1, 1).data;
    let other = 0;
    for (let i = 0; i < data.length; i += 4) if (Math.abs(data[i] - bg[0]) + Math.abs(data[i + 1] - bg[1]) + Math.abs(data[i + 2] - bg[2]) > 30) other++;
    const panel = document.getElementById('fusion-detail').getBoundingClientRect(), box = c.getBoundingClientRect();
    return { other, inside: box.right <= panel.right + 0.5 };
  });
  assert.deepEqual(edge, { other: 0, inside: true }, 'the fusion diagram is whole');
  await screenshot(page, '18-laptop-fusion-diagram');

  await page.click('#tab-lint');
  assert.deepEqual((await fit('lint-table')).tall, [], 'lint headers on one line');
  await assertClean(page);
  await page.close();
});

test('in a narrow window the layer table scrolls sideways with its rank and float node kept in view', async () => {
  const page = await openFixturePair(env, 'torch_eager_ptq_cnn_deadchannel', { width: 1000, height: 720 });
  const at = () => page.evaluate(() => {
    const scroller = document.getElementById('layers-panel');
    const box = scroller.getBoundingClientRect();
    const cells = [...document.querySelectorAll('#layer-table tbody tr:first-child td')].slice(0, 3).map((td) => td.getBoundingClientRect().left - box.left);
    return { scrollable: scroller.scrollWidth - scroller.clientWidth, cells };
  });
  const before = await at();
  assert.ok(before.scrollable > 0, 'the table is wider than its panel here');
  await page.$eval('#layers-panel', (s) => { s.scrollLeft = s.scrollWidth; });
  const after = await at();
  assert.ok(Math.abs(after.cells[0] - before.cells[0]) < 1 && Math.abs(after.cells[1] - before.cells[1]) < 1, `rank and float node stay: ${JSON.stringify({ before, after })}`);
  assert.ok(after.cells[2] < before.cells[2] - 20, 'the other columns scrolled');
  await screenshot(page, '18-narrow-layer-table');
  await assertClean(page);
  await page.close();
});
