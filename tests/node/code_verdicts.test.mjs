// The codes' verdicts (not QuantizeLinear's nearest, clipped, and where) on a weight made of the
// delicate cases (ties, codes one off, values beyond the codes' reach, NaN, -inf, a zero point at
// either end, an odd row), as the rule says element by element, and the same in wasm as natively.
// The wasm core runs these loops two elements at a time in SIMD (core/weights/lanes.h), the native
// build lane by lane in plain code: this is where the two must meet.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { cli, root } from './paths.mjs';
import { wasmCore } from './wasm_core.mjs';

test('code verdicts: the rule, element by element, in wasm as natively', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'vq-code-edges-'));
  try {
    const made = spawnSync('/usr/bin/python3', [path.join(root, 'tests/node/make_code_edges_pair.py'), dir], { encoding: 'utf8' });
    assert.equal(made.status, 0, made.stderr);
    const f = path.join(dir, 'float.onnx'), q = path.join(dir, 'quant.onnx');
    const expected = JSON.parse(readFileSync(path.join(dir, 'expected.json'), 'utf8'));
    const native = spawnSync(cli, ['weights', f, q, '--json', '-'], { encoding: 'utf8', maxBuffer: 1 << 26 });
    assert.equal(native.status, 0, native.stderr);
    const core = await wasmCore();
    const open = core.open(readFileSync(f), 'float.onnx', readFileSync(q), 'quant.onnx');
    try {
      assert.equal(open.weights(), native.stdout);
      const [layer] = JSON.parse(native.stdout).layers;
      assert.equal(layer.codes.not_nearest, expected.not_nearest);
      assert.equal(layer.outliers.beyond_clip_range, expected.clipped);
      assert.deepEqual(layer.outliers.first_clipped_indices, expected.first_clipped_indices);
      // The summary's figures are the full report's.
      const [summary] = JSON.parse(open.weights(0, { detail: false })).layers;
      assert.equal(summary.codes.not_nearest, expected.not_nearest);
      assert.equal(summary.error.mean_abs_lsb, layer.error.mean_abs_lsb);
      assert.equal(summary.float.std, layer.float.std);
    } finally {
      open.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
