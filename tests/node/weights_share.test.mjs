// The weights summary shared between two wasm instances (OpenComparison.weightsShare, weightsResults,
// weightsAbsorb: the page's helper core, web/src/worker/weights_helper.ts): each instance opens the
// pair, leads with its share, and one absorbs the other's results slice by slice. The summary and the
// lint are the bytes one instance makes alone, and the native CLI's table ranks the same layers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { root } from './paths.mjs';
import { wasmCore, wasmModuleExports } from './wasm_core.mjs';

const pairsDir = path.join(root, 'tests/fixtures/pairs');
const PAIRS = ['torch_eager_ptq_cnn_bnfolded', 'torch_transformer_ptq', 'ort_matmulnbits_4bit', 'ort_qdq_cnn_uint8'];
// A few thousand parameters a slice: these small pairs take several.
const SLICE = 4096;

test('two instances sharing the summary make the bytes one instance makes, and the same lint', async () => {
  const { loadVisualQuant } = await wasmModuleExports();
  const { wasmDist } = await import('./paths.mjs');
  const one = await wasmCore();
  const other = await loadVisualQuant({ wasmBinary: readFileSync(path.join(wasmDist, 'visualquant_core.wasm')) });
  for (const pair of PAIRS) {
    const f = readFileSync(path.join(pairsDir, pair, 'float.onnx')), q = readFileSync(path.join(pairsDir, pair, 'quant.onnx'));
    const alone = one.open(f, 'float.onnx', q, 'quant.onnx');
    const summary = alone.weights(0, { detail: false }), lint = alone.lint();
    alone.close();

    const helper = other.open(f, 'float.onnx', q, 'quant.onnx');
    const main = one.open(f, 'float.onnx', q, 'quant.onnx');
    helper.weightsShare(1, 2);
    main.weightsShare(0, 2);
    const sent = [];
    for (let s = helper.weightsSlice(SLICE); ; s = helper.weightsSlice(SLICE)) {
      sent.push(helper.weightsResults());
      assert.equal(s.done, false, `${pair}: the helper does only its share`);
      if (s.shareDone) break;
    }
    let layers = 0, slice;
    for (const bytes of sent) {
      slice = main.weightsAbsorb(bytes);
      layers += slice.layers.length;
      assert.equal(slice.done, false);
    }
    assert.ok(layers > 0, `${pair}: the helper's share has layers`);
    while (!(slice = main.weightsSlice(SLICE)).done) layers += slice.layers.length;
    layers += slice.layers.length;
    const shared = main.weights(0, { detail: false });
    assert.equal(layers, JSON.parse(summary).layers.length, `${pair}: every layer analysed once`);
    assert.equal(shared, summary, pair);
    assert.equal(main.lint(), lint, pair);
    main.close();
    helper.close();
  }
});

test('results that are not of this pairing are refused with a usage error', async () => {
  const vq = await wasmCore();
  const read = (pair, f) => readFileSync(path.join(pairsDir, pair, f));
  const a = vq.open(read('torch_transformer_ptq', 'float.onnx'), 'float.onnx', read('torch_transformer_ptq', 'quant.onnx'), 'quant.onnx');
  const b = vq.open(read('torch_eager_ptq_cnn', 'float.onnx'), 'float.onnx', read('torch_eager_ptq_cnn', 'quant.onnx'), 'quant.onnx');
  b.weightsShare(0, 2);
  while (!b.weightsSlice(0).shareDone);
  const ofB = b.weightsResults();
  const summary = (() => {
    const c = vq.open(read('torch_transformer_ptq', 'float.onnx'), 'float.onnx', read('torch_transformer_ptq', 'quant.onnx'), 'quant.onnx');
    const s = c.weights(0, { detail: false });
    c.close();
    return s;
  })();
  for (const bytes of [ofB, new Uint8Array([1, 2, 3]), new Uint8Array(0)])
    assert.throws(() => a.weightsAbsorb(bytes), (e) => e.code === 'usage');
  assert.equal(a.weights(0, { detail: false }), summary, 'the refused bytes changed nothing');
  a.close();
  b.close();
});

