// A decoder's pair (a small Llama-shaped float16 model and its MatMulNBits 4-bit version, as
// bench/make_llm_pair.py writes them, weights in external-data files) opens on its layers: each
// model/layers.N a closed group on both sides, the same groups, a click on one opens it on both,
// Expand all draws every op. A pair of a few hundred ops without a stack of layers opens whole (the
// fixture pairs, tested elsewhere: groups.test.mjs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { assertClean, clickNode, newPage, root, screenshot, useBrowserOnFolder, waitDrawn, waitListed } from './harness.mjs';

const LAYERS = 24;
const env = useBrowserOnFolder('/llm/', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'vq-layer-stack-'));
  const r = spawnSync('/usr/bin/python3', [path.join(root, 'bench/make_llm_pair.py'), dir, '--layers', String(LAYERS), '--d', '64', '--ffn', '128',
    '--vocab', '96', '--heads', '4'], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return dir;
});

const groupIds = (page, side) => page.$$eval(`#graph-${side} li[data-kind="group"]`, (lis) => lis.map((li) => li.dataset.id).sort());
const opCount = (page, side) => page.$$eval(`#graph-${side} li[data-kind="op"]`, (lis) => lis.length);

test('a decoder opens on its layers, the same on both sides; a layer opens with a click; Expand all draws every op', async () => {
  const page = await newPage(env.browser.context);
  await page.goto(`${env.server.url}?float=llm/float.onnx&quant=llm/quant.onnx&data=llm/float.onnx.data&data=llm/quant.onnx.data`);
  await waitDrawn(page);
  const layers = Array.from({ length: LAYERS }, (_, i) => `model/layers.${i}`).sort();
  for (const side of ['float', 'quant']) {
    const groups = await groupIds(page, side);
    assert.deepEqual(groups.filter((g) => g.startsWith('model/layers.')), layers, `${side}: every layer a closed group`);
    assert.ok((await opCount(page, side)) < 20, `${side}: only the ops outside the layers are drawn`);
  }
  assert.match(await page.textContent('#count-float'), /nodes drawn/);
  await screenshot(page, 'layer-stack-first-view');

  // A click on layer 3's node opens it, on both sides: its parts are drawn (attention and MLP, closed
  // in turn), the other layers stay closed.
  await clickNode(page, 'float', 'model/layers.3');
  await page.keyboard.press('Enter');
  await waitListed(page, () => !document.querySelector('#graph-float li[data-kind="group"][data-id="model/layers.3"]'));
  for (const side of ['float', 'quant']) {
    const groups = await groupIds(page, side);
    assert.ok(!groups.includes('model/layers.3') && groups.includes('model/layers.4'), `${side}: layer 3 open, layer 4 closed`);
    assert.ok(groups.includes('model/layers.3/attn') && groups.includes('model/layers.3/mlp'), `${side}: layer 3's parts drawn`);
  }

  await page.click('#expand-all');
  await waitListed(page, () => document.querySelectorAll('#graph-float li[data-kind="group"]').length === 0);
  const model = await page.$eval('#count-float', (e) => e.textContent);
  assert.ok((await opCount(page, 'float')) > LAYERS * 20, `every op drawn after Expand all (${model})`);
  await screenshot(page, 'layer-stack-expanded');
  await assertClean(page);
  await page.close();
});
