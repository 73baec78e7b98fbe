// `visualquant sensitivity` as a user meets it: usage errors, outputs that would overwrite an input,
// synthetic inputs labelled, the exclusion snippets valid Python that names the float model's
// nodes, and a sweep interrupted with Ctrl-C reporting what it measured.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { cli, root } from './paths.mjs';

const pair = (name) => [path.join(root, 'tests/fixtures/pairs', name, 'float.onnx'), path.join(root, 'tests/fixtures/pairs', name, 'quant.onnx')];

function sensitivity(args) {
  return spawnSync(cli, ['sensitivity', ...args], { encoding: 'utf8', maxBuffer: 1 << 28 });
}

test('bad options are usage errors', () => {
  const [f, q] = pair('torch_eager_ptq_cnn');
  for (const args of [[f], [f, q, '--target-sqnr', 'loud'], [f, q, '--keep', '1,x'], [f, q, '--split', 'maybe'],
    [f, q, '--exclude-format', 'tflite'], [f, q, '--out', '-'], [f, q, '--samples', '2', '--input', 'x.npy']]) {
    const r = sensitivity(args);
    assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
  }
  const r = sensitivity([f, q, '--keep', '999']);
  assert.equal(r.status, 3);
  assert.match(r.stderr, /there is no entry 999/);
});

test('the mixed model is never written over an input', () => {
  const [f, q] = pair('torch_eager_ptq_cnn');
  const before = readFileSync(q);
  const r = sensitivity([f, q, '--out', q]);
  assert.equal(r.status, 3, r.stderr);
  assert.match(r.stderr, /error \[output_is_input\]/);
  assert.deepEqual(readFileSync(q), before);
});

