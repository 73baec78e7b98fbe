// The sensitivity report made in wasm (the core driven by runtime/web/activation_driver.mjs with
// onnxruntime-web, as the page and the extension run it) is byte for byte the native CLI's with the
// same engine (`visualquant sensitivity --engine web --json -`), and so is the mixed-precision model
// it saves (`--out`). A what-if the engine rejects is failed and the sweep goes on; a cancel keeps
// what was measured.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as ort from 'onnxruntime-web';
import { cli, root } from './paths.mjs';
import { wasmCore } from './wasm_core.mjs';
import { engineLabel, runActivations } from '../../runtime/web/activation_driver.mjs';

ort.env.wasm.numThreads = 1;
const engine = engineLabel('onnxruntime-web', JSON.parse(readFileSync(path.join(root, 'node_modules/onnxruntime-web/package.json'), 'utf8')).version);
const pairsDir = path.join(root, 'tests/fixtures/pairs');
const files = (pair) => [path.join(pairsDir, pair, 'float.onnx'), path.join(pairsDir, pair, 'quant.onnx')];

async function inWasm(pair, options, drive = {}) {
  const [f, q] = files(pair);
  const floatBytes = readFileSync(f), quantBytes = readFileSync(q);
  const core = await wasmCore();
  const comparison = core.open(floatBytes, 'float.onnx', quantBytes, 'quant.onnx');
  try {
    const run = comparison.startSensitivity({ weights_by_reference: true, ...options });
    const report = await runActivations(run, { ort: drive.ort ?? ort, engine, floatBytes, quantBytes, viewFeeds: true, ...drive });
    const parsed = JSON.parse(report);
    const mixed = run.mixedModel(parsed.exports.set);
    return { report, mixed };
  } finally {
    comparison.close();
  }
}

for (const [pair, target] of [['torch_eager_ptq_cnn', 45], ['ort_qoperator_cnn', 41], ['ort_dynamic_mlp', 37], ['ort_matmulnbits_4bit', 18]]) {
  test(`wasm-driven sensitivity == native CLI (onnxruntime-web both): ${pair}`, async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'vq-sens-wasm-'));
    try {
      const { report, mixed } = await inWasm(pair, { target_sqnr_db: target });
      const out = path.join(dir, 'mixed.onnx');
      const r = spawnSync(cli, ['sensitivity', ...files(pair), '--engine', 'web', '--target-sqnr', String(target), '--json', '-', '--out', out],
        { encoding: 'utf8', maxBuffer: 1 << 28 });
      assert.equal(r.status, 0, r.stderr);
      assert.equal(report, r.stdout);
      assert.ok(JSON.parse(report).suggestion.steps.length > 0, 'the suggestion had work to do');
      assert.deepEqual(Buffer.from(mixed), readFileSync(out));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
}

test('a what-if the engine rejects is failed with its reason, and the sweep goes on', async () => {
  // An engine that refuses every model but the float and quantized ones.
  const picky = {
    Tensor: ort.Tensor,
    InferenceSession: {
      create: async (bytes, options) => {
        const session = await ort.InferenceSession.create(bytes, options);
        const inputs = session.inputNames;
        if (bytes.byteLength !== picky.allowed.float && bytes.byteLength !== picky.allowed.quant) {
          await session.release();
          throw new Error('no kernel for this model (a test engine)');
        }
        return Object.assign(session, { inputs });
      },
    },
    allowed: {},
  };
  const [f, q] = files('torch_eager_ptq_cnn');
  const core = await wasmCore();
  const floatBytes = readFileSync(f), quantBytes = readFileSync(q);
  const comparison = core.open(floatBytes, 'float.onnx', quantBytes, 'quant.onnx');
  try {
    const run = comparison.startSensitivity({ split: false });
    picky.allowed = { float: floatBytes.byteLength, quant: quantBytes.byteLength };
    const report = JSON.parse(await runActivations(run, { ort: picky, engine, floatBytes, quantBytes }));
    assert.equal(report.baseline.status, 'measured');
    assert.equal(report.all_in_float.status, 'failed');
    assert.ok(report.entries.length > 0);
    for (const e of report.entries) {
      assert.equal(e.keep_in_float.both.status, 'failed');
      assert.match(e.keep_in_float.both.reason, /ONNX Runtime could not load .*no kernel for this model/);
    }
    assert.deepEqual(report.ranking, []);
  } finally {
    comparison.close();
  }
});

test('cancelled, the sweep reports what it measured', async () => {
  const controller = new AbortController();
  let runs = 0;
  const { report } = await inWasm('torch_transformer_ptq', {}, {
    signal: controller.signal,
    onProgress: () => { if (++runs === 6) controller.abort(); },
  });
  const parsed = JSON.parse(report);
  assert.equal(parsed.cancelled, true);
  assert.equal(parsed.baseline.status, 'measured');
  assert.equal(parsed.runtime.runs, 6);  // the run under way when the signal came finishes first
  assert.ok(parsed.entries.some((e) => e.keep_in_float.both.status === 'not run'));
});
