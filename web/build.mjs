// Builds the web page into web/dist with esbuild: the UI (boot.js, which starts the core, and main.js,
// with the chart code split into chunks loaded on first use), the core's Web Worker (worker.js, the wasm wrapper bundled in), the
// wasm module next to it, the page and its styles. Needs the wasm build (build/wasm/dist).
//   node web/build.mjs [--wasm-dist DIR] [--out DIR]   (VQ_NO_MINIFY=1: readable bundles, for profiling)
import { build } from 'esbuild';
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
const [page] = await Promise.all([
  build({
    ...common,
    entryPoints: { boot: path.join(web, 'src/boot.ts'), main: path.join(web, 'src/main.ts'), styles: path.join(web, 'src/styles.css') },
    outdir: out,
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
    platform: 'browser',
    metafile: true,
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
writeFileSync(path.join(out, 'index.html'), withModulePreloads(readFileSync(path.join(web, 'src/index.html'), 'utf8'), page.metafile));
copyOrt(out);
console.log(`[web] built ${path.relative(root, out) || out}`);

/**
 * The page with a modulepreload link for each chunk its scripts import statically: without them the
 * browser learns of the chunks only once a script has arrived and been parsed, one round trip later.
 * Chunks loaded on first use (the charts) are left to load then.
 */
function withModulePreloads(html, metafile) {
  const firstScript = '  <script type="module" src="boot.js"></script>\n';
  if (!html.includes(firstScript)) throw new Error('web/src/index.html: no boot.js script tag to put the chunk preloads before');
  const chunks = new Set();
  for (const [file, output] of Object.entries(metafile.outputs)) {
    if (!['boot.js', 'main.js'].includes(path.basename(file)) || path.dirname(path.resolve(file)) !== out) continue;
    for (const i of output.imports) if (i.kind === 'import-statement') chunks.add(path.relative(out, path.resolve(i.path)).split(path.sep).join('/'));
  }
  const links = [...chunks].sort().map((chunk) => `  <link rel="modulepreload" href="${chunk}">\n`).join('');
  return html.replace(firstScript, links + firstScript);
}
