// A comparison kept open in wasm answers lazily what the CLI prints at once: the alignment report,
// one layer's weight analysis, every layer's, the lint and the paired layouts, byte for byte.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { cli, root } from './paths.mjs';
import { wasmCore } from './wasm_core.mjs';

const pairsDir = path.join(root, 'tests/fixtures/pairs');
const native = (...args) => {
  const r = spawnSync(cli, args, { encoding: 'utf8', maxBuffer: 1 << 28 });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout;
};

for (const pair of ['torch_eager_ptq_cnn_perchannel', 'ort_matmulnbits_4bit', 'vendor_trt_int4_awq', 'ortopt_transformer_ptq']) {
  test(`open comparison == CLI: ${pair}`, async () => {
    const f = path.join(pairsDir, pair, 'float.onnx'), q = path.join(pairsDir, pair, 'quant.onnx');
    const core = await wasmCore();
    const full = JSON.parse(native('compare', f, q, '--json', '-'));
    const open = core.open(readFileSync(f), 'float.onnx', readFileSync(q), 'quant.onnx');
    try {
      const report = JSON.parse(open.report);
      assert.equal(report.weights, undefined);
      const { weights, lint, ...alignment } = full;
      assert.deepEqual(report, alignment);
      assert.equal(open.weights(), native('weights', f, q, '--json', '-'));
      // The summary is the full report without the per-layer detail.
      const summary = JSON.parse(open.weights(0, { detail: false }));
      const stripped = JSON.parse(open.weights());
      for (const layer of stripped.layers) {
        delete layer.histogram;
        for (const side of [layer.float, layer.dequantized]) for (const k of ['quantiles', 'skewness', 'kurtosis']) delete side[k];
        for (const k of Object.keys(layer.channels)) if (!['count', 'changed', 'range_spread', 'worst'].includes(k)) delete layer.channels[k];
        if (layer.codes) delete layer.codes.counts;
        delete layer.outliers.first_indices;
        delete layer.outliers.first_clipped_indices;
      }
      assert.deepEqual(summary, stripped);
      assert.deepEqual(JSON.parse(open.lint()), lint);
      assert.ok(weights.layers.length > 0);
      for (const layer of weights.layers.slice(0, 3)) {
        assert.equal(open.weightLayer(layer.quant_node), native('weights', f, q, '--layer', layer.quant_node));
        assert.equal(open.weightLayer(layer.float_node, 16), native('weights', f, q, '--layer', layer.float_node, '--bins', '16'));
      }
      assert.throws(() => open.weightLayer('no such node'), (e) => e.code === 'not_found');
      // Layouts of the open comparison are the CLI's paired layouts, in both views.
      assert.equal(open.layout(), native('layout', f, q, '--json', '-'));
      assert.equal(open.layout({ view: 'nodes', collapsed: true }), native('layout', f, q, '--nodes', '--collapsed', '--json', '-'));
      // The labels the UI measures before its first layout are the CLI's, in both views.
      assert.equal(open.labels(), native('layout', f, q, '--labels', '--json', '-'));
      assert.equal(open.labels({ view: 'nodes' }), native('layout', f, q, '--labels', '--nodes', '--json', '-'));
      assert.throws(() => open.labels({ view: 'sideways' }), (e) => e.code === 'usage');
      // Sizes the UI measured, per side, are the boxes drawn.
      const estimate = JSON.parse(open.layout());
      const sized = (side, w) => {
        const sizes = new Array(2 * side.stats.model_nodes).fill(NaN);
        for (const n of side.nodes) if (n.kind !== 'group') [sizes[2 * n.index], sizes[2 * n.index + 1]] = [w(n), 30];
        return sizes;
      };
      const measured = JSON.parse(open.layout({
        floatNodeSizes: sized(estimate.float, (n) => 100 + (n.index % 7)), quantNodeSizes: sized(estimate.quant, () => 55),
      }));
      for (const n of measured.float.nodes) assert.deepEqual([n.w, n.h], [100 + (n.index % 7), 30], n.id);
      for (const n of measured.quant.nodes) assert.deepEqual([n.w, n.h], [55, 30], n.id);
    } finally {
      open.close();
    }
    open.close();  // twice is harmless
  });

  test(`the weights summary made a slice at a time is the one made at once: ${pair}`, async () => {
    const f = path.join(pairsDir, pair, 'float.onnx'), q = path.join(pairsDir, pair, 'quant.onnx');
    const core = await wasmCore();
    const once = core.open(readFileSync(f), 'float.onnx', readFileSync(q), 'quant.onnx');
    const sliced = core.open(readFileSync(f), 'float.onnx', readFileSync(q), 'quant.onnx');
    try {
      const summary = once.weights(0, { detail: false });
      const seen = [], found = [];
      let slices = 0;
      // One parameter a slice: each slice is the next pair, largest first.
      for (;;) {
        const slice = sliced.weightsSlice(1, { onProgress: (...p) => seen.push(p) });
        found.push(...slice.layers);
        if (slice.done) break;
        slices++;
      }
      const layers = seen[0][1];
      assert.equal(slices + 1, layers);
      assert.deepEqual(seen.map((p) => p[0]), [...Array(layers + 1).keys()]);  // 0 of N first, then one per pair
      assert.ok(seen.every((p, i) => i === 0 || p[2] >= seen[i - 1][2]));
      assert.equal(seen.at(-1)[2], seen.at(-1)[3]);
      assert.deepEqual(sliced.weightsSlice(1), { done: true, layers: [] });  // done: nothing more to do
      assert.equal(sliced.weights(0, { detail: false }), summary);
      // The slices' layers are the summary's, without the rank and sensitivity known at the end.
      const ranked = JSON.parse(summary).layers.map(({ rank, sensitivity, ...l }) => l);
      const byNode = (a, b) => (a.float_node < b.float_node ? -1 : a.float_node > b.float_node ? 1 : 0);
      assert.deepEqual(found.sort(byNode), ranked.sort(byNode));
      assert.equal(sliced.lint(), once.lint());
    } finally {
      once.close();
      sliced.close();
    }
  });

  test(`a comparison opened in steps is the one opened at once: ${pair}`, async () => {
    const f = path.join(pairsDir, pair, 'float.onnx'), q = path.join(pairsDir, pair, 'quant.onnx');
    const core = await wasmCore();
    const once = core.open(readFileSync(f), 'float.onnx', readFileSync(q), 'quant.onnx');
    const seen = [];
    // One byte a step: each step digests one operator's weight.
    const stepped = await core.openInSteps(readFileSync(f), 'float.onnx', readFileSync(q), 'quant.onnx', {}, {
      stepBytes: 1,
      between: async (p) => { seen.push(p); },
    });
    try {
      assert.equal(stepped.report, once.report);
      assert.ok(seen.length >= 2, `${seen.length} steps`);
      const ops = seen[0].ops;
      assert.ok(seen.every((p, i) => p.ops === ops && p.digested < ops && (i === 0 || p.digested === seen[i - 1].digested + 1)));
      assert.equal(stepped.weights(), once.weights());
      assert.equal(stepped.lint(), once.lint());
    } finally {
      once.close();
      stepped.close();
    }
    // In one step: no pause at all.
    const whole = await core.openInSteps(readFileSync(f), 'float.onnx', readFileSync(q), 'quant.onnx', {}, {
      stepBytes: 1e12,
      between: async () => assert.fail('no step should be left for later'),
    });
    try {
      assert.equal(whole.report, once.report);
    } finally {
      whole.close();
    }
  });
}

