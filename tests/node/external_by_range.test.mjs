// External-data files read by range (RangeFile: the page's File slices and URL ranges, Node's and
// the extension host's fs.readSync), a weight at a time, give the native CLI's compare report to
// the byte, as the same files handed over whole do. Pairs saved with their weights in several
// files: one shared at unaligned offsets, files of their own, one in a subfolder
// (tests/fixtures/externalise.py). A file that cannot be read is a clear error, not a failed core.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cli, root } from './paths.mjs';
import { wasmCore, wasmModuleExports } from './wasm_core.mjs';

const pairs = ['ort_qdq_renamed_bnfold_fp16', 'ort_qdq_blockwise_int4', 'ort_matmulnbits_4bit', 'vendor_trt_int4_awq', 'ortopt_transformer_ptq', 'ort_qoperator_cnn', 'vendor_quark_qdq'];
const work = mkdtempSync(path.join(os.tmpdir(), 'vq-range-'));
test.after(() => rmSync(work, { recursive: true, force: true }));

/**
 * The pair's two models written to a folder of their own with external data: {dir, files, places},
 * places being each moved tensor's "LOCATION OFFSET LENGTH".
 */
function externalised(pair) {
  const dir = path.join(work, pair);
  const places = [];
  for (const side of ['float', 'quant']) {
    const r = spawnSync('/usr/bin/python3', [path.join(root, 'tests/fixtures/externalise.py'), path.join(root, 'tests/fixtures/pairs', pair, `${side}.onnx`), dir, side], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    places.push(...r.stdout.trim().split('\n'));
  }
  return { dir, files: [...new Set(places.map((p) => p.split(' ')[0]))], places: new Set(places) };
}

for (const pair of pairs) {
  test(`external data read by range == native == given whole: ${pair}`, async () => {
    const { RangeFile } = await wasmModuleExports();
    const core = await wasmCore();
    const { dir, files, places } = externalised(pair);
    const floatPath = path.join(dir, 'float.onnx'), quantPath = path.join(dir, 'quant.onnx');
    const native = spawnSync(cli, ['compare', floatPath, quantPath, '--json', '-'], { encoding: 'utf8', maxBuffer: 1 << 28 });
    assert.equal(native.status, 0, native.stderr);
    const reads = [];
    const byRange = Object.fromEntries(files.map((f) => [f, RangeFile.ofPath(fs, path.join(dir, f), f, (offset, length) => reads.push(`${f} ${offset} ${length}`))]));
    const wasm = core.compare(readFileSync(floatPath), 'float.onnx', readFileSync(quantPath), 'quant.onnx', byRange);
    assert.equal(wasm, native.stdout);
    const whole = Object.fromEntries(files.map((f) => [f, readFileSync(path.join(dir, f))]));
    assert.equal(core.compare(readFileSync(floatPath), 'float.onnx', readFileSync(quantPath), 'quant.onnx', whole), native.stdout);
    // Read a weight at a time: every read is exactly one tensor's bytes, never a whole file of several.
    assert.ok(reads.length > 0);
    assert.deepEqual(reads.filter((r) => !places.has(r)), []);
    // The open comparison reads the same way: weights and lint as the CLI's weights command says.
    const open = core.open(readFileSync(floatPath), 'float.onnx', readFileSync(quantPath), 'quant.onnx', byRange);
    try {
      assert.deepEqual(JSON.parse(open.weights()).layers, JSON.parse(native.stdout).weights.layers);
    } finally {
      open.close();
    }
  });
}

test('a file that cannot be read by range is an io error naming it, and the core goes on', async () => {
  const { RangeFile, VisualQuantError } = await wasmModuleExports();
  const core = await wasmCore();
  const { dir, files } = externalised('ort_matmulnbits_4bit');
  const given = Object.fromEntries(files.map((f) => [f, new RangeFile(readFileSync(path.join(dir, f)).length, () => {
    throw new Error('the file was removed');
  })]));
  assert.throws(() => core.compare(readFileSync(path.join(dir, 'float.onnx')), 'float.onnx', readFileSync(path.join(dir, 'quant.onnx')), 'quant.onnx', given),
    (e) => e instanceof VisualQuantError && e.code === 'io' && /external data file '[^']+\.bin': the file was removed/.test(e.message) && /at offset \d+/.test(e.message));
  assert.equal(core.failed, false);
  // A file shorter than the model says is refused when loading, before any read.
  const short = Object.fromEntries(files.map((f) => [f, new RangeFile(10, () => assert.fail('not read'))]));
  assert.throws(() => core.compare(readFileSync(path.join(dir, 'float.onnx')), 'float.onnx', readFileSync(path.join(dir, 'quant.onnx')), 'quant.onnx', short),
    (e) => e instanceof VisualQuantError && e.code === 'external_range_out_of_file');
  assert.ok(JSON.parse(core.compare(readFileSync(path.join(root, 'tests/fixtures/pairs/ort_qdq_cnn_uint8/float.onnx')), 'float.onnx',
    readFileSync(path.join(root, 'tests/fixtures/pairs/ort_qdq_cnn_uint8/quant.onnx')), 'quant.onnx')).mapping.length > 0);
});