test('two instances exchanging results after every slice, each taking the other\'s pairs once done with its share, make one instance\'s bytes: the summary and the full report (the JSON export)', async () => {
  const { loadVisualQuant } = await wasmModuleExports();
  const { wasmDist, cli } = await import('./paths.mjs');
  const one = await wasmCore();
  const other = await loadVisualQuant({ wasmBinary: readFileSync(path.join(wasmDist, 'visualquant_core.wasm')) });
  const runs = [{ detail: false, bins: 0 }, { detail: true, bins: 0 }, { detail: true, bins: 17 }];
  for (const pair of PAIRS) {
    const f = readFileSync(path.join(pairsDir, pair, 'float.onnx')), q = readFileSync(path.join(pairsDir, pair, 'quant.onnx'));
    for (const run of runs) {
      const what = `${pair}, ${run.detail ? `full report, ${run.bins} bins` : 'summary'}`;
      const alone = one.open(f, 'float.onnx', q, 'quant.onnx');
      const report = alone.weights(run.bins, { detail: run.detail }), lint = alone.lint();
      alone.close();
      const main = one.open(f, 'float.onnx', q, 'quant.onnx');
      const helper = other.open(f, 'float.onnx', q, 'quant.onnx');
      main.weightsShare(0, 2, run);
      helper.weightsShare(1, 2, run);
      // As the page's cores do: each slice's results go to the other, which skips those pairs. Either
      // may finish the run, by its own slice or by what it absorbs; the last slice's results come too.
      let done = false, helperDone = false, steps = 0;
      while (!done) {
        const s = main.weightsSlice(SLICE, run);
        if (run.detail) assert.deepEqual(s.layers, [], 'a full report\'s slices carry no layers');
        done = s.done;
        if (!helperDone) {
          helperDone = helper.weightsSlice(SLICE, run).done;
          if (!helperDone) helperDone = helper.weightsAbsorb(main.weightsResults(run), run).done;
          if (!done) ({ done } = main.weightsAbsorb(helper.weightsResults(run), run));
        }
        assert.ok(++steps < 10000);
      }
      assert.equal(main.weights(run.bins, { detail: run.detail }), report, what);
      if (!run.detail) assert.equal(main.lint(), lint, what);
      // The summary and the full report are separate runs: neither makes the other.
      if (run.detail) assert.equal(main.weightsSlice(1).done, false, `${what}: the summary is not made by the full report`);
      main.close();
      helper.close();
    }
  }
  // And the native CLI's bytes (default bins).
  const [pair] = PAIRS;
  const f = path.join(pairsDir, pair, 'float.onnx'), q = path.join(pairsDir, pair, 'quant.onnx');
  const { spawnSync } = await import('node:child_process');
  const native = spawnSync(cli, ['weights', f, q, '--json', '-'], { encoding: 'utf8', maxBuffer: 1 << 26 }).stdout;
  const main = one.open(readFileSync(f), path.basename(f), readFileSync(q), path.basename(q));
  main.weightsShare(0, 1, { detail: true });
  while (!main.weightsSlice(SLICE, { detail: true }).done);
  assert.equal(main.weights(0, { detail: true }).trimEnd(), native.trimEnd());
  main.close();
});

test('a full report begun in slices is finished by weights(), and asked for other bins it is made afresh', async () => {
  const vq = await wasmCore();
  const read = (f) => readFileSync(path.join(pairsDir, 'torch_transformer_ptq', f));
  const c = vq.open(read('float.onnx'), 'float.onnx', read('quant.onnx'), 'quant.onnx');
  const whole = c.weights(0, { detail: true }), other = c.weights(9, { detail: true });
  assert.equal(c.weightsSlice(SLICE, { detail: true }).done, false);
  assert.equal(c.weights(9, { detail: true }), other, 'other bins: made in one go');
  assert.equal(c.weights(0, { detail: true }), whole, 'the run begun is finished');
  assert.throws(() => c.weightsSlice(SLICE, { bins: 9 }), (e) => e.code === 'usage', 'the summary has the default bins only');
  c.close();
});
