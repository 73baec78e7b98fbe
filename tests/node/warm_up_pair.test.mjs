// The pair the core makes for the page's idle warm-up (wasm/warm_up_pair.h): valid ONNX files the
// CLI reads as a float model and its QDQ version, every node aligned, every weight analysed, the
// same bytes from every instance, and the shape asked for.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { cli } from './paths.mjs';
import { wasmCore } from './wasm_core.mjs';

test('the warm-up pair: a float model and its QDQ version, aligned whole by the CLI, the same bytes each time', async () => {
  const core = await wasmCore();
  const pair = core.warmUpPair(40, 8);
  const again = core.warmUpPair(40, 8);
  assert.deepEqual(again.float, pair.float);
  assert.deepEqual(again.quant, pair.quant);
  const dir = mkdtempSync(path.join(tmpdir(), 'vq-warm-up-'));
  try {
    writeFileSync(path.join(dir, 'float.onnx'), pair.float);
    writeFileSync(path.join(dir, 'quant.onnx'), pair.quant);
    const r = spawnSync(cli, ['compare', path.join(dir, 'float.onnx'), path.join(dir, 'quant.onnx'), '--json', '-'], { encoding: 'utf8', maxBuffer: 1 << 28 });
    assert.equal(r.status, 0, r.stderr);
    const report = JSON.parse(r.stdout);
    assert.equal(report.case, 'float_vs_quantized');
    assert.equal(report.argument_order_swapped, false);
    // 40 blocks of Conv, Relu, Conv, Add, and the head's Identity; on the quantized side each weight
    // behind a DequantizeLinear and each activation through QuantizeLinear -> DequantizeLinear.
    assert.equal(report.float.nodes, 40 * 4 + 1);
    assert.equal(report.summary.entries, 40 * 4 + 1);
    assert.ok(report.mapping.every((e) => e.kind === 'identical'), 'every node aligned with its own');
    assert.equal(report.weights.layers.length, 80);
    assert.ok(report.weights.layers.every((l) => l.codes?.type === 'int8' && l.shape[0] === 8 && l.shape[1] === 8));
    assert.ok(report.weights.layers.every((l) => l.error.sqnr_db > 30), 'int8 per channel: a small error');
    // The smaller pair of the same shape asked for.
    const small = core.warmUpPair(3, 2);
    const opened = core.open(small.float, 'float.onnx', small.quant, 'quant.onnx');
    try {
      assert.equal(JSON.parse(opened.report).summary.entries, 3 * 4 + 1);
    } finally {
      opened.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
