// The three-way table the page and the extension make from two open comparisons (float with A,
// the same float model with B) is the CLI's `compare FLOAT A B --json -` byte for byte, whether the
// weights were analysed before (the page asks for A's first) or not; a pair that is not a float
// model and its version is refused with the core's usage error.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { cli, root } from './paths.mjs';
import { wasmCore } from './wasm_core.mjs';

const versions = path.join(root, 'tests/fixtures/versions');
const pairs = path.join(root, 'tests/fixtures/pairs');

function native(f, a, b) {
  const r = spawnSync(cli, ['compare', f, a, b, '--json', '-'], { encoding: 'utf8', maxBuffer: 1 << 28 });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout;
}

const triples = [
  ['torch eager PTQ vs FX PTQ', path.join(versions, 'torch_cnn_three_way'), 'float.onnx', 'eager_ptq.onnx', 'fx_ptq.onnx'],
  ['torch FX PTQ vs QAT', path.join(versions, 'torch_cnn_three_way'), 'float.onnx', 'fx_ptq.onnx', 'qat.onnx'],
];

for (const [title, dir, f, a, b] of triples) {
  for (const weightsFirst of [false, true]) {
    test(`three-way wasm == native: ${title}${weightsFirst ? ', weights asked first' : ''}`, async () => {
      const core = await wasmCore();
      const bytes = (name) => readFileSync(path.join(dir, name));
      const pairA = core.open(bytes(f), f, bytes(a), a);
      const pairB = core.open(bytes(f), f, bytes(b), b);
      try {
        if (weightsFirst) pairA.weights(0, { detail: false });
        let calls = 0;
        const text = pairA.threeWay(pairB, { onProgress: () => calls++ });
        assert.equal(text, native(path.join(dir, f), path.join(dir, a), path.join(dir, b)));
        assert.ok(calls > 0, 'the weight analysis reports progress');
        const report = JSON.parse(text);
        assert.equal(report.case, 'three_way');
        assert.deepEqual(report.versions.map((v) => v.quant.file), [a, b]);
      } finally {
        pairA.close();
        pairB.close();
      }
    });
  }
}

test('three-way refuses a pair that is not a float model and its version', async () => {
  const core = await wasmCore();
  const dir = path.join(versions, 'torch_cnn_three_way');
  const bytes = (name) => readFileSync(path.join(dir, name));
  const quantPair = core.open(bytes('eager_ptq.onnx'), 'eager_ptq.onnx', bytes('fx_ptq.onnx'), 'fx_ptq.onnx');
  const pairB = core.open(bytes('float.onnx'), 'float.onnx', bytes('qat.onnx'), 'qat.onnx');
  try {
    assert.throws(() => quantPair.threeWay(pairB), (e) => e.code === 'usage' && /float model and two quantized versions/.test(e.message));
  } finally {
    quantPair.close();
    pairB.close();
  }
  // Two versions of different float models.
  const other = path.join(pairs, 'torch_eager_ptq_cnn_perchannel');
  const pairA = core.open(bytes('float.onnx'), 'float.onnx', bytes('fx_ptq.onnx'), 'fx_ptq.onnx');
  const foreign = core.open(readFileSync(path.join(other, 'float.onnx')), 'float.onnx', readFileSync(path.join(other, 'quant.onnx')), 'quant.onnx');
  try {
    assert.throws(() => pairA.threeWay(foreign), (e) => e.code === 'usage' && /one float model/.test(e.message));
    assert.throws(() => pairA.threeWay({}), (e) => e.code === 'usage');
  } finally {
    pairA.close();
    foreign.close();
  }
});
