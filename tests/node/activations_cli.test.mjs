// `visualquant activations` as a user meets it: synthetic inputs labelled, a quantizer made to clip
// flagged as clipping, the same bytes for the same inputs however the taps are split, and every bad
// input refused with exit 3 and a clear message, with nothing written next to the user's files.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { cli, fixtures, root } from './paths.mjs';
import { npy } from '../activations/peer_measure.mjs';

const pair = path.join(root, 'tests/fixtures/pairs/torch_eager_ptq_cnn');
const floatPath = path.join(pair, 'float.onnx');
const quantPath = path.join(pair, 'quant.onnx');
let dir, facts;

before(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'vq-act-cli-'));
  const r = spawnSync('/usr/bin/python3', [path.join(root, 'tests/activations/make_cases.py'), dir], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  facts = JSON.parse(r.stdout);
});
after(() => rmSync(dir, { recursive: true, force: true }));

function run(args, options = {}) {
  return spawnSync(cli, ['activations', ...args], { encoding: 'utf8', maxBuffer: 1 << 28, ...options });
}
function report(args) {
  const r = run([...args, '--json', '-']);
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
}
function image(name, dims = [1, 3, 16, 16], type = 'float32') {
  const count = dims.reduce((a, b) => a * b, 1);
  const data = type === 'float32' ? Float32Array.from({ length: count }, (_, i) => Math.sin(i) * 0.8) : new Float64Array(count);
  const file = path.join(dir, name);
  writeFileSync(file, npy(type, dims, data));
  return file;
}

test('without inputs, synthetic inputs are used and said to be so, in the report and the text', () => {
  const r = report([floatPath, quantPath]);
  assert.equal(r.inputs.synthetic, true);
  assert.match(r.inputs.note, /synthetic.*directional only/);
  assert.deepEqual(r.inputs.samples, ['synthetic sample 0 (seed 1)']);
  const text = run([floatPath, quantPath]).stdout;
  assert.match(text, /synthetic inputs .* directional only/);
});

test('several synthetic samples: per-sample figures and one overall figure', () => {
  const r = report([floatPath, quantPath, '--samples', '3']);
  assert.equal(r.inputs.samples.length, 3);
  for (const p of r.points) assert.equal(p.per_sample.length, 3);
  const out = r.points.find((p) => p.model_output === 0);
  const sqnrs = out.per_sample.map((s) => s.sqnr_db);
  assert.ok(new Set(sqnrs).size > 1, 'the samples differ');
  assert.ok(out.accumulated.sqnr_db >= Math.min(...sqnrs) - 1e-9 && out.accumulated.sqnr_db <= Math.max(...sqnrs) + 1e-9);
  // Cut into segments, each made once and kept by the runner for the later samples: the same figures.
  const cut = report([floatPath, quantPath, '--samples', '3', '--tap-budget', '16K']);
  assert.ok(cut.runtime.tap_chunks > 1);
  assert.deepEqual(cut.points, r.points);
});

test('a quantizer made to clip on purpose is flagged as clipping, where it clips', () => {
  const r = report([floatPath, path.join(dir, 'clip_quant.onnx')]);
  const clipped = r.points.filter((p) => p.quantizer_error?.pre_quant_tensor === facts.clipping_tensor);
  assert.equal(clipped.length, 1);
  assert.match(clipped[0].verdict, /^clipping dominates: .* above qmax/);
  assert.ok(clipped[0].quantizer_error.clipped_above_qmax > 0.05);
  assert.ok(clipped[0].quantizer_error.clipping_error_share > 0.5);
  // The others are not called clipping, and the original model has no clipping verdict at all.
  assert.ok(r.points.filter((p) => /^clipping/.test(p.verdict)).length === 1);
  assert.ok(!report([floatPath, quantPath]).points.some((p) => /^clipping/.test(p.verdict)));
  assert.equal(r.summary.largest_jump.point, clipped[0].point);
  // Born there: its local error (fed the float model's values) is its accumulated error; the
  // points downstream of it inherit it (their local error is far smaller).
  assert.match(clipped[0].verdict, /made here: local/);
  const downstream = r.points.filter((p) => p.upstream_points.includes(clipped[0].point));
  assert.ok(downstream.length > 0);
  for (const p of downstream) {
    assert.match(p.verdict, /inherited: local/, p.quantized_tensor);
    assert.ok(p.local.sqnr_db > p.accumulated.sqnr_db + 20);
  }
});

