// `layout` in wasm gives the native CLI's JSON byte for byte, for every fixture pair and the example
// pair, in the logical and nodes views, flat and collapsed, alone and side by side (layoutPair);
// layoutGraph (flat arrays) is deterministic and agrees with the model layout on the same graph.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { cli, root } from './paths.mjs';
import { wasmCore, wasmModuleExports } from './wasm_core.mjs';

const pairsDir = path.join(root, 'tests/fixtures/pairs');
const models = [
  ...readdirSync(pairsDir).sort().flatMap((p) => ['float.onnx', 'quant.onnx'].map((f) => path.join(pairsDir, p, f))),
  path.join(root, 'examples/float.onnx'), path.join(root, 'examples/quant_qdq.onnx'),
].filter((m) => existsSync(m));

const views = [
  { args: [], options: {} },
  { args: ['--nodes'], options: { view: 'nodes' } },
  { args: ['--collapsed'], options: { collapsed: true } },
  { args: ['--nodes', '--collapsed', '--no-stubs'], options: { view: 'nodes', collapsed: true, stubs: false } },
];

function nativeLayout(model, args) {
  const r = spawnSync(cli, ['layout', model, ...args, '--json', '-'], { encoding: 'utf8', maxBuffer: 1 << 28 });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout;
}

test('there are models to lay out', () => assert.ok(models.length >= 30));

for (const model of models) {
  const name = path.relative(root, model);
  test(`layout wasm == native: ${name}`, async () => {
    const core = await wasmCore();
    const bytes = readFileSync(model);
    for (const { args, options } of views) {
      const native = nativeLayout(model, args);
      assert.equal(core.layout(bytes, path.basename(model), options), native, `differs with ${args.join(' ') || 'no options'}`);
    }
  });
}

for (const pair of readdirSync(pairsDir).sort().filter((p) => existsSync(path.join(pairsDir, p, 'quant.onnx')))) {
  test(`paired layout wasm == native: ${pair}`, async () => {
    const core = await wasmCore();
    const floatPath = path.join(pairsDir, pair, 'float.onnx'), quantPath = path.join(pairsDir, pair, 'quant.onnx');
    for (const { args, options } of views.slice(0, 3)) {
      const r = spawnSync(cli, ['layout', quantPath, floatPath, ...args, '--json', '-'], { encoding: 'utf8', maxBuffer: 1 << 28 });
      assert.equal(r.status, 0, r.stderr);
      const wasm = core.layoutPair(readFileSync(quantPath), 'quant.onnx', readFileSync(floatPath), 'float.onnx', options);
      assert.equal(wasm, r.stdout);
      const report = JSON.parse(wasm);
      assert.equal(report.argument_order_swapped, true);
      for (const [f, q] of report.matches) assert.equal(report.float.nodes[f].y, report.quant.nodes[q].y);
    }
  });
}

test('expanded groups: wasm == native', async () => {
  const model = path.join(pairsDir, 'torch_transformer_ptq/quant.onnx');
  const native = nativeLayout(model, ['--collapsed', '--expand', 'layers.0', '--expand', 'layers.0/attn']);
  const core = await wasmCore();
  assert.equal(core.layout(readFileSync(model), 'quant.onnx', { collapsed: true, expanded: ['layers.0', 'layers.0/attn'] }), native);
});

test('an opened model gives every view as layout() does, and again from its cache', async () => {
  const core = await wasmCore();
  const bytes = readFileSync(path.join(pairsDir, 'torch_transformer_ptq/quant.onnx'));
  const views = core.openLayout(bytes, 'quant.onnx');
  try {
    const steps = [{ collapsed: true }, { collapsed: true, expanded: ['layers.0'] }, { collapsed: true, expanded: ['layers.0', 'layers.1'] },
      { view: 'nodes' }, {}, { collapsed: true, expanded: ['layers.0'] }];
    for (const options of [...steps, ...steps]) assert.equal(views.view(options), core.layout(bytes, 'quant.onnx', options));
    const sizes = new Float64Array(2 * 92).fill(80);
    assert.equal(views.view({ nodeSizes: sizes }), core.layout(bytes, 'quant.onnx', { nodeSizes: sizes }));
    assert.equal(views.view({ collapsed: true }), core.layout(bytes, 'quant.onnx', { collapsed: true, nodeSizes: sizes }));
  } finally {
    views.close();
  }
  const { VisualQuantError } = await wasmModuleExports();
  assert.throws(() => core.openLayout(new Uint8Array([1, 2, 3]), 'bad.onnx'), (e) => e instanceof VisualQuantError);
});

test('layoutGraph on the model layout graph gives the model layout', async () => {
  const core = await wasmCore();
  const report = JSON.parse(core.layout(readFileSync(path.join(pairsDir, 'torch_transformer_ptq/quant.onnx')), 'q.onnx'));
  const graph = {
    width: report.nodes.map((n) => n.w), height: report.nodes.map((n) => n.h),
    from: report.edges.map((e) => e.from), to: report.edges.map((e) => e.to),
    nodeGroup: report.nodes.map((n) => n.parent ?? -1), groupParent: report.groups.map((g) => g.parent ?? -1),
  };
  const first = core.layoutGraph(graph);
  const second = core.layoutGraph(graph);
  assert.deepEqual(first, second);
  assert.equal(first.crossings, report.stats.crossings);
  assert.equal(first.layers, report.stats.layers);
  assert.deepEqual(Array.from(first.x, (x) => Math.round(x * 100) / 100), report.nodes.map((n) => n.x));
  assert.deepEqual(Array.from(first.y, (y) => Math.round(y * 100) / 100), report.nodes.map((n) => n.y));
});

