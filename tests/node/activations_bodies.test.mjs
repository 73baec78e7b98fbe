// Tensors inside If/Loop bodies over several samples: two inputs that send the If down different
// branches (x, and -x). Each branch's tensors are computed in one sample and said not computed in
// the other; the overall figures are that one sample's; every figure agrees with an independent
// measurement (the onnx Python package threads the tensors out, onnxruntime-node runs, JS counts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { cli, root } from './paths.mjs';
import { exposeBodies, makeInputs, measure, npy, peerTensorName } from '../activations/peer_measure.mjs';

const pairDir = path.join(root, 'tests/fixtures/pairs/ort_dynamic_if_loop');
const floatPath = path.join(pairDir, 'float.onnx');
const quantPath = path.join(pairDir, 'quant.onnx');


test('a body tensor is compared in the samples whose If ran its branch, and only there', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'vq-bodies-'));
  try {
    const [a] = await makeInputs(floatPath, 7);
    const b = { ...a, data: a.data.map((v) => -v) };
    const files = [a, b].map((s, i) => {
      const file = path.join(dir, `x${i}.npy`);
      writeFileSync(file, npy(s.type, s.dims, s.data));
      return file;
    });
    for (const budget of ['512M', '4K']) {
      const r = spawnSync(cli, ['activations', floatPath, quantPath, '--input', `x=${files[0]}`, '--input', `x=${files[1]}`,
        '--tap-budget', budget, '--json', '-'], { encoding: 'utf8' });
      assert.equal(r.status, 0, r.stderr);
      const report = JSON.parse(r.stdout);
      assert.deepEqual(report.failed, []);
      assert.deepEqual(report.tapping.changed_outputs, []);
      const branches = report.points.filter((p) => p.body && p.body.float.loops === 0);
      assert.equal(branches.length, 6, 'both branches, three tensors each');
      const ran = (p) => p.per_sample.map((s) => s.computed !== false);
      const then = branches.filter((p) => p.body.float.graph === 'branch/then_branch');
      const other = branches.filter((p) => p.body.float.graph === 'branch/else_branch');
      assert.equal(then.length, 3);
      for (const p of then) assert.deepEqual(ran(p), ran(then[0]));
      for (const p of other) assert.deepEqual(ran(p), ran(then[0]).map((r) => !r), 'the other branch, in the other sample');
      assert.equal(ran(then[0]).filter(Boolean).length, 1);
      for (const p of branches) {
        const k = ran(p).indexOf(true);
        assert.equal(p.accumulated.sqnr_db, p.per_sample[k].sqnr_db, `${p.float_tensor}: overall is its one sample's`);
        assert.deepEqual(p.per_sample[1 - k], { computed: false });
      }
      // Each sample's figures against the peer, on that sample alone.
      const points = report.points.map((p) => ({ float_tensor: peerTensorName(p, 'float'), quantized_tensor: peerTensorName(p, 'quantized'), quantizer: p.output_quantizer }));
      const fx = exposeBodies(dir, 'float', floatPath, report.points), qx = exposeBodies(dir, 'quantized', quantPath, report.points);
      for (const [k, sample] of [a, b].entries()) {
        const peer = await measure(fx, qx, [sample], points);
        report.points.forEach((p, i) => {
          const mine = p.per_sample[k];
          if (mine.computed === false) {
            assert.ok(Number.isNaN(peer[i].mse), `${p.float_tensor}: the peer saw no values either`);  // 0 / 0 values
            return;
          }
          const what = `sample ${k} ${p.float_tensor}`;
          if (mine.sqnr_db === null || peer[i].sqnr_db === null) assert.equal(mine.sqnr_db, peer[i].sqnr_db, what);
          else assert.ok(Math.abs(mine.sqnr_db - peer[i].sqnr_db) <= 0.05, `${what}: ${mine.sqnr_db} vs ${peer[i].sqnr_db}`);
        });
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('ONNX\'s own Loop test model against itself: every body tensor compared and exact, integers read as values', () => {
  // libonnx-testdata's test_loop11 (Debian's copy of ONNX's test data, with its input): a Loop
  // whose body slices a tensor by an int64 counter. The counter and the slice bounds are integers
  // in both models: values, not quantization codes.
  const dir = '/usr/share/libonnx-testdata/data/node/test_loop11';
  const model = path.join(dir, 'model.onnx');
  const r = spawnSync(cli, ['activations', model, model, '--input', dir, '--json', '-'], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const report = JSON.parse(r.stdout);
  assert.deepEqual(report.not_observable, []);
  assert.deepEqual(report.failed, []);
  assert.deepEqual(report.tapping.changed_outputs, []);
  const inBody = report.points.filter((p) => p.body);
  assert.ok(inBody.length >= 6, JSON.stringify(report.points.map((p) => p.float_tensor)));
  assert.ok(inBody.every((p) => p.body.float.loops === 1));
  for (const p of report.points) {
    assert.equal(p.quantized_read_as, 'values', p.float_tensor);
    assert.equal(p.accumulated.sqnr_db, null, `${p.float_tensor} is exact`);
  }
});
