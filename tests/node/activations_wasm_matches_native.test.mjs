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
const pairs = ['torch_eager_ptq_cnn', 'ort_qoperator_cnn', 'ort_dynamic_mlp', 'ort_dynamic_if_loop', 'ort_matmulnbits_4bit', 'ortopt_transformer_ptq'];

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

test('without the files\' bytes, the bridge loads the core\'s copies; external data is handed to onnxruntime-web: the CLI\'s bytes', async () => {
  // As the page's worker runs it: it keeps no copy of the models, and weights in an external-data
  // file reach the engine as the externalData the core was given with the model.
  const { fixtures } = await import('./paths.mjs');
  const dir = path.join(fixtures, 'valid/external');
  const model = readFileSync(path.join(dir, 'model.onnx'));
  const core = await wasmCore();
  const comparison = core.open(model, 'model.onnx', model, 'model.onnx', { 'weights.bin': readFileSync(path.join(dir, 'weights.bin')) });
  try {
    assert.equal(comparison.externalData().length, 1);
    const report = await runActivations(comparison.startActivations({}), { ort, engine });
    const expected = native([path.join(dir, 'model.onnx'), path.join(dir, 'model.onnx')]);
    assert.equal(report.replace(/"(float|quantized)_model": "[^"]*"/g, ''), expected.replace(/"(float|quantized)_model": "[^"]*"/g, ''));
    assert.ok(JSON.parse(report).points.length >= 3);
  } finally {
    comparison.close();
  }
  // The swapped order is followed: each side's session gets its own file.
  const a = readFileSync(path.join(pairsDir, 'torch_eager_ptq_cnn', 'quant.onnx'));
  const b = readFileSync(path.join(pairsDir, 'torch_eager_ptq_cnn', 'float.onnx'));
  const swapped = core.open(a, 'quant.onnx', b, 'float.onnx');
  try {
    assert.deepEqual(swapped.fileBytes('float'), new Uint8Array(b));
    assert.deepEqual(swapped.fileBytes('quantized'), new Uint8Array(a));
  } finally {
    swapped.close();
  }
});

test('weights by reference (the page\'s way): onnxruntime-web reads each weight from a view of the core\'s file, the CLI\'s bytes', async () => {
  // Every request names the model file as its weights' external data, and no model bytes the bridge
  // is given hold a weight: the engine copies each straight out of the core's copy of the file.
  for (const pair of ['torch_eager_ptq_cnn', 'ort_dynamic_if_loop', 'ortopt_transformer_ptq']) {
    const floatBytes = readFileSync(path.join(pairsDir, pair, 'float.onnx'));
    const quantBytes = readFileSync(path.join(pairsDir, pair, 'quant.onnx'));
    const core = await wasmCore();
    const comparison = core.open(floatBytes, 'float.onnx', quantBytes, 'quant.onnx');
    try {
      for (const budget of [undefined, 16384]) {
        const run = comparison.startActivations({ weights_by_reference: true, ...(budget ? { tap_budget_bytes: budget } : {}) });
        const sizes = [];
        const report = await runActivations(run, {
          ort, engine,
          onProgress: (r) => {
            assert.equal(r.weights_file, r.new_model ? `visualquant-${r.side}.weights` : '');
            if (r.new_model) sizes.push([r.side, r.model_bytes]);
          },
        });
        const args = [path.join(pairsDir, pair, 'float.onnx'), path.join(pairsDir, pair, 'quant.onnx')];
        assert.equal(report, native(budget ? [...args, '--tap-budget', '16K'] : args), `${pair} ${budget ?? 'one chunk'}`);
        assert.ok(sizes.every(([, n]) => n > 0), 'every model comes from the core');
        // A model without its weights is much smaller than the file (the float transformer's are most of it).
        if (pair === 'ortopt_transformer_ptq')
          for (const [side, n] of sizes) if (side === 'float') assert.ok(n < floatBytes.length / 2, `${pair}: ${n} of ${floatBytes.length} bytes`);
      }
    } finally {
      comparison.close();
    }
  }
});
