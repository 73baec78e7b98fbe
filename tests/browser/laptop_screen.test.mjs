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
    const tops = [...document.querySelectorAll('.toolbar button, .toolbar .file-button, .toolbar select')].map((e) => Math.round(e.getBoundingClientRect().top));
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
