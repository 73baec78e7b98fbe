// The real core behind the host's dispatcher: the built worker thread (dist/core_worker.mjs, the web
// page's Web Worker script under Node) opens a fixture pair and a single model named by reference,
// answers layouts, weights and lint, reports a corrupt model's error code, cancels a running load by
// ending the thread, and reads external data next to a model when it names it (never through a
// symbolic link: unsafe_external_path, as the CLI).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { FileReference, FromCore, Result } from '../../web/src/protocol/messages';
import { HostDispatcher, type HostFiles } from '../src/host/dispatch';
import { externalFileIn } from '../src/host/external_file';
import { NodeCoreConnection } from '../src/host/node_connection';
import { linkAwareDisk } from './link_aware_disk';
import { repoRoot } from './repo_root';

const root = repoRoot();
const worker = path.join(root, 'vscode-extension/dist/core_worker.mjs');
const pairs = path.join(root, 'tests/fixtures/pairs');
const cli = path.join(process.env.VQ_NATIVE_BUILD ?? path.join(root, 'build/native'), 'bin/visualquant');

/** Files on disk by file: URL, as workspace.fs would give them. */
class DiskFiles implements HostFiles {
  reads: string[] = [];
  /** `local`: files are on this machine's disk, as WorkspaceFiles says of file: URIs (localPath). */
  constructor(private readonly local = false) {}
  localPath(ref: FileReference): string | null {
    return this.local ? fileURLToPath(ref.ref) : null;
  }
  async version(ref: FileReference) {
    const s = statSync(fileURLToPath(ref.ref));
    return `${s.size}:${s.mtimeMs}`;
  }
  async read(ref: FileReference, _signal: AbortSignal, onProgress: (l: number, t: number) => void) {
    this.reads.push(ref.name);
    const bytes = readFileSync(fileURLToPath(ref.ref));
    onProgress(bytes.length, bytes.length);
    return new Uint8Array(bytes);
  }
  /** As WorkspaceFiles finds it (external_file.ts): a symbolic link is refused. */
  async sibling(model: FileReference, name: string) {
    const p = await externalFileIn(linkAwareDisk, path.dirname(fileURLToPath(model.ref)), name);
    return p ? { name, ref: pathToFileURL(p).href } : null;
  }
}

const ref = (file: string): FileReference => ({ name: path.basename(file), ref: pathToFileURL(file).href });
const connections: NodeCoreConnection[] = [];

function session(local = false) {
  const core = new NodeCoreConnection(worker);
  connections.push(core);
  const posted: FromCore[] = [];
  const files = new DiskFiles(local);
  const dispatcher = new HostDispatcher({ core, files, post: (m) => posted.push(m) });
  let next = 1;
  /** A request as the webview sends it; resolves with the answer posted back. */
  const ask = (method: string, params: unknown) => {
    const id = next++;
    dispatcher.receive({ type: 'request', id, method, params } as never);
    return new Promise<FromCore>((resolve) => {
      const poll = setInterval(() => {
        const m = posted.find((p) => (p.type === 'result' || p.type === 'error') && p.id === id);
        if (m) {
          clearInterval(poll);
          resolve(m);
        }
      }, 5);
    });
  };
  return { core, posted, files, dispatcher, ask };
}

after(() => {
  for (const c of connections) c.dispose();
});

