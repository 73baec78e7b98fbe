// What the wasm benchmarks under Node share: loading the module from a dist folder, timing a call,
// and the median of repeated timings.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

export async function loadCore(dist) {
  const { loadVisualQuant } = await import(pathToFileURL(path.join(dist, 'visualquant.mjs')).href);
  return loadVisualQuant({ wasmBinary: readFileSync(path.join(dist, 'visualquant_core.wasm')) });
}

export const median = (v) => [...v].sort((x, y) => x - y)[Math.floor(v.length / 2)];

// [seconds, result] of one call.
export function time(f) {
  const t0 = process.hrtime.bigint();
  const r = f();
  return [Number(process.hrtime.bigint() - t0) / 1e9, r];
}
