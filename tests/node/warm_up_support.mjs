// Shared by the warm-up tests (web/src/worker/warm_up.ts on a real wasm instance): the module
// bundled as the worker bundles it, and a core whose opens and pairs' calls are recorded.
import { build } from 'esbuild';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { bundleOptions } from '../../web/build_support.mjs';
import { root, wasmDist } from './paths.mjs';

/** warm_up.ts bundled as the worker bundles it (the example pair as bytes). */
export async function warmUpModule() {
  const result = await build({
    ...bundleOptions(wasmDist), entryPoints: [path.join(root, 'web/src/worker/warm_up.ts')], format: 'esm', platform: 'node',
    sourcemap: false, legalComments: 'none', write: false,
  });
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'vq-warm-')), 'warm_up.mjs');
  writeFileSync(file, result.outputFiles[0].text);
  return import(pathToFileURL(file).href);
}

/** The core with its opens and their calls recorded, in order, with the task each ran in. */
export function recorded(core) {
  const calls = [];
  let task = 0;
  const tick = setInterval(() => task++, 0);
  const open = core.open;
  const spy = Object.create(core);
  spy.open = (...args) => {
    const pair = open.apply(core, args);
    calls.push({ call: 'open', task });
    for (const name of ['labels', 'layout', 'weights', 'lint', 'close']) {
      const method = pair[name];
      pair[name] = (...a) => {
        calls.push({ call: name === 'layout' && a[0]?.view === 'nodes' ? 'layout nodes' : name, task });
        return method.apply(pair, a);
      };
    }
    return pair;
  };
  return { spy, calls, stop: () => clearInterval(tick) };
}