test('a Relu fused into its quantizer is not called clipping: the float model clamps there too', () => {
  // The example's QDQ model quantizes each Conv's output with zero point 0: the Relu of the float
  // model is done by the quantizer, which so clips half of its input. Those values are not damage.
  const r = report([path.join(root, 'examples/float.onnx'), path.join(root, 'examples/quant_qdq.onnx')]);
  const conv = r.points.filter((p) => p.quantizer_error && p.quantizer_error.clipped_below_qmin > 0.3);
  assert.ok(conv.length >= 2, 'the fused Relus clip their quantizers\' inputs');
  for (const p of conv) {
    assert.equal(p.accumulated.clipped_fraction, 0, p.quantized_tensor);
    assert.doesNotMatch(p.verdict, /^clipping dominates/, p.verdict);
    assert.match(p.verdict, /an activation fused into it/, p.verdict);
  }
});

test('the local error of an op whose inputs are exact is its accumulated error; --local off leaves it out', () => {
  const r = report([floatPath, quantPath]);
  const first = r.points.filter((p) => p.upstream_points.length === 0 && p.model_output === undefined);
  assert.ok(first.length > 0);
  for (const p of first) assert.equal(p.local.sqnr_db, p.accumulated.sqnr_db);
  const off = report([floatPath, quantPath, '--local', 'off']);
  assert.ok(off.points.every((p) => p.local === null));
  assert.match(off.runtime.local_error, /not measured/);
  assert.equal(off.runtime.runs, r.runtime.runs - 1);
});

test('the same inputs give the same bytes, however the taps are split over runs', () => {
  const a = run([floatPath, quantPath, '--json', '-']).stdout;
  assert.equal(run([floatPath, quantPath, '--json', '-']).stdout, a);
  const split = JSON.parse(run([floatPath, quantPath, '--json', '-', '--tap-budget', '16K']).stdout);
  const whole = JSON.parse(a);
  assert.ok(split.runtime.tap_chunks > 1 && whole.runtime.tap_chunks === 1);
  assert.deepEqual(split.points, whole.points);
});

test('an If body reading the graph around it and a sequence: compared whole and cut into segments alike', () => {
  const args = [path.join(dir, 'control_float.onnx'), path.join(dir, 'control_quant.onnx')];
  const whole = report(args);
  const cut = report([...args, '--tap-budget', '16K']);
  assert.ok(cut.runtime.tap_chunks > 3, `${cut.runtime.tap_chunks} chunks`);
  assert.deepEqual(cut.points, whole.points);
  assert.deepEqual(cut.tapping.changed_outputs, []);
  // The If's output is compared (its body read the Relu from the enclosing graph); the sequence is
  // not a tensor, so nothing compares it, and the value read back out of it is the Relu's again.
  assert.ok(whole.points.some((p) => p.quantized_tensor === 'vq_if'));
  assert.ok(!whole.points.some((p) => p.quantized_tensor === 'vq_sequence'));
});

test('weights in an external-data file are read from the model\'s folder, by either engine', () => {
  const model = path.join(fixtures, 'valid/external/model.onnx');
  for (const engine of ['node', 'web']) {
    const r = report([model, model, '--engine', engine]);
    assert.ok(r.points.length >= 3, engine);
    for (const p of r.points) assert.equal(p.accumulated.sqnr_db, null, `${engine}: a model against itself is exact`);
  }
});

