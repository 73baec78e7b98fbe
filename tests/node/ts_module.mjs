// A TypeScript module of the project bundled with esbuild and imported, for the Node tests of the
// UI's and worker's plain logic (no DOM, no wasm).
import { build } from 'esbuild';
import path from 'node:path';
import { root } from './paths.mjs';

/** The module at `relative` (from the project root), bundled and imported. */
export async function importTs(relative) {
  const result = await build({ entryPoints: [path.join(root, relative)], bundle: true, format: 'esm', platform: 'node', write: false });
  return import(`data:text/javascript;base64,${Buffer.from(result.outputFiles[0].text).toString('base64')}`);
}
