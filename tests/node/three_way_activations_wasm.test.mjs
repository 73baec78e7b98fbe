// The three-way table with both versions run on the same inputs, as the page and the extension make
// it (each version's activation comparison driven by runtime/web/activation_driver.mjs with
// onnxruntime-web, then OpenComparison.threeWay with both reports) is byte for byte the CLI's
// `compare FLOAT A B --samples N --engine web --json -`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import * as ort from 'onnxruntime-web';
import { cli, root } from './paths.mjs';
import { wasmCore } from './wasm_core.mjs';
import { engineLabel, runActivations } from '../../runtime/web/activation_driver.mjs';

ort.env.wasm.numThreads = 1;
const engine = engineLabel('onnxruntime-web', JSON.parse(readFileSync(path.join(root, 'node_modules/onnxruntime-web/package.json'), 'utf8')).version);
const pairs = path.join(root, 'tests/fixtures/pairs');
const files = [path.join(pairs, 'ort_qdq_cnn_uint8/float.onnx'), path.join(pairs, 'ort_qdq_cnn_uint8/quant.onnx'), path.join(pairs, 'vendor_trt_explicit_qdq_cnn/quant.onnx')];

test('three-way with activations in wasm == the CLI (onnxruntime-web both): ORT QDQ against TensorRT explicit Q/DQ', async () => {
  const r = spawnSync(cli, ['compare', ...files, '--samples', '2', '--engine', 'web', '--json', '-'], { encoding: 'utf8', maxBuffer: 1 << 28 });
  assert.equal(r.status, 0, r.stderr);
  const core = await wasmCore();
  const [f, a, b] = files.map((p) => readFileSync(p));
  const pairA = core.open(f, 'float.onnx', a, 'quant.onnx');
  const pairB = core.open(f, 'float.onnx', b, 'quant.onnx');
  try {
    const reports = [];
    for (const [pair, quantBytes] of [[pairA, a], [pairB, b]]) {
      const run = pair.startActivations({ samples: 2 });
      reports.push(await runActivations(run, { ort, engine, floatBytes: f, quantBytes }));
    }
    const text = pairA.threeWay(pairB, { activations: reports });
    assert.equal(text, r.stdout);
    const report = JSON.parse(text);
    assert.ok(report.table.every((row) => row.A.activation_compared && row.B.activation_compared));
    assert.throws(() => pairA.threeWay(pairB, { activations: [reports[0], ''] }), (e) => e.code === 'usage');
  } finally {
    pairA.close();
    pairB.close();
  }
});
