// Builds the VS Code extension into vscode-extension/dist with esbuild:
//   extension.js      the extension (CommonJS, for the extension host)
//   core_worker.mjs   the core's worker thread: the web page's Web Worker script with Node globals, the wasm wrapper bundled in
//   visualquant_core.wasm
//   webview/          the two pages: compare (the web UI with the VS Code host) and viewer (one model), their
//                     templates (compare.html; viewer_parts.html, what the viewer puts into it) and styles; no
//                     code splitting, so every script is the one the page's nonce allows
// and, with --package, the .vsix (@vscode/vsce) in build/vscode/; with --tests DIR, the unit tests bundled into DIR.
//   node vscode-extension/build.mjs [--package] [--tests DIR] [--wasm-dist DIR]
import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleOptions, copyOrt, requireWasmBuild } from '../web/build_support.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.dirname(here);
const arg = (name) => {
  const at = process.argv.indexOf(name);
  return at >= 0 ? path.resolve(process.argv[at + 1]) : null;
};
const wasmDist = arg('--wasm-dist') ?? process.env.VQ_WASM_DIST ?? path.join(root, 'build/wasm/dist');
const out = path.join(here, 'dist');
const web = path.join(root, 'web/src');

requireWasmBuild(wasmDist, 'vscode');

rmSync(out, { recursive: true, force: true });
mkdirSync(path.join(out, 'webview'), { recursive: true });
const common = bundleOptions(wasmDist);
await Promise.all([
  build({
    ...common,
    entryPoints: { extension: path.join(here, 'src/extension.ts') },
    outdir: out,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['vscode'],
  }),
  build({
    ...common,
    entryPoints: { core_worker: path.join(here, 'src/host/core_worker_node.ts') },
    outdir: out,
    outExtension: { '.js': '.mjs' },
    platform: 'node',
    format: 'esm',
    target: 'node20',
  }),
  build({
    ...common,
    entryPoints: { compare: path.join(here, 'src/webview/compare_main.ts'), viewer: path.join(here, 'src/webview/viewer_main.ts') },
    outdir: path.join(out, 'webview'),
    platform: 'browser',
    format: 'esm',
  }),
  build({
    ...common,
    entryPoints: { styles: path.join(web, 'styles.css') },
    outdir: path.join(out, 'webview'),
  }),
]);
copyFileSync(path.join(wasmDist, 'visualquant_core.wasm'), path.join(out, 'visualquant_core.wasm'));
copyFileSync(path.join(web, 'index.html'), path.join(out, 'webview/compare.html'));
copyFileSync(path.join(here, 'src/webview/viewer_parts.html'), path.join(out, 'webview/viewer_parts.html'));  // with compare.html: the viewer's page
copyFileSync(path.join(here, 'src/webview/vscode.css'), path.join(out, 'webview/vscode.css'));
copyOrt(out);  // beside core_worker.mjs, which runs the models
console.log(`[vscode] built ${path.relative(root, out)}`);

const testsOut = arg('--tests');
if (testsOut) {
  rmSync(testsOut, { recursive: true, force: true });
  const tests = readdirSync(path.join(here, 'test')).filter((f) => f.endsWith('.test.ts'));
  await build({
    ...common,
    minify: false,
    entryPoints: tests.map((f) => path.join(here, 'test', f)),
    outdir: testsOut,
    outExtension: { '.js': '.mjs' },
    platform: 'node',
    format: 'esm',
    target: 'node20',
    external: ['vscode'],
  });
  console.log(`[vscode] unit tests in ${path.relative(root, testsOut)}`);
}

if (process.argv.includes('--package')) {
  const version = JSON.parse(readFileSync(path.join(here, 'package.json'), 'utf8')).version;
  const vsixDir = path.join(root, 'build/vscode');
  mkdirSync(vsixDir, { recursive: true });
  const vsix = path.join(vsixDir, `visualquant-${version}.vsix`);
  const vsce = path.join(here, 'node_modules/@vscode/vsce/vsce');
  const r = spawnSync(process.execPath, [vsce, 'package', '--no-dependencies', '--allow-missing-repository', '--out', vsix],
    { cwd: here, stdio: ['ignore', 'inherit', 'inherit'] });
  if (r.status !== 0) process.exit(r.status ?? 1);
  console.log(`[vscode] packaged ${path.relative(root, vsix)}`);
}
