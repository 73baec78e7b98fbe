// The core's worker script as the page or the extension host runs it, bundled for a test with one
// addition: opening a model whose name starts with "trap" (open or openInSteps) runs the core's test
// hook (testOnlyTrap in wasm/bindings.cc, a real wasm trap) where that open first enters the module
// (trap_hook.mjs).
// Everything else is the real code: the wrapper's open and its guard, the worker's error, the
// instance replaced, the page's message. Needed since no model file fails an instance any more
// (the core refuses recursive and too deeply nested functions cleanly).
import { build } from 'esbuild';
import path from 'node:path';
import { bundleOptions } from '../../web/build_support.mjs';
import { root, wasmDist } from './paths.mjs';

const WORKERS = {
  web: path.join(root, 'web/src/worker/core_worker.ts'),
  node: path.join(root, 'vscode-extension/src/host/core_worker_node.ts'),
};

const entry = (worker) => `
import { VisualQuant } from 'visualquant-core';
import ${JSON.stringify(worker)};
import { trapNextSession } from ${JSON.stringify(path.join(root, 'tests/node/trap_hook.mjs'))};
for (const method of ['open', 'openInSteps']) {
  const original = VisualQuant.prototype[method];
  VisualQuant.prototype[method] = function (firstBytes, firstName, ...rest) {
    if (firstName.startsWith('trap') && this.module) trapNextSession(this);
    return original.call(this, firstBytes, firstName, ...rest);
  };
}
`;

/**
 * The bundle's JavaScript text: 'web' for the page's Web Worker (serve it as worker.js), 'node' for
 * the extension host's worker thread (write it next to a copy of visualquant_core.wasm).
 */
export async function trapWorkerSource(kind) {
  const result = await build({
    ...bundleOptions(wasmDist),
    stdin: { contents: entry(WORKERS[kind]), resolveDir: root, sourcefile: 'trap_worker_entry.mjs', loader: 'js' },
    format: 'esm',
    sourcemap: false,
    legalComments: 'none',
    write: false,
    ...(kind === 'web'
      ? { platform: 'browser', external: ['node:*', 'fs', 'path', 'url', 'module', 'crypto', 'worker_threads'] }
      : { platform: 'node', target: 'node20' }),
  });
  return result.outputFiles[0].text;
}