test('a pair by reference: the same report as the CLI, layouts, weights, lint and node details, kept for a reload', async () => {
  const { ask, files, posted } = session();
  const dir = path.join(pairs, 'torch_eager_ptq_cnn_perchannel');
  // Given the wrong way round: the core finds the quantized one.
  const opened = await ask('open', { first: ref(path.join(dir, 'quant.onnx')), second: ref(path.join(dir, 'float.onnx')), external: [] });
  assert.equal(opened.type, 'result');
  const report = (opened as { result: Result<'open'> }).result.report;
  const native = spawnSync(cli, ['compare', path.join(dir, 'quant.onnx'), path.join(dir, 'float.onnx'), '--json', '-'], { encoding: 'utf8', maxBuffer: 1 << 28 });
  assert.equal(native.status, 0, native.stderr);
  const { weights: _w, lint: _l, ...alignment } = JSON.parse(native.stdout);
  assert.deepEqual(report, alignment);
  assert.equal(report.argument_order_swapped, true);
  assert.ok(posted.some((m) => m.type === 'progress' && m.stage === 'reading'));
  const layout = await ask('layout', { view: 'logical' });
  assert.equal(layout.type === 'result' && (layout.result as Result<'layout'>).report, 'visualquant.layout_pair');
  const weights = await ask('weights', { bins: 32 });
  assert.equal(weights.type === 'result' && (weights.result as Result<'weights'>).histogram_bins, 32);
  const lint = await ask('lint', {});
  assert.ok(lint.type === 'result' && Array.isArray(lint.result));
  // A node's detail on either side: what `visualquant inspect --node --json` prints.
  for (const [side, file] of [['quant', 'quant.onnx'], ['float', 'float.onnx']] as const) {
    const id = report.mapping.find((e) => e[side].length > 0)![side][0];
    const node = await ask('node', { side, nodeId: id });
    const want = spawnSync(cli, ['inspect', path.join(dir, file), '--node', id, '--json'], { encoding: 'utf8' });
    assert.equal(want.status, 0, want.stderr);
    assert.deepEqual(node.type === 'result' && node.result, JSON.parse(want.stdout));
  }
  const missing = await ask('node', { side: 'quant', nodeId: 'no such node' });
  assert.equal(missing.type === 'error' && missing.error.code, 'not_found');
  // The page reloads: nothing is read or computed again.
  const reads = files.reads.length;
  const again = await ask('open', { first: ref(path.join(dir, 'quant.onnx')), second: ref(path.join(dir, 'float.onnx')), external: [] });
  assert.deepEqual(again.type === 'result' && (again.result as Result<'open'>).report, report);
  assert.equal(files.reads.length, reads);
});

