// Where the builds and fixtures are, for the Node tests (overridable for other build folders).
import { fileURLToPath } from 'node:url';
import path from 'node:path';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const nativeBuild = process.env.VQ_NATIVE_BUILD ?? path.join(root, 'build/native');
export const wasmDist = process.env.VQ_WASM_DIST ?? path.join(root, 'build/wasm/dist');
export const cli = path.join(nativeBuild, 'bin/visualquant');
export const fixtures = process.env.VQ_FIXTURES_DIR ?? path.join(nativeBuild, 'fixtures');
