// The page's helper core (web/src/worker/weights_helper.ts) against a stand-in worker: what it is
// sent, which messages it takes as its share's, how a helper that fails ends the share (the core
// worker then analyses the rest itself), and the end of a share once the table is done. The real helper's bytes are checked in
// tests/browser/weights_helper.test.mjs and tests/node/weights_share.test.mjs.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HELPER_MAX_BYTES, HELPER_MIN_BYTES, HelperShare, helperWorthIt, WeightsHelper, type HelperWorker } from '../../web/src/worker/weights_helper';
import type { FromCore } from '../../web/src/protocol/messages';

class StandIn implements HelperWorker {
  sent: Array<{ message: unknown; transfer?: Transferable[] }> = [];
  terminated = false;
  onmessage: ((event: { data: unknown }) => void) | null = null;
  onerror: ((event: { message?: string; preventDefault?(): void }) => void) | null = null;
  postMessage(message: unknown, transfer?: Transferable[]) { this.sent.push({ message, transfer }); }
  terminate() { this.terminated = true; }
}

const module = Promise.resolve({ type: 'core-module' as const, module: null });
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));
const file = (name: string, size: number) => ({ name, bytes: new ArrayBuffer(size) });

test('a pair is worth a helper from 96 to 512 MB of model files, without external data', () => {
  assert.equal(helperWorthIt(HELPER_MIN_BYTES - 1, 0), false);
  assert.equal(helperWorthIt(HELPER_MIN_BYTES, 0), true);
  assert.equal(helperWorthIt(HELPER_MAX_BYTES, 0), true);
  assert.equal(helperWorthIt(HELPER_MAX_BYTES + 1, 0), false);
  assert.equal(helperWorthIt(HELPER_MIN_BYTES, 1), false);
});

test('the helper gets the compiled module, the pair transferred, and its share; then its results only', async () => {
  const workers: StandIn[] = [];
  const helper = new WeightsHelper(() => { const w = new StandIn(); workers.push(w); return w; }, () => module);
  assert.equal(helper.start(file('a.onnx', 8), file('b.onnx', 8)), null, 'no helper before warm()');
  helper.warm();
  helper.warm();
  assert.equal(workers.length, 1, 'one helper worker');
  await settle();
  const w = workers[0];
  assert.deepEqual(w.sent[0].message, { type: 'core-module', module: null });
  const a = file('a.onnx', 8), b = file('b.onnx', 16);
  const share = helper.start(a, b)!;
  assert.ok(helper.holdsPair);
  const [open, analyse] = w.sent.slice(1).map((s) => s.message as { id: number; method: string; params: unknown });
  assert.equal(open.method, 'open');
  assert.deepEqual(w.sent[1].transfer, [a.bytes, b.bytes], 'the copies are transferred, not cloned');
  assert.equal(analyse.method, 'weightsShare');
  assert.deepEqual(analyse.params, { part: 1, parts: 2 });
  const results = new Uint8Array([1, 2]);
  const receive = (m: unknown) => w.onmessage!({ data: m });
  receive({ type: 'ready', version: 'x' });
  receive({ type: 'progress', id: analyse.id + 7, stage: 'weights', detail: '', results: new Uint8Array([9]) });  // not this share's
  receive({ type: 'progress', id: analyse.id, stage: 'weights', detail: '' });
  receive({ type: 'progress', id: analyse.id, stage: 'weights', detail: '', results } satisfies FromCore);
  assert.deepEqual(share.take(), [results]);
  assert.deepEqual(share.take(), []);
  receive({ type: 'json-result', id: analyse.id, method: 'weightsShare', json: '{"complete":true}' });
  assert.ok(share.ended);
  helper.hush();
  assert.deepEqual(w.sent.at(-1)!.message, { type: 'hush' });
  // The next pair's share, ended by this worker once its table is done: the helper is told, and
  // what it still sends is not taken.
  const next = helper.start(file('a.onnx', 8), file('b.onnx', 8))!;
  const nextId = (w.sent.at(-1)!.message as { id: number }).id;
  helper.endShare();
  assert.deepEqual(w.sent.at(-1)!.message, { type: 'end-share', id: nextId });
  assert.ok(next.ended && !w.terminated && helper.holdsPair, 'the helper keeps its pair open');
  receive({ type: 'progress', id: nextId, stage: 'weights', detail: '', results } satisfies FromCore);
  assert.deepEqual(next.take(), []);
});

test('a failed open or a worker error ends the share', async () => {
  const workers: StandIn[] = [];
  const helper = new WeightsHelper(() => { const w = new StandIn(); workers.push(w); return w; }, () => module);
  helper.warm();
  let share = helper.start(file('a.onnx', 1), file('b.onnx', 1))!;
  const openId = (workers[0].sent.find((s) => (s.message as { method?: string }).method === 'open')!.message as { id: number }).id;
  workers[0].onmessage!({ data: { type: 'error', id: openId, error: { code: 'not_onnx', message: 'no' } } });
  assert.ok(share.ended, 'the open failed: nothing will come');

  share = helper.start(file('a.onnx', 1), file('b.onnx', 1))!;
  let prevented = false;
  workers[0].onerror!({ message: 'gone', preventDefault: () => { prevented = true; } });
  assert.ok(prevented && share.ended && workers[0].terminated && !helper.holdsPair);
  assert.equal(helper.start(file('a.onnx', 1), file('b.onnx', 1)), null, 'an ended helper takes no pair until started again');
});

test('a host without nested workers gets no helper', () => {
  const helper = new WeightsHelper(() => { throw new Error('no Worker here'); }, () => module);
  helper.warm();
  assert.equal(helper.start(file('a.onnx', 1), file('b.onnx', 1)), null);
});

test('an error of the open just before a share ends the share; another request\'s error does not', () => {
  const share = new HelperShare(4, 3);
  share.receive({ type: 'error', id: 2, error: { code: 'io', message: 'x' } });
  assert.ok(!share.ended, 'an earlier request\'s error');
  share.receive({ type: 'error', id: 3, error: { code: 'io', message: 'x' } });
  assert.ok(share.ended, 'the open before the share failed');
});

test('a helper holding a pair shares another report of it (the JSON export) without opening it again', async () => {
  const workers: StandIn[] = [];
  const helper = new WeightsHelper(() => { const w = new StandIn(); workers.push(w); return w; }, () => module);
  helper.warm();
  assert.equal(helper.shareReport({ detail: true, bins: 0 }), null, 'no pair given yet');
  helper.start(file('a.onnx', 1), file('b.onnx', 1));
  helper.endShare();
  const sent = workers[0].sent.length;
  const share = helper.shareReport({ detail: true, bins: 32 })!;
  const asked = workers[0].sent.slice(sent).map((s) => s.message as { id: number; method: string; params: unknown });
  assert.equal(asked.length, 1, 'one request: the pair is open there already');
  assert.equal(asked[0].method, 'weightsShare');
  assert.deepEqual(asked[0].params, { part: 1, parts: 2, detail: true, bins: 32 });
  assert.equal(share.id, asked[0].id);
  const results = new Uint8Array([7]);
  workers[0].onmessage!({ data: { type: 'progress', id: share.id, stage: 'weights', detail: '', results } });
  assert.deepEqual(share.take(), [results]);
});
