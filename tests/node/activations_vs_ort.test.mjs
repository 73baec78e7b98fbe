// `visualquant activations` against an independent measurement (tests/activations/peer_measure.mjs:
// onnxruntime-node run here, taps added here, statistics in JS), on every fixture pair, with the
// same .npy inputs: every compared tensor's SQNR within 0.05 dB, cosine and MSE alike; and the same
// report when each model is cut into segments.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { cli, root } from './paths.mjs';
import { exposeBodies, makeInputs, measure, npy, peerTensorName } from '../activations/peer_measure.mjs';

const pairsDir = path.join(root, 'tests/fixtures/pairs');
const pairs = readdirSync(pairsDir).filter((p) => existsSync(path.join(pairsDir, p, 'truth.json'))).sort();

// Vendor ops ONNX Runtime has no kernel for: the run is refused, naming the op and the model.
const unrunnable = {
  vendor_quark_qdq: 'ExtendedQuantizeLinear',
  vendor_trt_int4_awq: 'TRT_INT4DequantizeLinear',
};
// Where tapping really changes a model output, and the report must say so: the fp16 float model's
// Conv has no fp16 kernel on the CPU, so ONNX Runtime wraps it in Casts to float; a tapped fp16
// tensor must then be rounded to fp16 where the untapped model keeps float between the casts.
const tappingChanges = { ort_qdq_renamed_bnfold_fp16: ['float: output'] };

// Pairs with tensors inside If/Loop bodies: what must be compared there, and what cannot be.
const bodies = {
  ort_dynamic_if_loop: (report) => {
    const inBody = report.points.filter((p) => p.body);
    const loop = inBody.filter((p) => p.body.float.graph === 'loop/body');
    const taken = inBody.filter((p) => p.body.float.graph !== 'loop/body');
    assert.deepEqual(loop.map((p) => p.float_tensor).sort(), ['cond_out', 'fc3_mm', 'fc3_out', 's_out']);
    assert.ok(loop.every((p) => p.body.float.loops === 1 && p.body.quantized.loops === 1 && p.local === null));
    // One branch ran on this input: its tensors are compared, the other's are said to be never computed.
    assert.equal(taken.length, 3, JSON.stringify(taken.map((p) => p.float_tensor)));
    const branch = taken[0].body.float.graph;
    assert.ok(taken.every((p) => p.body.float.graph === branch && p.body.quantized.graph === branch));
    assert.equal(report.failed.length, 3);
    for (const f of report.failed) assert.match(f.reason, /neither model computed it on these inputs/);
    assert.deepEqual(report.not_observable, []);
  },
};

function activations(args) {
  const r = spawnSync(cli, ['activations', ...args, '--json', '-'], { encoding: 'utf8', maxBuffer: 1 << 30 });
  return { status: r.status, stderr: r.stderr, report: r.status === 0 ? JSON.parse(r.stdout) : null };
}

function close(a, b, tolerance, what) {
  if (a === null || b === null) return assert.equal(a, b, `${what}: ${a} vs ${b}`);
  assert.ok(Math.abs(a - b) <= tolerance, `${what}: core ${a}, peer ${b}`);
}

for (const pair of pairs) {
  test(`activations agree with an independent onnxruntime-node measurement: ${pair}`, async () => {
    const floatPath = path.join(pairsDir, pair, 'float.onnx');
    const quantPath = path.join(pairsDir, pair, 'quant.onnx');
    const dir = mkdtempSync(path.join(tmpdir(), 'vq-act-'));
    try {
      const inputs = await makeInputs(floatPath);
      const args = [floatPath, quantPath];
      for (const input of inputs) {
        const file = path.join(dir, `${input.name.replace(/[^A-Za-z0-9_]/g, '_')}.npy`);
        writeFileSync(file, npy(input.type, input.dims, input.data));
        args.push('--input', `${input.name}=${file}`);
      }
      const { status, stderr, report } = activations(args);
      if (bodies[pair]) bodies[pair](report);
      if (unrunnable[pair]) {
        assert.equal(status, 3, stderr);
        assert.match(stderr, /error \[runtime_failure\]: ONNX Runtime could not load the quantized model/);
        assert.ok(stderr.includes(unrunnable[pair]), stderr);
        return;
      }
      assert.equal(status, 0, stderr);
      assert.equal(report.report, 'visualquant.activations');
      assert.equal(report.version, 1);
      assert.equal(report.inputs.synthetic, false);
      assert.deepEqual(report.tapping.changed_outputs, tappingChanges[pair] ?? []);
      assert.ok(report.points.some((p) => p.model_output === 0), 'the model output is compared');
      // Tensors inside If/Loop bodies are made main-graph outputs by the onnx Python package
      // (tests/activations/expose_body_values.py), not by the core, then tapped like the others.
      const points = report.points.map((p) => ({
        float_tensor: peerTensorName(p, 'float'),
        quantized_tensor: peerTensorName(p, 'quantized'),
        quantizer: p.output_quantizer,
      }));
      const peer = await measure(exposeBodies(dir, 'float', floatPath, report.points),
        exposeBodies(dir, 'quantized', quantPath, report.points), inputs, points);
      report.points.forEach((p, i) => {
        const what = `${pair} ${p.quantized_tensor}`;
        // Read as the runtime returns it: integer codes exactly when ONNX Runtime gives integers.
        assert.equal(p.quantized_read_as !== 'values', peer[i].codes, `${what} read as ${p.quantized_read_as}`);
        close(p.accumulated.sqnr_db, peer[i].sqnr_db, 0.05, `${what} sqnr_db`);
        close(p.accumulated.cosine, peer[i].cosine, 1e-6, `${what} cosine`);
        close(p.accumulated.mse, peer[i].mse, 1e-6 * Math.max(1, peer[i].mse), `${what} mse`);
        close(p.accumulated.max_abs, peer[i].max_abs, 1e-6 * Math.max(1, peer[i].max_abs), `${what} max_abs`);
      });
      // Cut into one segment per few taps (activations/run_segments.h), the same figures to the bit,
      // local error included, and the same word on tapping. Where tapping changes values (the fp16
      // pair: each cut is one more fp16 tensor between Casts), the report says so both ways.
      const cut = activations([...args, '--tap-budget', '4K']);
      assert.equal(cut.status, 0, cut.stderr);
      assert.ok(cut.report.runtime.tap_chunks > 1, `${pair}: ${cut.report.runtime.tap_chunks} chunk(s)`);
      assert.deepEqual(cut.report.tapping, report.tapping);
      if (tappingChanges[pair]) {
        assert.deepEqual(cut.report.points.map((p) => p.quantized_tensor), report.points.map((p) => p.quantized_tensor));
      } else {
        assert.deepEqual(cut.report.points, report.points);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
}
