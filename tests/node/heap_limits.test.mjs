// The core's memory at its limits: a file held past the first 2 GiB of wasm memory is written where
// it belongs (addresses read as unsigned: the export's i32 is negative there, and a negative address
// made a bare "offset is out of bounds"), and a block larger than the allocator can give is refused
// with the size and the limit, the instance still working.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { wasmDist } from './paths.mjs';
import { wasmModuleExports } from './wasm_core.mjs';

const wasmBinary = readFileSync(path.join(wasmDist, 'visualquant_core.wasm'));

test('a file past 2 GiB of wasm memory lands where the core reads it; a block past the limit is refused in words', async () => {
  const { loadVisualQuant, VisualQuantError } = await wasmModuleExports();
  const vq = await loadVisualQuant({ wasmBinary });
  const low = vq.heapFile(2 ** 31 - 2 ** 24);  // the largest model file the page holds (protocol/file_limits.ts)
  low.write(new Uint8Array(16));
  const filler = vq.heapFile(32 << 20);
  const high = vq.heapFile(64 << 20);
  high.write(Uint8Array.from([7, 8, 9]));
  assert.ok(high.pointer > 2 ** 31, `placed at ${high.pointer}`);
  assert.deepEqual([...vq.module.HEAPU8.subarray(high.pointer, high.pointer + 3)], [7, 8, 9]);
  for (const f of [low, filler, high]) f.free();
  assert.throws(() => vq.heapFile(2 ** 32), (e) => e instanceof VisualQuantError && e.code === 'out_of_memory'
    && /cannot hold 4294967296 bytes \(4\.00 GiB\) in wasm memory: it is [\d.]+ GiB now, grows to 4\.00 GiB at most/.test(e.message));
  // A fresh instance gives no single block of 2 GiB at once (why a model file held whole stops below it).
  const fresh = await loadVisualQuant({ wasmBinary });
  assert.throws(() => fresh.heapFile(2 ** 31), (e) => e instanceof VisualQuantError && e.code === 'out_of_memory');
  assert.equal(vq.failed, false);
  assert.match(vq.version, /\d/);
});
