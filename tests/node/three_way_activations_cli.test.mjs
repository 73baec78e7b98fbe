// `compare FLOAT A B` with run options: both versions run against the float model on the same
// inputs, each row gains both versions' activation error at its output, which decides its winner,
// and every figure is the one `activations FLOAT A` and `activations FLOAT B` give on those inputs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { cli, root } from './paths.mjs';

const pairs = path.join(root, 'tests/fixtures/pairs');
const hub = path.join(pairs, 'ort_qdq_cnn_uint8/float.onnx');
const versionA = path.join(pairs, 'ort_qdq_cnn_uint8/quant.onnx');
const versionB = path.join(pairs, 'vendor_trt_explicit_qdq_cnn/quant.onnx');

function json(command, ...args) {
  const r = spawnSync(cli, [command, ...args, '--json', '-'], { encoding: 'utf8', maxBuffer: 1 << 28 });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
}

test('ORT QDQ against TensorRT explicit Q/DQ on the same synthetic inputs: activation figures per row, the winner by them', () => {
  const report = json('compare', hub, versionA, versionB, '--samples', '3');
  assert.equal(report.summary.activations.inputs.synthetic, true, 'synthetic inputs are labelled');
  assert.match(report.summary.winner_rule, /activation SQNR at the row's output/);
  const [a, b] = [json('activations', hub, versionA, '--samples', '3'), json('activations', hub, versionB, '--samples', '3')];
  // Each version's report is the activations command's, byte for byte in content.
  assert.deepEqual(report.versions[0].activations.points, a.points);
  assert.deepEqual(report.versions[1].activations.points, b.points);
  const sqnrOf = (act, entries) => {
    const last = Math.max(...entries.filter((e) => act.points.some((p) => p.entries.includes(e))));
    return act.points.find((p) => p.entries.includes(last))?.accumulated.sqnr_db;
  };
  let decided = 0;
  for (const row of report.table) {
    assert.equal(row.A.activation_compared, true, `row ${row.row}: A observed`);
    assert.equal(row.B.activation_compared, true, `row ${row.row}: B observed`);
    assert.equal(row.A.activation_sqnr_db, sqnrOf(a, row.A.entries));
    assert.equal(row.B.activation_sqnr_db, sqnrOf(b, row.B.entries));
    const gap = row.A.activation_sqnr_db - row.B.activation_sqnr_db;
    assert.equal(row.winner, Math.abs(gap) < 0.5 ? 'tie' : gap > 0 ? 'A' : 'B', `row ${row.row}`);
    assert.match(row.winner_reason, /^activation SQNR at the output/);
    if (Math.abs(gap) >= 3) assert.ok(row.differences.some((d) => /output is further from the float model's/.test(d)), `row ${row.row}: ${row.differences}`);
    decided++;
  }
  assert.ok(decided >= 6);
});

test('without run options the rows say activation error needs inputs; run options on a pair are refused', () => {
  const report = json('compare', hub, versionA, versionB);
  assert.equal(report.summary.activations, null);
  assert.ok(report.table.every((r) => r.A.activation_compared === false && r.A.activation_sqnr_db === null));
  const r = spawnSync(cli, ['compare', hub, versionA, '--samples', '2'], { encoding: 'utf8' });
  assert.equal(r.status, 2);
  assert.match(r.stderr, /are for three models/);
});