test('one model by reference: inspect report, layout and a node\'s detail; a corrupt model: the core\'s error code', async () => {
  const { ask } = session();
  const model = path.join(pairs, 'ort_qoperator_cnn/quant.onnx');
  const opened = await ask('openModel', { file: ref(model), external: [] });
  assert.equal(opened.type, 'result');
  const inspect = (opened as { result: Result<'openModel'> }).result.inspect;
  const native = spawnSync(cli, ['inspect', model, '--json'], { encoding: 'utf8' });
  assert.deepEqual(inspect, JSON.parse(native.stdout));
  const layout = await ask('layoutModel', { view: 'nodes' });
  assert.ok(layout.type === 'result' && (layout.result as Result<'layoutModel'>).nodes.length > 0);
  // The viewer's node detail: `node` without a side, from the open model.
  const node = await ask('node', { nodeId: 'conv1_quant' });
  const want = spawnSync(cli, ['inspect', model, '--node', 'conv1_quant', '--json'], { encoding: 'utf8' });
  assert.deepEqual(node.type === 'result' && node.result, JSON.parse(want.stdout));
  const noPair = await ask('node', { side: 'float', nodeId: 'conv1_quant' });
  assert.equal(noPair.type === 'error' && noPair.error.code, 'no_open_pair');
  const dir = mkdtempSync(path.join(tmpdir(), 'vq-corrupt-'));
  try {
    const broken = path.join(dir, 'broken.onnx');
    writeFileSync(broken, readFileSync(model).subarray(0, 200));
    const failed = await ask('openModel', { file: ref(broken), external: [] });
    assert.equal(failed.type, 'error');
    const nativeError = spawnSync(cli, ['inspect', broken], { encoding: 'utf8' });
    assert.match(nativeError.stderr, new RegExp(`error \\[${(failed as { error: { code: string } }).error.code}\\]`));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('external data is read next to the model when the core names it', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'vq-external-'));
  try {
    const python = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';
    const r = spawnSync(python, [path.join(root, 'tests/browser/make_large_pair.py'), dir, '3', '--external'], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    const models = ['float.onnx', 'quant.onnx'].map((f) => path.join(dir, f)).filter(existsSync);
    assert.equal(models.length, 2);
    const { ask, files } = session();
    const opened = await ask('open', { first: ref(models[0]), second: ref(models[1]), external: [] });
    assert.equal(opened.type, 'result', JSON.stringify(opened));
    assert.ok(files.reads.some((n) => !n.endsWith('.onnx')), `external file read: ${files.reads.join(', ')}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('external data on the local disk is read by the core\'s thread a weight at a time, never whole by the host: the CLI\'s weights', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'vq-external-range-'));
  try {
    const python = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';
    for (const side of ['float', 'quant']) {
      const r = spawnSync(python, [path.join(root, 'tests/fixtures/externalise.py'), path.join(pairs, 'ort_matmulnbits_4bit', `${side}.onnx`), dir, side], { encoding: 'utf8' });
      assert.equal(r.status, 0, r.stderr);
    }
    const { ask, files } = session(true);
    const opened = await ask('open', { first: ref(path.join(dir, 'float.onnx')), second: ref(path.join(dir, 'quant.onnx')), external: [] });
    assert.equal(opened.type, 'result', JSON.stringify(opened));
    // The host reads the models (again for each data file the core names), never a data file.
    assert.deepEqual([...new Set(files.reads)].sort(), ['float.onnx', 'quant.onnx']);
    const native = spawnSync(cli, ['compare', path.join(dir, 'float.onnx'), path.join(dir, 'quant.onnx'), '--json', '-'], { encoding: 'utf8', maxBuffer: 1 << 28 });
    assert.equal(native.status, 0, native.stderr);
    const weights = await ask('weights', {});
    assert.equal(weights.type, 'result', JSON.stringify(weights));
    const layers = (weights as { result: Result<'weights'> }).result.layers;
    const want = JSON.parse(native.stdout).weights.layers as typeof layers;
    assert.ok(want.length > 0);
    assert.deepEqual(layers.map((l) => [l.float_node, l.quant_node, l.error.sqnr_db]), want.map((l) => [l.float_node, l.quant_node, l.error.sqnr_db]));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('external data that is a symbolic link is refused as the CLI refuses it: unsafe_external_path', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'vq-external-link-'));
  try {
    const python = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';
    const models = path.join(dir, 'models');
    const r = spawnSync(python, [path.join(root, 'tests/browser/make_large_pair.py'), models, '3', '--external'], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    // The float model's weights, moved out of its folder and linked back in.
    const weights = path.join(models, 'float.weights'), elsewhere = path.join(dir, 'elsewhere');
    mkdirSync(elsewhere);
    copyFileSync(weights, path.join(elsewhere, 'float.weights'));
    unlinkSync(weights);
    symlinkSync(path.join(elsewhere, 'float.weights'), weights);
    const { ask, files } = session();
    const refused = await ask('openModel', { file: ref(path.join(models, 'float.onnx')), external: [] });
    assert.equal(refused.type, 'error', JSON.stringify(refused));
    assert.equal(refused.type === 'error' && refused.error.code, 'unsafe_external_path', JSON.stringify(refused));
    assert.match(refused.type === 'error' ? refused.error.message : '', /external data file 'float\.weights' is refused: it is a symbolic link/);
    assert.deepEqual(files.reads, ['float.onnx'], 'the link is never read');
    // The same weights as a regular file: the model loads.
    unlinkSync(weights);
    copyFileSync(path.join(elsewhere, 'float.weights'), weights);
    const opened = await ask('openModel', { file: ref(path.join(models, 'float.onnx')), external: [] });
    assert.equal(opened.type, 'result', JSON.stringify(opened));
    assert.ok(files.reads.includes('float.weights'), files.reads.join(', '));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('cancelling a running load ends the core thread: "cancelled", and a new core answers after', async () => {
  const { ask, dispatcher, core } = session();
  const dir = path.join(pairs, 'torch_transformer_ptq');
  const pending = ask('open', { first: ref(path.join(dir, 'float.onnx')), second: ref(path.join(dir, 'quant.onnx')), external: [] });
  // Cancel once the core has it (its id is known).
  for (let i = 0; i < 400 && (dispatcher as unknown as { running: Map<number, { coreId?: number }> }).running.get(1)?.coreId === undefined; i++) {
    await new Promise((r) => setTimeout(r, 5));
  }
  const generation = core.generation;
  dispatcher.receive({ type: 'cancel', id: 1 });
  const answer = await pending;
  assert.deepEqual(answer.type === 'error' && answer.error.code, 'cancelled');
  assert.equal(core.generation, generation + 1);
  const opened = await ask('open', { first: ref(path.join(dir, 'float.onnx')), second: ref(path.join(dir, 'quant.onnx')), external: [] });
  assert.equal(opened.type, 'result');
});

test('activations in the extension host: both models run with onnxruntime-web in the core thread, the CLI\'s bytes; a cancel keeps the pair open', async () => {
  const { ask, core, posted } = session();
  const dir = path.join(pairs, 'torch_eager_ptq_cnn');
  const opened = await ask('open', { first: ref(path.join(dir, 'float.onnx')), second: ref(path.join(dir, 'quant.onnx')), external: [] });
  assert.equal(opened.type, 'result');
  const inputs = await ask('activationInputs', {});
  assert.deepEqual(inputs.type === 'result' && inputs.result, [{ name: 'input', element_type: 'float32', shape: [1, 3, 16, 16] }]);
  const answer = await ask('activations', { files: [], bindings: [], samples: 2 });
  assert.equal(answer.type, 'result', JSON.stringify(answer));
  const native = spawnSync(cli, ['activations', path.join(dir, 'float.onnx'), path.join(dir, 'quant.onnx'), '--engine', 'web', '--tap-budget', '64M', '--samples', '2', '--json', '-'],
    { encoding: 'utf8', maxBuffer: 1 << 28 });
  assert.equal(native.status, 0, native.stderr);
  assert.equal((answer as { result: Result<'activations'> }).result.text, native.stdout);
  assert.ok(posted.some((m) => m.type === 'progress' && m.stage === 'activations' && /^run 1 of \d+/.test(m.detail)));
  // Cancelled once its second run starts: 'cancelled', the core not restarted, the pair still open.
  const generation = core.generation;
  const id = 1000;
  await new Promise<void>((resolve) => {
    const own = new HostDispatcher({
      core, files: new DiskFiles(),
      post: (m) => {
        posted.push(m);
        if (m.type === 'progress' && m.id === id && /^run 2 of/.test(m.detail)) own.receive({ type: 'cancel', id });
        if ((m.type === 'result' || m.type === 'error') && m.id === id) resolve();
      },
    });
    own.receive({ type: 'request', id, method: 'activations', params: { files: [], bindings: [], samples: 64 } });
  });
  const error = posted.find((m) => m.type === 'error' && m.id === id);
  assert.equal(error?.type === 'error' && error.error.code, 'cancelled');
  assert.equal(core.generation, generation, 'not restarted');
  const lint = await ask('lint', {});
  assert.equal(lint.type, 'result', 'the pair is still open');
});

test('a large pair gets a helper thread: the table and the JSON export\'s full report on two cores, the CLI\'s bytes', async () => {
  // A ResNet-50-sized float/QDQ pair (125 MB, bench/make_compare_pair.py): above the helper's floor.
  const dir = mkdtempSync(path.join(tmpdir(), 'vq-helper-thread-'));
  try {
    const made = spawnSync('/usr/bin/python3', [path.join(root, 'bench/make_compare_pair.py'), 'resnet50', dir], { encoding: 'utf8' });
    assert.equal(made.status, 0, made.stderr);
    const f = path.join(dir, 'resnet50_float.onnx'), q = path.join(dir, 'resnet50_quant.onnx');
    // The CLI first: a helper warmed by the tests before is given the pair with the open and starts
    // its share at once, and while this thread waited on the CLI it could analyse every pair, which
    // the table then takes whole from its results, without a progress of its own to look for.
    const native = spawnSync(cli, ['weights', f, q, '--json', '-'], { encoding: 'utf8', maxBuffer: 1 << 28 });
    assert.equal(native.status, 0, native.stderr);
    const reference = JSON.parse(native.stdout);
    const { ask, posted } = session();
    const opened = await ask('open', { first: ref(f), second: ref(q), external: [] });
    assert.equal(opened.type, 'result');
    const onTwoCores = () => posted.filter((m) => m.type === 'progress' && /^analysing weights on two cores: /.test(m.detail)).length;
    const summary = await ask('weights', {});
    assert.equal(summary.type, 'result');
    assert.ok(onTwoCores() > 0, 'the table was analysed on two cores');
    const ranked = (summary as { result: Result<'weights'> }).result.layers;
    assert.deepEqual(ranked.map((l) => [l.rank, l.float_node, l.error.sqnr_db]), reference.layers.map((l: { rank: number; float_node: string; error: { sqnr_db: number } }) => [l.rank, l.float_node, l.error.sqnr_db]));
    const before = onTwoCores();
    const full = await ask('weights', { detail: true });
    assert.equal(full.type, 'result');
    assert.ok(onTwoCores() > before, 'the full report too');
    assert.deepEqual((full as { result: unknown }).result, reference);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