test('.npy inputs by name and for the only input give the same figures', () => {
  const file = image('x.npy');
  const named = report([floatPath, quantPath, '--input', `input=${file}`]);
  const only = report([floatPath, quantPath, '--input', file]);
  assert.equal(named.inputs.synthetic, false);
  assert.deepEqual(named.points, only.points);
  assert.deepEqual(named.inputs.samples, ['sample 0: input=x.npy']);
});

test('the CSV is worst first and model strings stay data', () => {
  const csv = path.join(dir, 'out.csv');
  const r = run([floatPath, quantPath, '--csv', csv]);
  assert.equal(r.status, 0, r.stderr);
  const lines = readFileSync(csv, 'utf8').trim().split('\n');
  assert.equal(lines[0], 'rank,float_tensor,quantized_tensor,quant_node,sqnr_db,cosine,mse,max_abs,rmse_steps,clipped_fraction,verdict');
  assert.ok(lines[1].startsWith('1,'));
});

test('a dynamic dimension without a value says which flag sets it; with --dim it runs', () => {
  const f = path.join(dir, 'dynamic_float.onnx'), q = path.join(dir, 'dynamic_quant.onnx');
  const r = run([f, q]);
  assert.equal(r.status, 3);
  assert.match(r.stderr, /error \[unset_dimension\]: input 'input' dimension 0 is 'batch': set it with --dim batch=N/);
  const ok = report([f, q, '--dim', 'batch=2']);
  assert.equal(ok.points.find((p) => p.model_output === 0).per_sample.length, 1);
});

const bad = [
  ['a file that is not .npy', () => { const f = path.join(dir, 'not.npy'); writeFileSync(f, 'hello'); return ['--input', f]; }, /invalid_input_file/],
  ['a wrong shape', () => ['--input', image('small.npy', [1, 3, 8, 8])], /input_mismatch.*input/],
  ['a wrong element type', () => ['--input', image('double.npy', [1, 3, 16, 16], 'float64')], /input_mismatch.*float32/],
  ['an input the model does not have', () => ['--input', `nosuch=${image('y.npy')}`], /input_mismatch.*nosuch/],
  ['a file that does not exist', () => ['--input', path.join(dir, 'missing.npy')], /error \[io\]/],
  ['an extension that is neither', () => { const f = path.join(dir, 'x.txt'); writeFileSync(f, '1'); return ['--input', f]; }, /invalid_input_file/],
];
for (const [what, args, message] of bad) {
  test(`refused with exit 3: ${what}`, () => {
    const before = readdirSync(dir).sort();
    const extra = args();
    const listed = readdirSync(dir).sort();
    const r = run([floatPath, quantPath, ...extra]);
    assert.equal(r.status, 3, r.stderr);
    assert.match(r.stderr, message);
    assert.deepEqual(readdirSync(dir).sort(), listed, 'nothing written next to the inputs');
    assert.ok(before.length <= listed.length);
  });
}

test('an output that names an input file is refused before anything runs', () => {
  const file = image('keep.npy');
  const bytes = readFileSync(file);
  const r = run([floatPath, quantPath, '--input', file, '--json', file]);
  assert.equal(r.status, 3);
  assert.match(r.stderr, /output_is_input/);
  assert.deepEqual(readFileSync(file), bytes);
});

test('onnxruntime-web (the page\'s engine) gives the same figures within 0.05 dB', () => {
  const node = report([floatPath, quantPath]);
  const web = report([floatPath, quantPath, '--engine', 'web']);
  assert.match(web.runtime.engine, /onnxruntime-web/);
  node.points.forEach((p, i) => {
    const a = p.accumulated.sqnr_db, b = web.points[i].accumulated.sqnr_db;
    assert.ok(a === b || Math.abs(a - b) <= 0.05, `${p.quantized_tensor}: ${a} vs ${b}`);
  });
});