test('synthetic inputs are said so, and the snippets are Python naming float nodes', () => {
  const [f, q] = pair('torch_eager_ptq_cnn');
  const dir = mkdtempSync(path.join(tmpdir(), 'vq-sens-cli-'));
  try {
    for (const format of ['ort', 'modelopt', 'nncf']) {
      const r = sensitivity([f, q, '--split', 'off', '--target-sqnr', '45', '--exclude-format', format]);
      assert.equal(r.status, 0, r.stderr);
      assert.match(r.stdout, /synthetic inputs \(seeded, from the declared types and shapes\): every figure is directional only/);
      assert.match(r.stdout, /reached with \d+ entries kept in float/);
      const snippet = r.stdout.slice(r.stdout.indexOf('# ', r.stdout.indexOf('--exclude-format ort|modelopt|nncf')));
      // Run as Python (nncf stubbed): the list it defines names nodes of the float model.
      const py = `import sys, types, json, onnx, re\nsys.modules['nncf'] = types.SimpleNamespace(IgnoredScope=lambda names: names)\n` +
        `${snippet}\nnames = [n.name for n in onnx.load(${JSON.stringify(f)}).graph.node]\n` +
        `got = ignored_scope if ${JSON.stringify(format)} == 'nncf' else nodes_to_exclude\n` +
        `hit = [n for n in names if any(re.match(p, n) for p in got)] if ${JSON.stringify(format)} == 'modelopt' else [n for n in got if n in names]\n` +
        `print(json.dumps({'got': len(got), 'hit': len(hit)}))\n`;
      const out = spawnSync('/usr/bin/python3', ['-c', py], { encoding: 'utf8' });
      assert.equal(out.status, 0, out.stderr + snippet);
      const { got, hit } = JSON.parse(out.stdout);
      assert.ok(got > 0 && hit === got, `${format}: ${got} names, ${hit} in the float model`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('Ctrl-C stops the sweep and reports what was measured', async () => {
  const [f, q] = pair('torch_transformer_ptq');
  const dir = mkdtempSync(path.join(tmpdir(), 'vq-sens-int-'));
  try {
    const json = path.join(dir, 'report.json');
    const child = spawn(cli, ['sensitivity', f, q, '--split', 'on', '--samples', '4', '--json', json], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => { stderr += d; });
    const exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
    await new Promise((resolve) => setTimeout(resolve, 400));
    child.kill('SIGINT');
    const code = await exited;
    assert.equal(code, 3, stderr);
    assert.ok(existsSync(json));
    const report = JSON.parse(readFileSync(json, 'utf8'));
    assert.equal(report.cancelled, true);
    for (const e of report.entries)
      for (const v of Object.values(e.keep_in_float)) assert.ok(['measured', 'failed', 'not run'].includes(v.status));
    assert.ok(report.entries.some((e) => e.keep_in_float.both.status === 'not run'), 'the sweep did not finish');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a quantized model with external data: the mixed model is written beside it, refused elsewhere', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'vq-sens-ext-'));
  try {
    const made = spawnSync('/usr/bin/python3', ['-c', `
import onnx, sys
for side in ['float', 'quant']:
    m = onnx.load('${path.join(root, 'tests/fixtures/pairs/ort_qoperator_cnn')}/' + side + '.onnx')
    onnx.save_model(m, '${dir}/' + side + '.onnx', save_as_external_data=True, all_tensors_to_one_file=True, location=side + '.data', size_threshold=64)
`], { encoding: 'utf8' });
    assert.equal(made.status, 0, made.stderr);
    const elsewhere = mkdtempSync(path.join(tmpdir(), 'vq-sens-out-'));
    const refused = sensitivity([path.join(dir, 'float.onnx'), path.join(dir, 'quant.onnx'), '--split', 'off', '--out', path.join(elsewhere, 'mixed.onnx')]);
    assert.equal(refused.status, 3);
    assert.match(refused.stderr, /error \[output_not_standalone\]: .*write it into the quantized model's folder/);
    assert.ok(!existsSync(path.join(elsewhere, 'mixed.onnx')));
    rmSync(elsewhere, { recursive: true, force: true });
    const r = sensitivity([path.join(dir, 'float.onnx'), path.join(dir, 'quant.onnx'), '--split', 'off', '--target-sqnr', '45', '--out', path.join(dir, 'mixed.onnx')]);
    assert.equal(r.status, 0, r.stderr);
    assert.ok(existsSync(path.join(dir, 'mixed.onnx')));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('activations --keep: the what-if\'s tensors, its output the sweep\'s figure for that set, nothing left behind', () => {
  const [f, q] = pair('torch_eager_ptq_cnn');
  const before = readdirSync(tmpdir()).filter((n) => n.startsWith('visualquant-whatif-')).length;
  const act = spawnSync(cli, ['activations', f, q, '--keep', '4,2', '--json', '-'], { encoding: 'utf8', maxBuffer: 1 << 28 });
  assert.equal(act.status, 0, act.stderr);
  const report = JSON.parse(act.stdout);
  assert.equal(report.quantized_model, 'quant.onnx with entries 2, 4 kept in float');
  // The kept entries' ops are the float model's copies; their own error is none where they read exact inputs.
  assert.ok(report.points.some((p) => p.quant_nodes.some((n) => n.startsWith('visualquant.float//down/conv/Conv'))));
  const output = report.points.find((p) => p.model_output === 0).accumulated.sqnr_db;
  const chosen = JSON.parse(sensitivity([f, q, '--keep', '2,4', '--measure', 'chosen', '--json', '-']).stdout).chosen;
  assert.equal(output, chosen.error.sqnr_db);
  assert.equal(readdirSync(tmpdir()).filter((n) => n.startsWith('visualquant-whatif-')).length, before, 'the temporary what-if is removed');
  const bad = spawnSync(cli, ['activations', f, q, '--keep', '999'], { encoding: 'utf8' });
  assert.equal(bad.status, 3);
  assert.match(bad.stderr, /error \[cannot_keep_in_float\]: entry 999 cannot be kept in float: there is no such entry/);
});

test('the main job\'s script passes the sensitivity command through', () => {
  const [f, q] = pair('torch_eager_ptq_cnn');
  const r = spawnSync(path.join(root, 'scripts/visualquant'), ['sensitivity', f, q, '--keep', 'none', '--measure', 'chosen'], { encoding: 'utf8', maxBuffer: 1 << 28 });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /the chosen set \(0 entries\): \d+\.\d+ dB/);
});