test('a pair that cannot be opened names the file at fault, either way round, with the CLI\'s code and message', async () => {
  const core = await wasmCore();
  const good = readFileSync(path.join(pairsDir, 'torch_eager_ptq_cnn', 'float.onnx'));
  const broken = good.subarray(0, 5000);
  const dir = mkdtempSync(path.join(tmpdir(), 'vq-open-'));
  writeFileSync(path.join(dir, 'broken.onnx'), broken);
  const cliError = spawnSync(cli, ['inspect', path.join(dir, 'broken.onnx')], { encoding: 'utf8' }).stderr;
  rmSync(dir, { recursive: true, force: true });
  for (const [a, an, b, bn] of [[broken, 'broken.onnx', good, 'float.onnx'], [good, 'float.onnx', broken, 'broken.onnx']]) {
    assert.throws(() => core.open(a, an, b, bn), (e) => {
      assert.equal(e.code, 'truncated');
      assert.match(e.message, /^broken\.onnx: /);
      assert.ok(cliError.includes(e.message.slice('broken.onnx: '.length)), `${e.message} vs ${cliError}`);
      return true;
    });
  }
});

test('files written into wasm memory chunk by chunk (HeapFile) open as their bytes do, however the size was announced', async () => {
  // The page's worker reads picked files and URLs this way; a URL's length can be missing or
  // understate the body (compressed transfers), so a HeapFile grows past its first size.
  const f = readFileSync(path.join(pairsDir, 'torch_eager_ptq_cnn', 'float.onnx'));
  const q = readFileSync(path.join(pairsDir, 'torch_eager_ptq_cnn', 'quant.onnx'));
  const core = await wasmCore();
  const expected = core.open(f, 'float.onnx', q, 'quant.onnx');
  const want = expected.report;
  expected.close();
  for (const announced of [0, 100, f.length]) {
    const chunked = (bytes) => {
      const file = core.heapFile(announced === f.length ? bytes.length : announced);
      for (let at = 0; at < bytes.length; at += 4093) file.write(bytes.subarray(at, at + 4093));
      assert.equal(file.byteLength, bytes.length);
      return file;
    };
    const a = chunked(f), b = chunked(q);
    const open = core.open(a, 'float.onnx', b, 'quant.onnx');
    try {
      assert.equal(open.report, want, `announced ${announced} bytes`);
      assert.deepEqual(open.fileBytes('float'), new Uint8Array(f));
      // Taken by the session: it is not written into, or given, again.
      assert.throws(() => a.write(new Uint8Array(1)), /given to the core already/);
      assert.throws(() => core.open(a, 'float.onnx', q, 'quant.onnx'), /given to the core already/);
    } finally {
      open.close();
    }
  }
  // One not given to the core is freed by its owner.
  const spare = core.heapFile(10);
  spare.write(new Uint8Array([1, 2, 3]));
  spare.free();
  assert.ok(!core.failed);
});
