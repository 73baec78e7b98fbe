// Builds the web page into web/dist with esbuild: the UI (main.js, with the chart code split into
// a chunk loaded on first use), the core's Web Worker (worker.js, the wasm wrapper bundled in), the
// wasm module next to it, the page and its styles. Needs the wasm build (build/wasm/dist).
//   node web/build.mjs [--wasm-dist DIR] [--out DIR]   (VQ_NO_MINIFY=1: readable bundles, for profiling)
import { build } from 'esbuild';
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleOptions, copyOrt, requireWasmBuild } from './build_support.mjs';

const web = path.dirname(fileURLToPath(import.meta.url));
const root = path.dirname(web);
const arg = (name, fallback) => {
  const at = process.argv.indexOf(name);
  return at >= 0 ? path.resolve(process.argv[at + 1]) : fallback;
};
const wasmDist = arg('--wasm-dist', process.env.VQ_WASM_DIST ?? path.join(root, 'build/wasm/dist'));
const out = arg('--out', path.join(web, 'dist'));

requireWasmBuild(wasmDist, 'web');

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
const common = { ...bundleOptions(wasmDist), format: 'esm' };
await Promise.all([
  build({
    ...common,
    entryPoints: { main: path.join(web, 'src/main.ts'), styles: path.join(web, 'src/styles.css') },
    outdir: out,
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
    platform: 'browser',
  }),
  build({
    ...common,
    entryPoints: { worker: path.join(web, 'src/worker/core_worker.ts') },
    outdir: out,
    platform: 'browser',
    // Emscripten's Node-only branches (never taken in a worker) import Node modules.
    external: ['node:*', 'fs', 'path', 'url', 'module', 'crypto', 'worker_threads'],
  }),
]);
copyFileSync(path.join(wasmDist, 'visualquant_core.wasm'), path.join(out, 'visualquant_core.wasm'));
copyFileSync(path.join(web, 'src/index.html'), path.join(out, 'index.html'));
copyOrt(out);
console.log(`[web] built ${path.relative(root, out) || out}`);
