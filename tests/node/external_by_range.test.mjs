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

/** Whether a read "FILE OFFSET LENGTH" lies within one of the places ("LOCATION OFFSET LENGTH"). */
function withinOnePlace(read, places) {
  const [file, offset, length] = read.split(' ');
  return [...places].some((p) => {
    const [f, o, l] = p.split(' ');
    return f === file && Number(offset) >= Number(o) && Number(offset) + Number(length) <= Number(o) + Number(l);
  });
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
    // Read a weight at a time: every read lies within one tensor's bytes (the whole of it, or a part
    // alignment samples), never across a file of several.
    assert.ok(reads.length > 0);
    assert.deepEqual(reads.filter((r) => !withinOnePlace(r, places)), []);
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

// Alignment samples a few runs of each weight: read by range, it reads those runs (in aligned spans
// of 64 KB, LazyPayload in core/model/model.h), not the weights, so that a page given a large model
// by URL moves a small part of it before drawing. A decoder layer written by bench/make_llm_pair.py
// (float32 against QDQ int8: projections of 1024 x 1024 and 1024 x 2048, 4 and 8 MB, stored [K, N],
// channels last). The quantized side's int8 weights (1 and 2 MB) are small enough against the spans
// that most are read whole once the spans add up to a quarter of them: the float side is measured.
test('alignment reads a sample of each weight by range, the analysis reads them whole; reports as if read whole', async () => {
  const { RangeFile } = await wasmModuleExports();
  const core = await wasmCore();
  const dir = path.join(work, 'decoder');
  const made = spawnSync('/usr/bin/python3', [path.join(root, 'bench/make_llm_pair.py'), dir, '--layers', '1', '--d', '1024', '--ffn', '2048',
    '--vocab', '256', '--heads', '8', '--float', 'float32', '--quant', 'qdq-int8'], { encoding: 'utf8' });
  assert.equal(made.status, 0, made.stderr);
  const floatBytes = readFileSync(path.join(dir, 'float.onnx')), quantBytes = readFileSync(path.join(dir, 'quant.onnx'));
  const dataFiles = ['float.onnx.data', 'quant.onnx.data'];
  const floatData = fs.statSync(path.join(dir, 'float.onnx.data')).size;
  let read = 0;
  const byRange = () => Object.fromEntries(dataFiles.map((f) => [f, RangeFile.ofPath(fs, path.join(dir, f), f, (offset, length) => {
    if (f === 'float.onnx.data') read += length;
  })]));
  const whole = Object.fromEntries(dataFiles.map((f) => [f, readFileSync(path.join(dir, f))]));
  const aligned = core.compare(floatBytes, 'float.onnx', quantBytes, 'quant.onnx', byRange(), { weights: false });
  assert.equal(aligned, core.compare(floatBytes, 'float.onnx', quantBytes, 'quant.onnx', whole, { weights: false }));
  // Every projection is matched by its weight's content (what the samples are for).
  const byContent = JSON.parse(aligned).mapping.filter((m) => /_proj\/MatMul$/.test(m.float[0]) && m.evidence.some((e) => e.startsWith('weight content')));
  assert.equal(byContent.length, 7);
  assert.ok(read < floatData / 4, `alignment read ${read} of ${floatData} bytes of float weights`);
  read = 0;
  const native = spawnSync(cli, ['compare', path.join(dir, 'float.onnx'), path.join(dir, 'quant.onnx'), '--json', '-'], { encoding: 'utf8', maxBuffer: 1 << 28 });
  assert.equal(native.status, 0, native.stderr);
  assert.equal(core.compare(floatBytes, 'float.onnx', quantBytes, 'quant.onnx', byRange()), native.stdout);
  assert.ok(read >= floatData * 0.95, `the analysis read ${read} of ${floatData} bytes of float weights`);
});
