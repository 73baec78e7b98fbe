// A quantized model whose parameters break the spec (tests/fixtures/malformed/quant_params) opens in
// the page like any other: both graphs drawn with the op in them, the node's detail carrying the
// error-severity lint finding with the numbers, and the layer table saying that a weight was not
// analysed instead of leaving it out silently.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { assertClean, clickNode, newPage, root, screenshot, useBrowser, waitDrawn } from './harness.mjs';

const cases = path.join(root, 'tests/fixtures/malformed/quant_params');
const env = useBrowser([['/cases/', cases]]);

for (const [pair, node, words] of [
  ['convinteger_weight_zero_point_length', 'conv_quant', 'weight zero point has 3 values, but the weight has 16 output channels'],
  ['mnb_bits_not_allowed', 'fc_Q4', 'bits is 16'],
]) {
  test(`${pair}: drawn, the op in the view, the finding on it, the table says what was not analysed`, async () => {
    const page = await newPage(env.browser.context);
    await page.goto(`${env.server.url}?float=cases/${pair}/float.onnx&quant=cases/${pair}/quant.onnx`);
    await waitDrawn(page);
    assert.match(await page.textContent('#table-count'), /1 not analysed: invalid quantization parameters \(see the lint\)/);
    assert.match(await page.textContent('#table-status'), /lint finding/);
    if (node) {
      await clickNode(page, 'quant', node);
      await page.waitForSelector('#detail .lint-list li');
      const lint = await page.textContent('#detail .lint-list');
      assert.ok(lint.includes(words), lint);
      assert.match(lint, /error/i);
      await page.waitForSelector('#detail [data-field="weight-charts"][data-loaded="true"]');
      const weights = await page.textContent('#detail [data-field="weight-charts"]');
      assert.match(weights, /Not analysed: the quantized weight's quantization parameters break the spec/);
      assert.ok(weights.includes(words), weights);
      const fusion = await page.textContent('#detail');
      assert.doesNotMatch(fusion, /not constant|no quantized weight/);
    }
    await screenshot(page, `invalid-quant-params-${pair}`);
    await assertClean(page);
    await page.close();
  });
}
