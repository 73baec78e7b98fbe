// The core's warm-up while a large pair's files arrive from URLs (warmWhileReading in
// web/src/worker/warm_up.ts), on a real wasm instance: one round of the example pair, a step per
// task so that the chunks being read are taken between steps, ended as soon as the read is over
// (a step already running is the most the open waits), the pair closed either way; and the instance
// then opens a real pair to the bytes a fresh instance makes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { build } from 'esbuild';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { bundleOptions } from '../../web/build_support.mjs';
import { root, wasmDist } from './paths.mjs';
import { wasmCore, wasmModuleExports } from './wasm_core.mjs';

/** warm_up.ts bundled as the worker bundles it (the example pair as bytes). */
async function warmUpModule() {
  const result = await build({
    ...bundleOptions(wasmDist), entryPoints: [path.join(root, 'web/src/worker/warm_up.ts')], format: 'esm', platform: 'node',
    sourcemap: false, legalComments: 'none', write: false,
  });
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'vq-warm-')), 'warm_up.mjs');
  writeFileSync(file, result.outputFiles[0].text);
  return import(pathToFileURL(file).href);
}

/** The core with its opens and their calls recorded, in order, with the task each ran in. */
function recorded(core) {
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

const settle = () => new Promise((resolve) => setTimeout(resolve, 50));

test('while the files come, one round of the example pair, a step per task, closed at the end', async () => {
  const { warmWhileReading } = await warmUpModule();
  const { spy, calls, stop } = recorded(await wasmCore());
  warmWhileReading(spy, () => true);
  assert.deepEqual(calls, [], 'nothing runs in the task that starts it (the read goes on first)');
  while (!calls.some((c) => c.call === 'close')) await settle();
  stop();
  assert.deepEqual(calls.map((c) => c.call), ['open', 'labels', 'layout', 'layout nodes', 'close']);
  for (let i = 1; i < 4; i++) assert.ok(calls[i].task > calls[i - 1].task, `${calls[i].call} runs in a task of its own`);
});

test('the round ends once the files are in, and not at all if they are in before it starts', async () => {
  const { warmWhileReading } = await warmUpModule();
  const { spy, calls, stop } = recorded(await wasmCore());
  let reading = true;
  warmWhileReading(spy, () => reading);
  while (!calls.length) await new Promise((resolve) => setTimeout(resolve, 0));
  reading = false;
  await settle();
  assert.deepEqual(calls.map((c) => c.call), ['open', 'close'], 'the pair opened is closed, no step after the read');

  calls.length = 0;
  warmWhileReading(spy, () => false);
  await settle();
  stop();
  assert.deepEqual(calls, []);
});

test('after a round, the instance opens a real pair to the bytes a fresh instance makes', async () => {
  const { warmWhileReading } = await warmUpModule();
  const { loadVisualQuant } = await wasmModuleExports();
  const warmed = await wasmCore();
  const { spy, calls, stop } = recorded(warmed);
  warmWhileReading(spy, () => true);
  while (!calls.some((c) => c.call === 'close')) await settle();
  stop();
  const fresh = await loadVisualQuant({ wasmBinary: readFileSync(path.join(wasmDist, 'visualquant_core.wasm')) });
  const dir = path.join(root, 'tests/fixtures/pairs/torch_transformer_ptq');
  const f = readFileSync(path.join(dir, 'float.onnx')), q = readFileSync(path.join(dir, 'quant.onnx'));
  const reports = [warmed, fresh].map((core) => {
    const pair = core.open(f, 'float.onnx', q, 'quant.onnx');
    try {
      return [pair.report, pair.layout(), JSON.stringify(pair.weights(0, { detail: false }))];
    } finally {
      pair.close();
    }
  });
  assert.deepEqual(reports[0], reports[1]);
});
