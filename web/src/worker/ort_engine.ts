// onnxruntime-web in the core's thread, loaded on the first activation comparison: the page's
// worker fetches nothing of it before (it is 14 MB of wasm). The build copies the package's wasm
// bundle into ort/ next to the worker (web/build.mjs, vscode-extension/build.mjs); it is imported
// by URL, so that it stays out of the worker's own bundle, and under the page's CSP
// (script-src 'self' 'wasm-unsafe-eval') it loads like any script of the page.
// One thread: the page is not cross-origin isolated (no SharedArrayBuffer), and the extension host
// shares its cores with VS Code.
import type { OrtEngine } from '../../../runtime/web/activation_driver.mjs';
import { engineLabel } from '../../../runtime/web/activation_driver.mjs';

export interface LoadedOrt {
  ort: OrtEngine;
  /** How reports name it: "onnxruntime-web 1.30.0 (wasm, 1 thread)", as the command line's `--engine web`. */
  engine: string;
}

interface OrtModule extends OrtEngine {
  env: { versions: { web?: string; common?: string }; logLevel?: string; wasm: { numThreads?: number; proxy?: boolean; wasmBinary?: ArrayBuffer | Uint8Array } };
}

let loading: Promise<LoadedOrt> | null = null;
/** Bumped by resetOrt: a fresh import (another URL) is a fresh wasm instance of the engine. */
let instance = 0;

/** After the engine failed: the next comparison loads a fresh instance, never the one that failed. */
export function resetOrt(): void {
  loading = null;
  instance++;
}

/** The engine, loaded once per thread; a failed load is tried again on the next call. */
export function loadOrt(): Promise<LoadedOrt> {
  loading ??= load().catch((e: unknown) => {
    loading = null;
    throw Object.assign(new Error(`ONNX Runtime could not be loaded: ${e instanceof Error ? e.message : String(e)}`), { code: 'runtime_failure' });
  });
  return loading;
}

async function load(): Promise<LoadedOrt> {
  const base = new URL('ort/', self.location.href);
  // The wasm's bytes are fetched here and handed over (wasmBinary): the same in a browser worker and
  // in the extension host's thread, whose fetch reads only the extension's own files.
  const response = await fetch(new URL('ort-wasm-simd-threaded.wasm', base));
  if (!response.ok) throw new Error(`${new URL('ort-wasm-simd-threaded.wasm', base).pathname}: HTTP ${response.status}`);
  const wasmBinary = new Uint8Array(await response.arrayBuffer());
  const url = new URL(`ort.wasm.bundle.min.mjs${instance ? `?instance=${instance}` : ''}`, base).href;
  const ort = (await import(/* a URL, not bundled */ url)) as OrtModule;
  ort.env.logLevel = 'error';
  ort.env.wasm.numThreads = 1;
  ort.env.wasm.proxy = false;
  ort.env.wasm.wasmBinary = wasmBinary;
  const version = ort.env.versions.web ?? ort.env.versions.common ?? 'unknown';
  return { ort, engine: engineLabel('onnxruntime-web', version, 1) };
}
