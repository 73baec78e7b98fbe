// `compare` in wasm gives the native CLI's report byte for byte, for every fixture pair and in
// both argument orders (the quantized side is detected).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { cli, root } from './paths.mjs';
import { wasmCore } from './wasm_core.mjs';

const pairsDir = path.join(root, 'tests/fixtures/pairs');
const pairs = readdirSync(pairsDir).filter((p) => existsSync(path.join(pairsDir, p, 'truth.json'))).sort();

function nativeCompare(a, b) {
  const r = spawnSync(cli, ['compare', a, b, '--json', '-'], { encoding: 'utf8', maxBuffer: 1 << 28 });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout;
}

test('there are fixture pairs', () => assert.ok(pairs.length >= 10));

for (const pair of pairs) {
  test(`compare wasm == native: ${pair}`, async () => {
    const floatPath = path.join(pairsDir, pair, 'float.onnx');
    const quantPath = path.join(pairsDir, pair, 'quant.onnx');
    const core = await wasmCore();
    const native = nativeCompare(floatPath, quantPath);
    const wasm = core.compare(readFileSync(floatPath), 'float.onnx', readFileSync(quantPath), 'quant.onnx');
    assert.equal(wasm, native);
    const report = JSON.parse(native);
    assert.equal(report.report, 'visualquant.compare');
    assert.equal(report.argument_order_swapped, false);
    // Given the other way round, the sides are detected and swapped back.
    const swapped = JSON.parse(core.compare(readFileSync(quantPath), 'quant.onnx', readFileSync(floatPath), 'float.onnx'));
    assert.equal(swapped.argument_order_swapped, true);
    assert.deepEqual(swapped.mapping, report.mapping);
  });
}
