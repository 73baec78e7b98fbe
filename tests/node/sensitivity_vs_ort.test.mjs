// `visualquant sensitivity` checked independently, on every fixture pair with the same .npy inputs:
//  - every what-if model it ran (written by --whatif-dir: the quantized model with entries kept in
//    float, and the float model with one entry quantized) passes the onnx checker and, run here by
//    onnxruntime-node, scores the output SQNR the report says (within 0.05 dB);
//  - every entry kept in float gives back the float model's outputs (exact or >= 100 dB), where no
//    entry sits in an If/Loop body; keeping none gives the quantized model's outputs exactly;
//  - the mixed-precision model written by --out reaches the SQNR the suggestion claims (0.2 dB);
//  - the exclusion lists name nodes the float model has;
//  - a layer whose input quantizer was made to clip (tests/sensitivity/damage_scale.py) ranks first.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import ort from 'onnxruntime-node';
import { cli, root } from './paths.mjs';
import { makeInputs, npy } from '../activations/peer_measure.mjs';

const pairsDir = path.join(root, 'tests/fixtures/pairs');
const pairs = readdirSync(pairsDir).filter((p) => existsSync(path.join(pairsDir, p, 'truth.json'))).sort();
const unrunnable = new Set(['vendor_quark_qdq', 'vendor_trt_int4_awq']);
// Pairs with entries in If/Loop bodies, which cannot be kept in float (said so per entry).
const withBodies = new Set(['ort_dynamic_if_loop']);

function sensitivity(args) {
  const r = spawnSync(cli, ['sensitivity', ...args, '--json', '-'], { encoding: 'utf8', maxBuffer: 1 << 30 });
  return { status: r.status, stderr: r.stderr, report: r.status === 0 ? JSON.parse(r.stdout) : null };
}

function python(script, args) {
  const r = spawnSync('/usr/bin/python3', [path.join(root, 'tests/sensitivity', script), ...args], { encoding: 'utf8', maxBuffer: 1 << 28 });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout;
}

function writeInputs(dir, inputs) {
  const args = [];
  for (const input of inputs) {
    const file = path.join(dir, `${input.name.replace(/[^A-Za-z0-9_]/g, '_')}.npy`);
    writeFileSync(file, npy(input.type, input.dims, input.data));
    args.push('--input', `${input.name}=${file}`);
  }
  return args;
}

const options = { graphOptimizationLevel: 'disabled', logSeverityLevel: 3 };

// A model's outputs on the inputs, bound by name when it has every float input name, else by position.
async function run(modelPath, inputs, fetches) {
  const session = await ort.InferenceSession.create(modelPath, options);
  const byName = inputs.every((i) => session.inputNames.includes(i.name));
  const feeds = {};
  inputs.forEach((input, k) => {
    feeds[byName ? input.name : session.inputNames[k]] = new ort.Tensor(input.type, input.data, input.dims);
  });
  const out = await session.run(feeds, fetches);
  await session.release();
  return out;
}

// The report's score, measured here: the lowest SQNR over the outputs, 'exact' when no error at all.
function score(reference, outputs, pairsOfNames) {
  let worst = Infinity;
  for (const { float_output, quantized_output } of pairsOfNames) {
    const x = reference[float_output].data, y = outputs[quantized_output].data;
    assert.equal(x.length, y.length);
    let s = 0, e = 0;
    for (let i = 0; i < x.length; i++) {
      s += Number(x[i]) ** 2;
      e += (Number(y[i]) - Number(x[i])) ** 2;
    }
    if (s === 0) continue;
    worst = Math.min(worst, e === 0 ? Infinity : 10 * Math.log10(s / e));
  }
  return worst === Infinity ? 'exact' : worst;
}

function sameScore(claimed, measured, tolerance, what) {
  if (claimed === 'exact' || measured === 'exact') {
    // A what-if ONNX Runtime computes in another order (an fp16 cast placed otherwise) may differ in
    // the last bit: exact on one side, beyond 100 dB on the other, is the same claim.
    const other = claimed === 'exact' ? measured : claimed;
    assert.ok(other === 'exact' || other >= 100, `${what}: claimed ${claimed}, measured ${measured}`);
    return;
  }
  assert.ok(Math.abs(claimed - measured) <= tolerance, `${what}: claimed ${claimed}, measured ${measured}`);
}

