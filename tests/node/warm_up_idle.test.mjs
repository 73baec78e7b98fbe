// The core worker's idle warm-up (warmUpUntilRequested in web/src/worker/warm_up.ts) on a real wasm
// instance: `warmed`, where the worker starts its helper core's warm-up, runs once the rounds are
// done (every pair closed, no round after it), and never when a request came first, so that the
// helper never warms beside the core's own rounds.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { wasmCore } from './wasm_core.mjs';
import { recorded, warmUpModule } from './warm_up_support.mjs';

/** Waits for `done`, failing after a minute rather than hanging the suite. */
const until = async (done, what) => {
  const end = Date.now() + 60000;
  while (!done()) {
    if (Date.now() > end) assert.fail(`not within a minute: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

test('warmed runs once, after the last round, with every pair closed', async () => {
  const { warmUpUntilRequested } = await warmUpModule();
  const { spy, calls, stop } = recorded(await wasmCore());
  let requested = false;
  const warmed = [];
  const release = warmUpUntilRequested(spy, () => requested, () => warmed.push(calls.length));
  await until(() => warmed.length > 0, 'warmed after the rounds');
  const opensAtWarmed = calls.filter((c) => c.call === 'open').length;
  assert.ok(opensAtWarmed > 1, 'the rounds ran before it');
  assert.equal(calls.filter((c) => c.call === 'close').length, opensAtWarmed, 'every pair opened is closed by then');
  await new Promise((resolve) => setTimeout(resolve, 100));
  requested = true;
  release();
  stop();
  assert.deepEqual(warmed, [warmed[0]], 'once');
  assert.equal(calls.filter((c) => c.call === 'open').length, opensAtWarmed, 'no round after it');
});

test('a request before the rounds are done: warmed never runs', async () => {
  const { warmUpUntilRequested } = await warmUpModule();
  const { spy, calls, stop } = recorded(await wasmCore());
  let requested = false;
  let warmed = 0;
  const release = warmUpUntilRequested(spy, () => requested, () => warmed++);
  await until(() => calls.some((c) => c.call === 'close'), 'a first round');
  requested = true;
  release();
  const opens = calls.filter((c) => c.call === 'open').length;
  await new Promise((resolve) => setTimeout(resolve, 300));
  stop();
  assert.equal(warmed, 0);
  assert.equal(calls.filter((c) => c.call === 'open').length, opens, 'no round after the request');
});