test('layoutGraph: collapsed groups, stubs and bad input', async () => {
  const core = await wasmCore();
  const { EdgeFlags, VisualQuantError } = await wasmModuleExports();
  // A chain of 40 nodes in 4 groups of 10, and a source read by every node.
  const n = 41, from = [], to = [];
  for (let i = 2; i < n; i++) { from.push(i - 1); to.push(i); }
  for (let i = 1; i < n; i++) { from.push(0); to.push(i); }
  const graph = {
    width: new Float64Array(n).fill(50), height: new Float64Array(n).fill(20), from, to,
    nodeGroup: [-1, ...Array.from({ length: 40 }, (_, i) => Math.floor(i / 10))], groupParent: [-1, -1, -1, -1],
  };
  // Without groups, the far readers of the source get stubs; with them, the source feeds each group's
  // box and a trunk inside it (the group spans are short), laid out level by level.
  const ungrouped = core.layoutGraph({ ...graph, nodeGroup: undefined, groupParent: undefined });
  assert.ok(Array.from(ungrouped.flags).some((f) => f & EdgeFlags.stub));
  assert.equal(ungrouped.levels, 0);
  const flat = core.layoutGraph(graph);
  assert.equal(flat.x.length, n);
  assert.equal(flat.group.length, 4);
  assert.equal(flat.levels, 5);
  const collapsed = core.layoutGraph(graph, { collapsed: [1, 1, 0, 1] });
  assert.equal(collapsed.x.length, 1 + 3 + 10);
  assert.ok(Array.from(collapsed.flags).some((f) => f & EdgeFlags.aggregate));
  assert.deepEqual(Array.from(collapsed.group), [2]);
  assert.throws(() => core.layoutGraph({ width: [1], height: [1], from: [0], to: [3] }),
    (e) => e instanceof VisualQuantError && e.code === 'usage');
  assert.throws(() => core.layoutGraph({ ...graph, nodeGroup: [0] }), (e) => e instanceof VisualQuantError && e.code === 'usage');
  assert.throws(() => core.layoutGraph(graph, { collapsed: [1] }), (e) => e instanceof VisualQuantError && e.code === 'usage');
});

test('the wasm heap does not grow with repeated layouts', async () => {
  const core = await wasmCore();
  const bytes = readFileSync(path.join(root, 'examples/quant_qdq.onnx'));
  const graph = { width: [60, 60], height: [20, 20], from: [0], to: [1] };
  core.layout(bytes, 'q.onnx');
  core.layoutGraph(graph);
  const before = core.module.HEAPU8.length;
  for (let i = 0; i < 200; i++) {
    core.layout(bytes, 'q.onnx', { collapsed: true });
    core.layoutGraph(graph);
  }
  assert.equal(core.module.HEAPU8.length, before);
});

// A pair's first view (collapsed, nothing named open) opens the same groups on both sides, natively
// and in wasm alike. A pair of 45 residual blocks in the nodes view: alone, the float model's first
// view opens every block (180 ops fit the 200-node budget) and the QDQ model's opens none (its Q/DQ
// nodes do not); as a pair, a group is open on both sides or on neither, and matched ops share rows.
test('a pair\'s first view opens the same groups on both sides, wasm == native', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'vq-first-view-'));
  try {
    const made = spawnSync('/usr/bin/python3', [path.join(root, 'tests/browser/make_large_pair.py'), dir, '45'], { encoding: 'utf8' });
    assert.equal(made.status, 0, made.stderr);
    const floatPath = path.join(dir, 'float.onnx'), quantPath = path.join(dir, 'quant.onnx');
    const open = (side) => JSON.parse(nativeLayout(side, ['--nodes', '--collapsed'])).groups.filter((g) => g.state === 'expanded').length;
    assert.ok(open(floatPath) > open(quantPath), 'alone, the two first views differ');
    const r = spawnSync(cli, ['layout', floatPath, quantPath, '--nodes', '--collapsed', '--json', '-'], { encoding: 'utf8', maxBuffer: 1 << 28 });
    assert.equal(r.status, 0, r.stderr);
    const core = await wasmCore();
    assert.equal(core.layoutPair(readFileSync(floatPath), 'float.onnx', readFileSync(quantPath), 'quant.onnx', { view: 'nodes', collapsed: true }), r.stdout);
    const report = JSON.parse(r.stdout);
    const state = (side) => new Map(report[side].groups.map((g) => [g.name, g.state === 'expanded']));
    const f = state('float'), q = state('quant');
    const shared = [...f.keys()].filter((n) => q.has(n));
    assert.ok(shared.length > 40);
    assert.deepEqual(shared.filter((n) => f.get(n) !== q.get(n)), [], 'open on one side only');
    for (const [a, b] of report.matches) assert.equal(report.float.nodes[a].y, report.quant.nodes[b].y);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
