// Measured label sizes in Chromium: the page measures every label with the canvas font and the
// core lays out boxes that fit them, snugly (the core's own estimate, 7 px a character, is wider
// for most op types and narrower for some names), in the logical and the raw view, and for
// collapsed groups.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertClean, openFixturePair, screenshot, useBrowser } from './harness.mjs';

const env = useBrowser();

/** Every drawn node of both sides with its box width and its label's width in the view's font. */
function boxes(page) {
  return page.evaluate(() => {
    const ctx = document.createElement('canvas').getContext('2d');
    ctx.font = '12px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
    return [...document.querySelectorAll('.node-list li[data-id]')].map((li) => {
      const text = li.dataset.kind === 'group' ? `▸ ${li.dataset.label} (${li.dataset.members})` : li.dataset.label;
      return { id: li.dataset.id, kind: li.dataset.kind, text, w: Number(li.dataset.w), measured: ctx.measureText(text).width };
    });
  });
}

function assertFitted(list, what) {
  assert.ok(list.length > 0, what);
  for (const b of list) {
    if (b.text.length > 40) continue;  // long names are cut with an ellipsis, at the core's widest box
    assert.ok(b.w >= b.measured + 10, `${what}: ${b.text} fits its ${b.w} px box (${b.measured.toFixed(1)} px of text)`);
    assert.ok(b.w <= Math.max(40, b.measured + 24), `${what}: ${b.text}'s ${b.w} px box is snug (${b.measured.toFixed(1)} px of text)`);
  }
}

test('boxes fit their labels as the page measures them (logical view, raw view, collapsed groups)', async () => {
  const page = await openFixturePair(env, 'ort_fused_transformer');
  assertFitted((await boxes(page)).filter((b) => b.kind === 'op'), 'logical view');
  await screenshot(page, '25-measured-labels');
  await page.check('#raw-view');
  await page.waitForSelector('#graphs[data-view="nodes"]');
  assertFitted((await boxes(page)).filter((b) => b.kind === 'op'), 'raw view');
  await page.click('#collapse-all');
  await page.waitForSelector('#graph-float li[data-kind="group"]');
  assertFitted((await boxes(page)).filter((b) => b.kind === 'group'), 'collapsed groups');
  await assertClean(page);
  await page.close();
});
