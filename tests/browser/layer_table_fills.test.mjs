// The layer table fills while the weights are analysed: the worker analyses a slice of weights at a
// time (largest first) and sends each slice's layers; the table shows them unranked (the core ranks
// once every layer is done: a layer's sensitivity weighs its share of all the parameters), says so,
// and ends with the core's ranked table. A Llama-shaped pair from bench/make_llm_pair.py of about
// 18 M analysed parameters: several slices of 4 M.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { assertClean, newPage, root, screenshot, useBrowserOnFolder, waitDrawn } from './harness.mjs';

const env = useBrowserOnFolder('/llm/', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'vq-table-fills-'));
  const r = spawnSync('/usr/bin/python3', [path.join(root, 'bench/make_llm_pair.py'), dir, '--layers', '4', '--d', '512', '--ffn', '1536',
    '--vocab', '8192', '--heads', '8'], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return dir;
});

test('the layer table shows each slice\'s layers unranked as they are analysed, then the ranked table', async () => {
  const page = await newPage(env.browser.context);
  // Every change of the table's rows, as the page made it: each slice's message is a task of its own.
  await page.addInitScript(() => {
    window.__tableStates = [];
    document.addEventListener('DOMContentLoaded', () => {
      const table = document.getElementById('layer-table');
      new MutationObserver(() => {
        const rows = [...table.querySelectorAll('tbody tr[data-entry]')];
        window.__tableStates.push({
          rows: rows.length,
          unranked: rows.filter((r) => r.dataset.rank === '').length,
          rankCells: rows.map((r) => r.cells[0].textContent),
          count: document.getElementById('table-count').textContent,
        });
      }).observe(table, { childList: true, subtree: true });
    });
  });
  await page.goto(`${env.server.url}?float=llm/float.onnx&quant=llm/quant.onnx&data=llm/float.onnx.data&data=llm/quant.onnx.data`);
  await waitDrawn(page);
  const states = (await page.evaluate(() => window.__tableStates)).filter((s) => s.rows > 0);
  const final = states.at(-1);
  const partial = states.filter((s) => s.unranked > 0);
  // 4 layers of 7 projections and the output projection: 29 MatMul → MatMulNBits pairs.
  assert.equal(final.rows, 29);
  assert.equal(final.unranked, 0);
  assert.deepEqual(final.rankCells, Array.from({ length: 29 }, (_, i) => String(i + 1)));
  assert.match(final.count, /^29 layers$/);
  assert.ok(partial.length >= 2, `the table filled in steps before the ranking: ${JSON.stringify(states.map((s) => s.rows))}`);
  for (const s of partial) {
    assert.equal(s.unranked, s.rows, 'a table still filling ranks nothing');
    assert.ok(s.rankCells.every((c) => c === '…'));
    assert.match(s.count, new RegExp(`^${s.rows} layers so far, unranked$`));
    assert.ok(s.rows < 29);
  }
  assert.ok(partial.every((s, i) => i === 0 || s.rows >= partial[i - 1].rows), 'rows are only added');
  await screenshot(page, 'layer-table-filled');
  await assertClean(page);
  await page.close();
});
