// The protocol's host side, against a fake core and fake files: requests by reference become the
// files' bytes, progress and answers go back with the webview's ids, cancels reach the read or the
// core, answers of the open pair are kept (until the files or the core change), external data is
// read when the core names it, and errors keep the core's codes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CoreRequestError, PendingTable, type CoreConnection, type RequestOptions } from '../../web/src/protocol/connection';
import type { CoreError, FileReference, FromCore, Method, Params, ToCore } from '../../web/src/protocol/messages';
import { HostDispatcher, missingExternalName, type HostFiles } from '../src/host/dispatch';

interface Sent { id: number; method: Method; params: Params<Method>; options: RequestOptions }

class FakeCore implements CoreConnection {
  generation = 0;
  readonly sent: Sent[] = [];
  readonly cancelled: number[] = [];
  private readonly pending = new PendingTable();

  request<M extends Method>(method: M, params: Params<M>, options: RequestOptions = {}) {
    const r = this.pending.add<never>(options);
    this.sent.push({ id: r.id, method, params, options });
    return r;
  }
  cancel(id: number) {
    this.cancelled.push(id);
    this.pending.reject(id, { code: 'cancelled', message: 'cancelled' });
  }
  answer(id: number, value: unknown) {
    this.pending.resolve(id, value);
  }
  fail(id: number, error: CoreError) {
    this.pending.reject(id, error);
  }
  progress(id: number, detail: string) {
    this.pending.progress({ type: 'progress', id, stage: 'aligning', detail });
  }
  dispose() {}
}

class FakeFiles implements HostFiles {
  readonly contents = new Map<string, Uint8Array>();
  readonly reads: string[] = [];
  versions = new Map<string, string>();
  gate: Promise<void> | null = null;

  add(ref: string, bytes: number[]): FileReference {
    this.contents.set(ref, Uint8Array.from(bytes));
    return { name: ref.split('/').pop()!, ref };
  }
  async version(ref: FileReference) {
    return this.versions.get(ref.ref) ?? 'v1';
  }
  async read(ref: FileReference, signal: AbortSignal, onProgress: (l: number, t: number) => void) {
    this.reads.push(ref.ref);
    const bytes = this.contents.get(ref.ref);
    if (!bytes) throw Object.assign(new Error(`${ref.name}: not a file this editor opened`), { code: 'io' });
    onProgress(0, bytes.length);
    if (this.gate) await this.gate;
    if (signal.aborted) throw new DOMException('cancelled', 'AbortError');
    onProgress(bytes.length, bytes.length);
    return bytes;
  }
  /** Names refused as WorkspaceFiles refuses a symbolic link. */
  readonly links = new Set<string>();
  async sibling(model: FileReference, name: string) {
    const ref = model.ref.replace(/[^/]+$/, name);
    if (this.links.has(ref)) throw new CoreRequestError('unsafe_external_path', `external data file '${name}' is refused: it is a symbolic link`);
    return this.contents.has(ref) ? { name, ref } : null;
  }
}

const tick = () => new Promise((r) => setTimeout(r, 0));
async function until(check: () => boolean) {
  for (let i = 0; i < 200 && !check(); i++) await tick();
  assert.ok(check(), 'condition not reached');
}

function setup() {
  const core = new FakeCore(), files = new FakeFiles(), posted: FromCore[] = [];
  const progressShown: string[] = [];
  const dispatcher = new HostDispatcher({
    core, files, post: (m) => posted.push(m),
    showProgress: (title) => {
      progressShown.push(title);
      return { report: (d) => progressShown.push(d), done: () => progressShown.push('done') };
    },
  });
  const send = (m: ToCore) => dispatcher.receive(m);
  const first = files.add('file:///w/float.onnx', [1, 2, 3]);
  const second = files.add('file:///w/quant.onnx', [4, 5]);
  return { core, files, posted, progressShown, dispatcher, send, first, second };
}

const REPORT = { report: { float: { file: 'float.onnx' }, quant: { file: 'quant.onnx' } }, version: 'test' };

