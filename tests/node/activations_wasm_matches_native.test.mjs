// The activation report made in wasm (the core driven by runtime/web/activation_driver.mjs with
// onnxruntime-web, as the page and the extension run it) is byte for byte the native CLI's with the
// same engine (`visualquant activations --engine web --json -`), on real exports of every form, with
// synthetic inputs and with .npy files.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as ort from 'onnxruntime-web';
import { cli, root } from './paths.mjs';
import { wasmCore } from './wasm_core.mjs';
import { engineLabel, runActivations, ActivationsCancelled } from '../../runtime/web/activation_driver.mjs';
import { npy } from '../activations/peer_measure.mjs';

ort.env.wasm.numThreads = 1;
const engine = engineLabel('onnxruntime-web', JSON.parse(readFileSync(path.join(root, 'node_modules/onnxruntime-web/package.json'), 'utf8')).version);
const pairsDir = path.join(root, 'tests/fixtures/pairs');
const pairs = ['torch_eager_ptq_cnn', 'ort_qoperator_cnn', 'ort_dynamic_mlp', 'ort_matmulnbits_4bit', 'ortopt_transformer_ptq'];

function native(args) {
  const r = spawnSync(cli, ['activations', ...args, '--engine', 'web', '--json', '-'], { encoding: 'utf8', maxBuffer: 1 << 28 });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout;
}

async function inWasm(pair, options = {}, inputFiles = {}) {
  const floatBytes = readFileSync(path.join(pairsDir, pair, 'float.onnx'));
  const quantBytes = readFileSync(path.join(pairsDir, pair, 'quant.onnx'));
  const core = await wasmCore();
  const comparison = core.open(floatBytes, 'float.onnx', quantBytes, 'quant.onnx');
  try {
    const run = comparison.startActivations(options, inputFiles);
    const seen = [];
    const report = await runActivations(run, { ort, engine, floatBytes, quantBytes, onProgress: (r) => seen.push(r.index) });
    return { report, seen };
  } finally {
    comparison.close();
  }
}

for (const pair of pairs) {
  test(`wasm-driven activations == native CLI (onnxruntime-web both): ${pair}`, async () => {
    const { report, seen } = await inWasm(pair);
    const expected = native([path.join(pairsDir, pair, 'float.onnx'), path.join(pairsDir, pair, 'quant.onnx')]);
    assert.equal(report, expected);
    const parsed = JSON.parse(report);
    assert.equal(seen.length, parsed.runtime.runs);
    assert.deepEqual(seen, [...seen.keys()]);
  });
}

test('with .npy inputs, two samples and several chunks, the same bytes', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'vq-act-wasm-'));
  try {
    const files = {};
    for (const [k, name] of ['x0.npy', 'x1.npy'].entries()) {
      const data = Float32Array.from({ length: 3 * 16 * 16 }, (_, i) => Math.cos(i * 0.37 + k));
      writeFileSync(path.join(dir, name), npy('float32', [1, 3, 16, 16], data));
      files[name] = readFileSync(path.join(dir, name));
    }
    const pair = 'torch_eager_ptq_cnn';
    const { report } = await inWasm(pair, {
      inputs: [{ name: 'input', file: 'x0.npy' }, { name: 'input', file: 'x1.npy' }], tap_budget_bytes: 16384 }, files);
    const expected = native([path.join(pairsDir, pair, 'float.onnx'), path.join(pairsDir, pair, 'quant.onnx'),
      '--input', `input=${path.join(dir, 'x0.npy')}`, '--input', `input=${path.join(dir, 'x1.npy')}`, '--tap-budget', '16K']);
    assert.equal(report, expected);
    assert.ok(JSON.parse(report).runtime.tap_chunks > 1);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a bad input file is a clear error from the core, and the comparison stays usable', async () => {
  const floatBytes = readFileSync(path.join(pairsDir, 'torch_eager_ptq_cnn', 'float.onnx'));
  const quantBytes = readFileSync(path.join(pairsDir, 'torch_eager_ptq_cnn', 'quant.onnx'));
  const core = await wasmCore();
  const comparison = core.open(floatBytes, 'float.onnx', quantBytes, 'quant.onnx');
  try {
    assert.throws(() => comparison.startActivations({ inputs: [{ name: 'input', file: 'x.npy' }] }, { 'x.npy': new Uint8Array([1, 2, 3]) }),
      (e) => e.code === 'invalid_input_file');
    assert.throws(() => comparison.startActivations({ inputs: [{ name: 'nosuch', file: 'y.npy' }] }, { 'y.npy': npy('float32', [1], new Float32Array(1)) }),
      (e) => e.code === 'input_mismatch');
    const run = comparison.startActivations({});
    assert.ok(run.request);
    // Cancelled between runs.
    const controller = new AbortController();
    controller.abort();
    await assert.rejects(runActivations(run, { ort, engine, floatBytes, quantBytes, signal: controller.signal }),
      (e) => e instanceof ActivationsCancelled);
    assert.ok(!core.failed);
  } finally {
    comparison.close();
  }
});
