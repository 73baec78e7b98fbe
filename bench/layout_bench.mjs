// Layout benchmark: this engine (wasm, under Node) against @dagrejs/dagre and elkjs, in one run, on
// the same graphs: ResNet-, BERT- and LLM-decoder-like DAGs at several sizes (layout_graphs.mjs) and
// graphs of real models (the fixtures, and the compare benchmark's models when they exist), as the
// model adapter builds them. Every engine runs in a child process with a time limit
// (layout_engine_run.mjs); a crash is recorded as "died", a run over the limit as "timeout". The
// drawings are measured by one function (layout_metrics.mjs). Timings stay here, never in tests.
//   node bench/layout_bench.mjs WASM_DIST VISUALQUANT [--timeout SECONDS] [--sizes 1000,5000,...]
//        [--families resnet,bert,llm] [--engines visualquant,dagre,...] [--out DIR]
// Prints a table and the targets, writes DIR/results.json; exits 1 when a target is missed.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { families } from './layout_graphs.mjs';
import { layoutMetrics } from './layout_metrics.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');
const args = process.argv.slice(2);
const [dist, cli] = args;
const option = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : fallback;
};
const timeoutSeconds = Number(option('timeout', '60'));
const sizes = option('sizes', '1000,5000,20000,50000').split(',').map(Number);
const familyNames = option('families', 'resnet,bert,llm').split(',');
const engines = option('engines', 'visualquant,visualquant-nostubs,visualquant-collapsed,visualquant-expand,dagre,elk').split(',');
const outDir = path.resolve(option('out', path.join(root, 'bench/out/layout')));
mkdirSync(outDir, { recursive: true });

// Graphs of real models: the layout graph the model adapter builds, read back from the CLI's JSON.
function modelGraph(model, view) {
  const r = spawnSync(cli, ['layout', model, ...(view === 'nodes' ? ['--nodes'] : []), '--json', '-'],
    { encoding: 'utf8', maxBuffer: 1 << 30 });
  if (r.status !== 0) throw new Error(`visualquant layout ${model}: ${r.stderr}`);
  const report = JSON.parse(r.stdout);
  return {
    labels: report.nodes.map((n) => n.label), width: report.nodes.map((n) => n.w), height: report.nodes.map((n) => n.h),
    from: report.edges.map((e) => e.from), to: report.edges.map((e) => e.to),
    nodeGroup: report.nodes.map((n) => n.parent ?? -1), groupParent: report.groups.map((g) => g.parent ?? -1),
    groupNames: report.groups.map((g) => g.name),
    groupWidth: report.groups.map(() => 120), groupHeight: report.groups.map(() => 40),
  };
}

const graphs = [];
for (const family of familyNames) {
  for (const size of sizes) graphs.push({ name: `${family}_${size}`, family, size, make: () => families[family](size) });
}
const pairs = path.join(root, 'tests/fixtures/pairs');
for (const [pair, view] of [['torch_transformer_ptq', 'logical'], ['torch_transformer_ptq', 'nodes'],
  ['torch_eager_ptq_cnn_perchannel', 'nodes'], ['ort_dynamic_mlp', 'nodes'], ['ort_fused_transformer', 'nodes']]) {
  graphs.push({ name: `${pair}_${view}`, family: 'fixture', make: () => modelGraph(path.join(pairs, pair, 'quant.onnx'), view) });
}
for (const kind of ['resnet50', 'transformer12']) {  // written by the compare benchmark (scripts/bench)
  const model = path.join(root, 'bench/out', `${kind}_quant.onnx`);
  if (existsSync(model)) graphs.push({ name: `${kind}_qdq_nodes`, family: 'model', make: () => modelGraph(model, 'nodes') });
}

function runEngine(engine, graphFile, drawingFile) {
  const child = spawnSync(process.execPath, ['--expose-gc', path.join(here, 'layout_engine_run.mjs'), engine, graphFile, drawingFile, dist],
    { encoding: 'utf8', timeout: timeoutSeconds * 1000, killSignal: 'SIGKILL', maxBuffer: 1 << 26 });
  if (child.error?.code === 'ETIMEDOUT' || child.signal === 'SIGKILL') return { status: 'timeout' };
  if (child.status !== 0) {
    const reason = (child.stderr ?? '').split('\n').find((l) => /^(\w*Error|FATAL ERROR|Error)\b/.test(l.trim()));
    return { status: 'died', reason: (reason ?? `exit ${child.status}`).trim().slice(0, 100) };
  }
  return { status: 'ok', ...JSON.parse(child.stdout.trim().split('\n').pop()) };
}