test('open by reference: the host reads the files and transfers their bytes; progress and result carry the webview\'s id', async () => {
  const { core, posted, progressShown, send, first, second } = setup();
  send({ type: 'request', id: 7, method: 'open', params: { first, second, external: [] } });
  await until(() => core.sent.length === 1);
  const { params, options } = core.sent[0] as { params: Params<'open'>; options: RequestOptions };
  assert.equal(core.sent[0].method, 'open');
  const bytes = (f: unknown) => [...new Uint8Array((f as { bytes: ArrayBuffer }).bytes)];
  assert.deepEqual([params.first.name, bytes(params.first)], ['float.onnx', [1, 2, 3]]);
  assert.deepEqual([params.second.name, bytes(params.second)], ['quant.onnx', [4, 5]]);
  assert.equal(options.transfer?.length, 2);
  assert.ok(options.transfer!.includes((params.first as { bytes: ArrayBuffer }).bytes));
  core.progress(core.sent[0].id, 'aligning float.onnx and quant.onnx');
  core.answer(core.sent[0].id, REPORT);
  await until(() => posted.some((m) => m.type === 'result'));
  assert.ok(posted.filter((m) => m.type === 'progress').every((m) => m.type === 'progress' && m.id === 7));
  assert.ok(posted.some((m) => m.type === 'progress' && m.stage === 'reading'));
  assert.ok(posted.some((m) => m.type === 'progress' && m.detail === 'aligning float.onnx and quant.onnx'));
  assert.deepEqual(posted.at(-1), { type: 'result', id: 7, method: 'open', result: REPORT });
  assert.equal(progressShown[0], 'Opening float.onnx and quant.onnx');
  assert.equal(progressShown.at(-1), 'done');
});

test('other requests pass through; the open pair\'s answers are kept for a page that reloads', async () => {
  const { core, files, posted, send, dispatcher, first, second } = setup();
  send({ type: 'request', id: 1, method: 'open', params: { first, second, external: [] } });
  await until(() => core.sent.length === 1);
  core.answer(core.sent[0].id, REPORT);
  // The page asks for the layout once it has the pair.
  await until(() => posted.some((m) => m.type === 'result' && m.id === 1));
  send({ type: 'request', id: 2, method: 'layout', params: { view: 'logical' } });
  await until(() => core.sent.length === 2);
  assert.deepEqual(core.sent[1].params, { view: 'logical' });
  core.answer(core.sent[1].id, { report: 'visualquant.layout_pair' });
  await until(() => posted.some((m) => m.type === 'result' && m.id === 2));
  // The page reloads (tab hidden and shown): the same requests are answered without the core.
  send({ type: 'request', id: 1, method: 'open', params: { first, second, external: [] } });
  send({ type: 'request', id: 2, method: 'layout', params: { view: 'logical' } });
  await until(() => posted.filter((m) => m.type === 'result').length === 4);
  assert.equal(core.sent.length, 2);
  assert.equal(files.reads.length, 2);
  // Another view is asked of the core; weightLayer is never kept.
  send({ type: 'request', id: 3, method: 'layout', params: { view: 'nodes' } });
  send({ type: 'request', id: 4, method: 'weightLayer', params: { nodeId: 'conv1' } });
  await until(() => core.sent.length === 4);
  // The extension's own requests (exports) use the kept answers too.
  assert.deepEqual(await dispatcher.call('layout', { view: 'logical' }), { report: 'visualquant.layout_pair' });
  assert.equal(core.sent.length, 4);
});

test('a changed file, or a restarted core, is opened again', async () => {
  const { core, files, send, first, second } = setup();
  const open = (id: number) => send({ type: 'request', id, method: 'open', params: { first, second, external: [] } });
  open(1);
  await until(() => core.sent.length === 1);
  core.answer(core.sent[0].id, REPORT);
  await tick();
  files.versions.set(second.ref, 'v2');
  open(2);
  await until(() => core.sent.length === 2);
  core.answer(core.sent[1].id, REPORT);
  await tick();
  core.generation++;
  open(3);
  await until(() => core.sent.length === 3);
});

test('cancel while reading: no core request, the page gets "cancelled"', async () => {
  const { core, files, posted, send, first, second } = setup();
  let release!: () => void;
  files.gate = new Promise((r) => { release = r; });
  send({ type: 'request', id: 5, method: 'open', params: { first, second, external: [] } });
  await until(() => files.reads.length === 2);
  send({ type: 'cancel', id: 5 });
  release();
  await until(() => posted.some((m) => m.type === 'error'));
  assert.deepEqual(posted.at(-1), { type: 'error', id: 5, error: { code: 'cancelled', message: 'cancelled' } });
  assert.equal(core.sent.length, 0);
});

test('cancel while the core runs: the core is told, by its own id', async () => {
  const { core, posted, send, first, second } = setup();
  send({ type: 'request', id: 9, method: 'open', params: { first, second, external: [] } });
  await until(() => core.sent.length === 1);
  send({ type: 'cancel', id: 9 });
  await until(() => posted.some((m) => m.type === 'error'));
  assert.deepEqual(core.cancelled, [core.sent[0].id]);
  assert.equal(posted.at(-1)?.type === 'error' && posted.at(-1)!.type === 'error' ? (posted.at(-1) as { error: CoreError }).error.code : '', 'cancelled');
  // A cancel for a request the host does not know is ignored.
  send({ type: 'cancel', id: 1234 });
});

