// What the web page's build (web/build.mjs) and the VS Code extension's (vscode-extension/build.mjs)
// share: the wasm build they bundle, and the esbuild options every bundle of theirs starts from.
import { existsSync } from 'node:fs';
import path from 'node:path';

// Exits with a clear message when the wasm build is missing ("[tag] ... is missing").
export function requireWasmBuild(wasmDist, tag) {
  for (const f of ['visualquant.mjs', 'visualquant_core.mjs', 'visualquant_core.wasm']) {
    if (!existsSync(path.join(wasmDist, f))) {
      console.error(`[${tag}] ${path.join(wasmDist, f)} is missing: build the wasm core first (scripts/build wasm)`);
      process.exit(1);
    }
  }
}

// Bundled, minified, with source maps and linked licences; the wasm wrapper's types come from
// wasm/visualquant.d.mts (tsconfig paths), its code from the wasm build. ONNX files imported by code
// (the worker's warm-up pair) are bundled as bytes.
export function bundleOptions(wasmDist) {
  return {
    bundle: true,
    target: 'es2022',
    minify: process.env.VQ_NO_MINIFY !== '1',
    sourcemap: true,
    legalComments: 'linked',
    logLevel: 'warning',
    alias: { 'visualquant-core': path.join(wasmDist, 'visualquant.mjs') },
    loader: { '.onnx': 'binary' },
  };
}