const results = [];
for (const g of graphs) {
  const graphFile = path.join(outDir, `${g.name}.json`);
  if (!existsSync(graphFile) || g.family === 'fixture' || g.family === 'model') writeFileSync(graphFile, JSON.stringify(g.make()));
  const graph = JSON.parse(readFileSync(graphFile, 'utf8'));
  for (const engine of engines) {
    const drawingFile = path.join(outDir, `${g.name}.${engine}.drawing.json`);
    const run = runEngine(engine, graphFile, drawingFile);
    const row = { graph: g.name, family: g.family, size: g.size, nodes: graph.width.length, edges: graph.from.length, engine, ...run };
    if (run.status === 'ok') Object.assign(row, layoutMetrics(JSON.parse(readFileSync(drawingFile, 'utf8'))));
    results.push(row);
    const shown = run.status === 'ok' ? `${run.time_s.toFixed(3)} s, ${row.crossings} crossings` : `${run.status} ${run.reason ?? ''}`;
    process.stderr.write(`[layout bench] ${g.name} ${engine}: ${shown}\n`);
  }
}
writeFileSync(path.join(outDir, 'results.json'), JSON.stringify(results, null, 1));

// The table.
const cell = (r, key, digits) => (r.status !== 'ok' ? '' : digits === undefined ? String(r[key]) : r[key].toFixed(digits));
console.log('| graph | nodes | edges | engine | result | time s | peak MB | crossings | edge length | overlaps | edges through nodes |');
console.log('| --- | ---: | ---: | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |');
for (const r of results) {
  const status = r.status === 'ok' ? 'ok' : r.status === 'died' ? `died: ${r.reason}` : `timeout (${timeoutSeconds} s)`;
  console.log(`| ${r.graph} | ${r.nodes} | ${r.edges} | ${r.engine} | ${status} | ${cell(r, 'time_s', 3)} | ${cell(r, 'peak_mb', 0)} | ` +
    `${cell(r, 'crossings')} | ${cell(r, 'edge_length')} | ${cell(r, 'node_overlaps')} | ${cell(r, 'edge_node_hits')} |`);
}

// Ratios against the peers and the targets.
const find = (graph, engine) => results.find((r) => r.graph === graph && r.engine === engine);
console.log('');
let ok = true;
const target = (met, text) => {
  ok = ok && met;
  console.log(`${met ? 'met   ' : 'MISSED'} ${text}`);
};
for (const g of graphs) {
  const ours = find(g.name, 'visualquant');
  if (!ours || ours.status !== 'ok') continue;
  const against = ['dagre', 'elk'].map((peer) => {
    const p = find(g.name, peer);
    if (!p) return null;
    if (p.status !== 'ok') return `${peer} ${p.status}`;
    const memory = ours.peak_mb >= 1 ? `${(p.peak_mb / ours.peak_mb).toFixed(0)}x the memory`
      : `${p.peak_mb.toFixed(1)} MB of memory vs ${ours.peak_mb.toFixed(1)} MB`;
    return `${peer} ${(p.time_s / ours.time_s).toFixed(0)}x the time, ${memory}, ${p.crossings} vs ${ours.crossings} crossings`;
  }).filter(Boolean);
  if (against.length) console.log(`${g.name}: ${against.join('; ')}`);
}
console.log('');
const ourRuns = results.filter((r) => r.engine === 'visualquant');
target(ourRuns.every((r) => r.status === 'ok'), 'every graph finishes (visualquant, flat)');
for (const [size, limit] of [[20000, 2], [50000, 6]]) {
  const runs = ourRuns.filter((r) => r.size === size);
  if (runs.length) {
    const worst = Math.max(...runs.map((r) => (r.status === 'ok' ? r.time_s : Infinity)));
    target(worst < limit, `${size} nodes in under ${limit} s in wasm: slowest ${worst.toFixed(3)} s`);
  }
}
const compared = ourRuns.filter((r) => r.status === 'ok' && find(r.graph, 'dagre')?.status === 'ok');
const worse = compared.filter((r) => r.crossings > find(r.graph, 'dagre').crossings);
target(worse.length === 0, `crossings no more than dagre's where dagre finishes (${compared.length} graphs` +
  `${worse.length ? `; more on ${worse.map((r) => r.graph).join(', ')}` : ''})`);
const collapsed = results.filter((r) => r.engine === 'visualquant-collapsed' && r.size === 50000);
if (collapsed.length) {
  const worst = Math.max(...collapsed.map((r) => (r.status === 'ok' ? r.time_s : Infinity)));
  target(worst < 0.3, `collapsed first view of a 50,000-node graph in under 300 ms: slowest ${(worst * 1000).toFixed(1)} ms`);
}
// Opening one group of a first view reuses the cached levels: no target of its own, shown next to
// the first view and the flat layout of the same graph.
for (const r of results.filter((x) => x.engine === 'visualquant-expand' && x.status === 'ok' && x.size)) {
  const first = find(r.graph, 'visualquant-collapsed'), flat = find(r.graph, 'visualquant');
  if (first?.status === 'ok' && flat?.status === 'ok')
    console.log(`${r.graph}: one more group opened in ${(r.time_s * 1000).toFixed(1)} ms (first view ${(first.time_s * 1000).toFixed(1)} ms, ` +
      `everything open ${(flat.time_s * 1000).toFixed(1)} ms)`);
}
process.exit(ok ? 0 : 1);