test('external data: the file the core names is read from the model\'s folder, and the load runs again', async () => {
  const { core, files, posted, send, first, second } = setup();
  files.add('file:///w/weights.bin', [9, 9, 9, 9]);
  send({ type: 'request', id: 3, method: 'open', params: { first, second, external: [] } });
  await until(() => core.sent.length === 1);
  const missing = { code: 'missing_external_file' as const, message: "graph/initializer 'w': external data file 'weights.bin' does not exist next to the model" };
  assert.equal(missingExternalName(missing), 'weights.bin');
  core.fail(core.sent[0].id, missing);
  await until(() => core.sent.length === 2);
  const params = core.sent[1].params as Params<'open'>;
  assert.deepEqual(params.external.map((f) => [f.name, 'bytes' in f ? [...new Uint8Array(f.bytes)] : null]), [['weights.bin', [9, 9, 9, 9]]]);
  assert.equal((core.sent[1].options.transfer ?? []).length, 3);
  // Still missing after that: the core's error goes to the page.
  core.fail(core.sent[1].id, missing);
  await until(() => posted.some((m) => m.type === 'error'));
  assert.deepEqual((posted.at(-1) as { error: CoreError }).error, missing);
  assert.equal(core.sent.length, 2);
});

test('an external file that is not there: the core\'s error as it is', async () => {
  const { core, posted, send, first } = setup();
  send({ type: 'request', id: 4, method: 'openModel', params: { file: first, external: [] } });
  await until(() => core.sent.length === 1);
  assert.deepEqual(Object.keys(core.sent[0].params), ['file', 'external']);
  const missing = { code: 'missing_external_file' as const, message: "external data file 'nothere.bin' does not exist next to the model" };
  core.fail(core.sent[0].id, missing);
  await until(() => posted.some((m) => m.type === 'error'));
  assert.deepEqual(posted.at(-1), { type: 'error', id: 4, error: missing });
});

test('an external file the host refuses (a symbolic link): unsafe_external_path to the page, nothing read', async () => {
  const { core, files, posted, send, first } = setup();
  files.add('file:///w/linked.bin', [1, 2]);
  files.links.add('file:///w/linked.bin');
  send({ type: 'request', id: 6, method: 'openModel', params: { file: first, external: [] } });
  await until(() => core.sent.length === 1);
  core.fail(core.sent[0].id, { code: 'missing_external_file', message: "external data file 'linked.bin' does not exist next to the model" });
  await until(() => posted.some((m) => m.type === 'error'));
  assert.deepEqual(posted.at(-1), { type: 'error', id: 6, error: { code: 'unsafe_external_path', message: "external data file 'linked.bin' is refused: it is a symbolic link" } });
  assert.equal(core.sent.length, 1, 'the core is not asked again');
  assert.ok(!files.reads.includes('file:///w/linked.bin'));
});

test('errors keep their codes: the core\'s (a corrupt model), and io for a file the host cannot read', async () => {
  const { core, posted, send, first } = setup();
  send({ type: 'request', id: 1, method: 'openModel', params: { file: first, external: [] } });
  await until(() => core.sent.length === 1);
  core.fail(core.sent[0].id, { code: 'truncated', message: 'ends in the middle of a field (at byte 19)' });
  send({ type: 'request', id: 2, method: 'openModel', params: { file: { name: 'secret', ref: 'file:///etc/passwd' }, external: [] } });
  await until(() => posted.filter((m) => m.type === 'error').length === 2);
  const errors = posted.filter((m): m is Extract<FromCore, { type: 'error' }> => m.type === 'error');
  assert.deepEqual(errors.map((e) => [e.id, e.error.code]), [[1, 'truncated'], [2, 'io']]);
  assert.match(errors[1].error.message, /not a file this editor opened/);
  assert.equal(core.sent.length, 1);
});

test('the extension\'s own requests reject with the core\'s error', async () => {
  const { core, dispatcher } = setup();
  const asked = dispatcher.call('lint', {});
  await until(() => core.sent.length === 1);
  core.fail(core.sent[0].id, { code: 'no_open_pair', message: 'open two models first' });
  await assert.rejects(asked, (e: unknown) => e instanceof CoreRequestError && e.code === 'no_open_pair');
});

test('a page that reloads numbers its requests from 1 again: answers due to the last load are not sent to it', async () => {
  const { core, posted, send, dispatcher } = setup();
  send({ type: 'request', id: 1, method: 'weights', params: {} });
  await until(() => core.sent.length === 1);
  dispatcher.newPage();
  send({ type: 'request', id: 1, method: 'lint', params: {} });
  await until(() => core.sent.length === 2);
  core.answer(core.sent[0].id, { layers: [] });
  core.answer(core.sent[1].id, []);
  await until(() => posted.length === 1);
  await tick();
  assert.deepEqual(posted, [{ type: 'result', id: 1, method: 'lint', result: [] }]);
});