function variantOf(report, file) {
  const id = path.basename(file, '.onnx');
  if (id === 'keep-all') return report.all_in_float;
  if (id === 'keep-chosen') return report.chosen;
  const alone = /^alone-(?:block-)?(\d+)$/.exec(id);
  if (alone) return report.entries.find((e) => e.entry === Number(alone[1])).quantized_alone;
  const m = /^keep-(?:block-)?(\d+)-(both|weights|activations)$/.exec(id);
  if (m) return report.entries.find((e) => e.entry === Number(m[1])).keep_in_float[m[2]];
  const s = /^suggestion-(\d+)$/.exec(id);
  if (s) {
    const step = report.suggestion.steps[Number(s[1]) - 1];
    return step.measured_sqnr_db !== undefined ? { status: 'measured', error: { sqnr_db: step.measured_sqnr_db } } : step.measured;
  }
  throw new Error(`unexpected what-if file ${file}`);
}

for (const pair of pairs) {
  test(`sensitivity agrees with an independent onnxruntime-node run: ${pair}`, async () => {
    const floatPath = path.join(pairsDir, pair, 'float.onnx');
    const quantPath = path.join(pairsDir, pair, 'quant.onnx');
    const dir = mkdtempSync(path.join(tmpdir(), 'vq-sens-'));
    try {
      const inputs = await makeInputs(floatPath);
      const inputArgs = writeInputs(dir, inputs);
      if (unrunnable.has(pair)) {
        const r = sensitivity([floatPath, quantPath, ...inputArgs]);
        assert.equal(r.status, 3, r.stderr);
        assert.match(r.stderr, /error \[runtime_failure\]: ONNX Runtime could not load the quantized model/);
        return;
      }
      // First what the quantized model scores as it is, for a target the suggestion has to work for.
      const probe = sensitivity([floatPath, quantPath, ...inputArgs, '--split', 'off', '--keep', 'none']);
      assert.equal(probe.status, 0, probe.stderr);
      if (probe.report.entries.length === 0) {
        // A "quantized" model that quantizes nothing (the ORT-optimised float models): said so.
        assert.equal(probe.report.note, 'the quantized model has no quantized entry to keep in float');
        assert.deepEqual(probe.report.suggestion.set, []);
        return;
      }
      const baseline = probe.report.baseline.error.sqnr_db;
      assert.equal(typeof baseline, 'number', `${pair}: the quantized model has some error`);
      // Keeping none is the quantized model again, to the bit.
      assert.deepEqual(probe.report.chosen.error, probe.report.baseline.error);

      const whatifs = path.join(dir, 'whatif');
      mkdirSync(whatifs);
      const mixed = path.join(dir, 'mixed.onnx');
      const target = Math.round((baseline + 3) * 100) / 100;
      const { status, stderr, report } = sensitivity([floatPath, quantPath, ...inputArgs, '--target-sqnr', String(target),
        '--whatif-dir', whatifs, '--out', mixed]);
      assert.equal(status, 0, stderr);
      assert.equal(report.report, 'visualquant.sensitivity');
      assert.equal(report.version, 1);
      assert.equal(report.inputs.synthetic, false);
      assert.equal(report.baseline.error.sqnr_db, baseline);
      assert.ok(report.entries.length > 0);

      // Every entry kept in float is the float model again.
      if (withBodies.has(pair)) {
        const failed = report.entries.filter((e) => e.keep_in_float.both.status === 'failed');
        assert.ok(failed.length > 0 && failed.every((e) => /inside an If\/Loop body/.test(e.keep_in_float.both.reason)),
          JSON.stringify(failed.map((e) => e.keep_in_float.both.reason)));
      } else if (report.all_in_float.float_ops_missing.length) {
        // The quantized model lost float ops (the BatchNormalizations of the bn-dropped pair): no
        // entry kept in float brings them back, and the report names them.
        assert.equal(pair, 'torch_eager_ptq_cnn_bndropped');
        assert.deepEqual(report.all_in_float.float_ops_missing.filter((n) => /BatchNormalization/.test(n)).length, 3);
      } else {
        const all = report.all_in_float.error.sqnr_db;
        assert.ok(all === 'exact' || all >= 100, `${pair}: every entry in float scores ${all}`);
        assert.equal(report.all_in_float.entries_not_kept, 0);
      }
      // No entry is scored without being measured; a failure says why.
      for (const e of report.entries)
        for (const [part, v] of Object.entries(e.keep_in_float)) {
          assert.ok(['measured', 'failed'].includes(v.status), `${pair} entry ${e.entry} ${part}: ${v.status}`);
          if (v.status === 'failed') assert.ok(v.reason.length > 10);
        }

      // Every what-if model: the onnx checker, then its score measured here.
      const files = readdirSync(whatifs).map((f) => path.join(whatifs, f)).sort();
      assert.ok(files.length >= report.entries.length, `${files.length} what-if models written`);
      const checks = JSON.parse(python('check_models.py', [floatPath, quantPath, ...files, mixed]));
      for (const f of [...files, mixed])
        assert.ok(['ok', checks.quantized].includes(checks.checked[f]), `${pair} ${path.basename(f)}: ${checks.checked[f]}`);
      if (!['ort_matmulnbits_4bit', 'ort_qdq_blockwise_int4', 'ortopt_qdq_blockwise_int4', 'ortopt_transformer_ptq'].includes(pair))
        assert.equal(checks.quantized, 'ok', `${pair}: the quantized model itself`);
      const outputs = report.baseline.error.outputs;
      const reference = await run(floatPath, inputs, outputs.map((o) => o.float_output));
      for (const f of files) {
        const v = variantOf(report, f);
        if (v.status !== 'measured') continue;
        // The float model with one entry quantized keeps the float model's inputs and output names.
        const reverse = path.basename(f).startsWith('alone-');
        const names = reverse ? outputs.map((o) => ({ float_output: o.float_output, quantized_output: o.float_output })) : outputs;
        const measured = score(reference, await run(f, inputs, names.map((o) => o.quantized_output)), names);
        sameScore(v.error.sqnr_db, measured, 0.05, `${pair} ${path.basename(f)}`);
      }
      // Every quantized entry alone in the float model is measured, or said why not.
      for (const e of report.entries) assert.ok(['measured', 'failed'].includes(e.quantized_alone.status), `${pair} entry ${e.entry}: ${JSON.stringify(e.quantized_alone)}`);

      // The suggestion and the model it exports.
      const s = report.suggestion;
      assert.equal(s.target.sqnr_db, target);
      assert.equal(s.target.set_by, 'the user');
      if (s.reached) {
        assert.ok(s.set.length > 0);
        const final = s.final.sqnr_db;
        assert.ok(final === 'exact' || final >= target, `${pair}: reached at ${final} for ${target}`);
      } else {
        assert.equal(typeof s.why_not_reached, 'string');
      }
      for (const step of s.steps) if (step.kept) assert.ok(s.set.includes(step.entry));
      const claimed = s.final ? s.final.sqnr_db : baseline;
      const measuredMixed = score(reference, await run(mixed, inputs, outputs.map((o) => o.quantized_output)), outputs);
      sameScore(claimed, measuredMixed, 0.2, `${pair} mixed-precision model`);

      // The exclusion lists name the float model's nodes.
      const names = new Set(checks.float_nodes);
      const ex = report.exports;
      assert.deepEqual(ex.set, s.set);
      for (const n of ex.onnxruntime.nodes_to_exclude) assert.ok(names.has(n), `${pair}: ${n} is not a float node`);
      assert.deepEqual(ex.nncf.names, ex.onnxruntime.nodes_to_exclude);
      ex.modelopt.nodes_to_exclude.forEach((p, i) => {
        const name = ex.onnxruntime.nodes_to_exclude[i];
        assert.ok(new RegExp(`^(?:${p})`).test(name), `${p} matches ${name}`);
        for (const other of names) if (other !== name) assert.ok(!new RegExp(`^(?:${p})`).test(other), `${p} matches ${other} too`);
      });
      if (s.set.length) assert.ok(ex.onnxruntime.nodes_to_exclude.length > 0 || ex.unnamed_entries.length > 0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
}

test('a layer whose input quantizer clips is ranked first', async () => {
  const pair = path.join(pairsDir, 'torch_eager_ptq_cnn');
  const dir = mkdtempSync(path.join(tmpdir(), 'vq-sens-damage-'));
  try {
    const damaged = path.join(dir, 'quant.onnx');
    // The stem's output quantizer, which /down/conv/Conv reads through: its range cut to an eighth.
    python('damage_scale.py', [path.join(pair, 'quant.onnx'), damaged, '/stem/conv/QuantizeLinear', '8']);
    copyFileSync(path.join(pair, 'float.onnx'), path.join(dir, 'float.onnx'));
    const inputs = await makeInputs(path.join(dir, 'float.onnx'));
    const { status, stderr, report } = sensitivity([path.join(dir, 'float.onnx'), damaged, ...writeInputs(dir, inputs), '--split', 'on']);
    assert.equal(status, 0, stderr);
    const first = report.entries.find((e) => e.entry === report.ranking[0]);
    assert.ok(first.float_nodes.includes('/down/conv/Conv'), JSON.stringify(first.float_nodes));
    // It is the activations, not the weights: keeping only its weights in float does not help.
    const both = first.keep_in_float.both.recovery.sqnr_gain_db;
    const weights = first.keep_in_float.weights.recovery.sqnr_gain_db;
    const acts = first.keep_in_float.activations.recovery.sqnr_gain_db;
    assert.ok(both > 5 && acts > 5 && weights < 1, `gain: both ${both}, weights ${weights}, activations ${acts}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('name-scope blocks: each block\'s entries share its scope, every block what-if checks out, the suggestion keeps whole blocks', async () => {
  const pair = 'torch_transformer_ptq';
  const floatPath = path.join(pairsDir, pair, 'float.onnx');
  const quantPath = path.join(pairsDir, pair, 'quant.onnx');
  const dir = mkdtempSync(path.join(tmpdir(), 'vq-sens-block-'));
  try {
    const inputs = await makeInputs(floatPath);
    const whatifs = path.join(dir, 'whatif');
    mkdirSync(whatifs);
    const { status, stderr, report } = sensitivity([floatPath, quantPath, ...writeInputs(dir, inputs), '--unit', 'block', '--block-depth', '1',
      '--target-sqnr', '60', '--whatif-dir', whatifs]);
    assert.equal(status, 0, stderr);
    assert.deepEqual(report.unit.kind, 'block');
    assert.deepEqual(report.entries.map((e) => e.block).sort(), ['/layers.0', '/layers.1']);
    for (const e of report.entries) {
      assert.ok(e.entries.length > 1);
      for (const n of e.float_nodes) assert.ok(n.startsWith(`${e.block}/`), `${n} in ${e.block}`);
    }
    // Both blocks in float give the float model back; the suggestion's set is whole blocks.
    assert.equal(report.suggestion.reached, true);
    const kept = report.suggestion.steps.filter((st) => st.kept).flatMap((st) => report.entries.find((e) => e.entry === st.entry).entries);
    assert.deepEqual(report.suggestion.set, [...new Set(kept)].sort((a, b) => a - b));
    const outputs = report.baseline.error.outputs;
    const reference = await run(floatPath, inputs, outputs.map((o) => o.float_output));
    for (const f of readdirSync(whatifs).map((x) => path.join(whatifs, x))) {
      const v = variantOf(report, f);
      if (v.status !== 'measured') continue;
      const reverse = path.basename(f).startsWith('alone-');
      const names = reverse ? outputs.map((o) => ({ float_output: o.float_output, quantized_output: o.float_output })) : outputs;
      sameScore(v.error.sqnr_db, score(reference, await run(f, inputs, names.map((o) => o.quantized_output)), names), 0.05, path.basename(f));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
