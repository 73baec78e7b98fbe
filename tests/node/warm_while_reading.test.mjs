// The core's warm-up while a large pair's files arrive from URLs (warmWhileReading in
// web/src/worker/warm_up.ts), on a real wasm instance: one round of the example pair, a step per
// task so that the chunks being read are taken between steps, ended as soon as the read is over
// (a step already running is the most the open waits), the pair closed either way; and the instance
// then opens a real pair to the bytes a fresh instance makes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { root, wasmDist } from './paths.mjs';
import { wasmCore, wasmModuleExports } from './wasm_core.mjs';
import { recorded, warmUpModule } from './warm_up_support.mjs';

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
