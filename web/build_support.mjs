// What the web page's build (web/build.mjs) and the VS Code extension's (vscode-extension/build.mjs)
// share: the wasm build they bundle, and the esbuild options every bundle of theirs starts from.
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

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

// onnxruntime-web for the activation comparison, into DIR/ort/: its wasm bundle (the engine's
// JavaScript with its Emscripten glue inlined), the wasm it runs, and a licence note (the npm
// package ships none: its package.json says MIT, the licence of ONNX Runtime). The core's thread
// imports it by URL on first use (web/src/worker/ort_engine.ts), so it is not in any bundle.
export function copyOrt(outDir) {
  // The project's own copy (its package.json exports no subpath to resolve it by).
  const pkg = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'node_modules', 'onnxruntime-web');
  const { version, license } = JSON.parse(readFileSync(path.join(pkg, 'package.json'), 'utf8'));
  const to = path.join(outDir, 'ort');
  mkdirSync(to, { recursive: true });
  for (const f of ['dist/ort.wasm.bundle.min.mjs', 'dist/ort-wasm-simd-threaded.wasm']) copyFileSync(path.join(pkg, f), path.join(to, path.basename(f)));
  writeFileSync(path.join(to, 'LICENSE.txt'), `onnxruntime-web ${version} (https://github.com/microsoft/onnxruntime), licence: ${license}

MIT License

Copyright (c) Microsoft Corporation

Permission is hereby granted, free of charge, to any person obtaining a copy
of this software and associated documentation files (the "Software"), to deal
in the Software without restriction, including without limitation the rights
to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
copies of the Software, and to permit persons to whom the Software is
furnished to do so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in all
copies or substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
SOFTWARE.
`);
}
