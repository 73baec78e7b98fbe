// Memory made resident ahead of need (VisualQuant.residentMemory, used by the page's idle worker):
// it grows the core's memory once, is written piece by piece, and once freed is where the next
// allocations land, so that a pair opened after it writes no fresh memory of its own.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { root, wasmDist } from './paths.mjs';
import { wasmModuleExports } from './wasm_core.mjs';

const wasmBinary = readFileSync(path.join(wasmDist, 'visualquant_core.wasm'));
const MB = 1 << 20;
const PAIR = 'ort_fused_transformer';

test('resident memory is written piece by piece and, freed, holds a pair opened after it', async () => {
  const { loadVisualQuant } = await wasmModuleExports();
  const vq = await loadVisualQuant({ wasmBinary });
  const memory = vq.residentMemory(64 * MB);
  assert.ok(memory.pointer > 0 && vq.module.HEAPU8.length >= memory.pointer + 64 * MB, 'the memory grew to hold it');
  vq.module.HEAPU8.fill(0xAB, memory.pointer, memory.pointer + 64 * MB);
  let pieces = 1;
  while (memory.touch(16 * MB)) pieces++;
  assert.equal(pieces, 4);
  assert.equal(vq.module.HEAPU8[memory.pointer], 0);
  assert.equal(vq.module.HEAPU8[memory.pointer + 64 * MB - 1], 0, 'every piece was written');
  assert.equal(memory.touch(16 * MB), false, 'nothing left');
  memory.free();
  memory.free();  // twice is harmless
  const grown = vq.module.HEAPU8.length;
  const pairDir = path.join(root, 'tests/fixtures/pairs', PAIR);
  const float = readFileSync(path.join(pairDir, 'float.onnx')), quant = readFileSync(path.join(pairDir, 'quant.onnx'));
  const pair = vq.open(float, 'float.onnx', quant, 'quant.onnx');
  pair.layout();
  pair.close();
  assert.equal(vq.module.HEAPU8.length, grown, 'the open found its memory in what was freed');
});
