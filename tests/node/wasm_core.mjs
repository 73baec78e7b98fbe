// Loads the wasm core once for the Node tests, the way any Node caller does.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { wasmDist } from './paths.mjs';

let cached;
export async function wasmCore() {
  if (!cached) {
    const { loadVisualQuant } = await import(pathToFileURL(path.join(wasmDist, 'visualquant.mjs')).href);
    cached = await loadVisualQuant({ wasmBinary: readFileSync(path.join(wasmDist, 'visualquant_core.wasm')) });
  }
  return cached;
}

export async function wasmModuleExports() {
  return import(pathToFileURL(path.join(wasmDist, 'visualquant.mjs')).href);
}
