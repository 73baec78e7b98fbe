// One engine on one graph, in a process of its own (the parent enforces the time limit, and a crash
// or stack overflow here cannot take the benchmark down).
//   node bench/layout_engine_run.mjs ENGINE GRAPH.json OUT.json WASM_DIST
// ENGINE: visualquant (the wasm core; stubs on), visualquant-nostubs, visualquant-collapsed (first
// view, groups collapsed), visualquant-expand (one more group opened after the first view, which is
// laid out untimed before: the engine's level cache at work), dagre (@dagrejs/dagre), elk (elkjs,
// layered).
// Each engine first lays out a small warm-up graph (JIT, wasm tier-up), then the graph is timed from
// the plain input arrays to the engine's finished output. The drawing goes to OUT.json for the
// shared metric function; stdout gets {time_s, peak_mb, nodes, edges}.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { resnet } from './layout_graphs.mjs';

const [engine, graphFile, outFile, dist] = process.argv.slice(2);
const graph = JSON.parse(readFileSync(graphFile, 'utf8'));
const SPACING = { nodeSep: 24, edgeSep: 12, rankSep: 40 };

// Each runner returns { nodes: [x, y, w, h, ...], edges: [{ from, to, lines }] }.
async function visualquantRunner(options) {
  const { loadVisualQuant, EdgeFlags } = await import(pathToFileURL(path.join(dist, 'visualquant.mjs')).href);
  const vq = await loadVisualQuant({ wasmBinary: readFileSync(path.join(dist, 'visualquant_core.wasm')) });
  const runner = (g) => {
    const input = {
      width: Float64Array.from(g.width), height: Float64Array.from(g.height),
      from: Int32Array.from(g.from), to: Int32Array.from(g.to),
      nodeGroup: Int32Array.from(g.nodeGroup), groupParent: Int32Array.from(g.groupParent),
      groupWidth: Float64Array.from(g.groupWidth), groupHeight: Float64Array.from(g.groupHeight),
    };
    const r = vq.layoutGraph(input, { ...SPACING, ...options, ...(g.options ?? {}) });
    runner.last = r;
    return () => {
      const nodes = [];
      for (let v = 0; v < r.x.length; v++) nodes.push(r.x[v], r.y[v], r.w[v], r.h[v]);
      const edges = [];
      for (let e = 0; e < r.from.length; e++) {
        const points = Array.from(r.points.subarray(2 * r.pointBegin[e], 2 * r.pointBegin[e + 1]));
        const lines = r.flags[e] & EdgeFlags.stub ? [points.slice(0, 4), points.slice(4)] : [points];
        edges.push({ from: r.from[e], to: r.to[e], lines });
      }
      return { nodes, edges };
    };
  };
  return runner;
}

async function dagreRunner() {
  const dagre = (await import('@dagrejs/dagre')).default;
  return (g) => {
    const d = new dagre.graphlib.Graph({ multigraph: true });
    d.setGraph({ rankdir: 'TB', nodesep: SPACING.nodeSep, edgesep: SPACING.edgeSep, ranksep: SPACING.rankSep });
    d.setDefaultEdgeLabel(() => ({}));
    for (let v = 0; v < g.width.length; v++) d.setNode(String(v), { width: g.width[v], height: g.height[v] });
    for (let e = 0; e < g.from.length; e++) d.setEdge(String(g.from[e]), String(g.to[e]), {}, String(e));
    dagre.layout(d);
    return () => {
      const nodes = [];
      for (let v = 0; v < g.width.length; v++) {
        const n = d.node(String(v));
        nodes.push(n.x, n.y, n.width, n.height);
      }
      const edges = [];
      for (let e = 0; e < g.from.length; e++) {
        const points = d.edge(String(g.from[e]), String(g.to[e]), String(e)).points.flatMap((p) => [p.x, p.y]);
        edges.push({ from: g.from[e], to: g.to[e], lines: [points] });
      }
      return { nodes, edges };
    };
  };
}

async function elkRunner() {
  const ELK = (await import('elkjs')).default;
  const elk = new ELK();
  return async (g) => {
    const layout = await elk.layout({
      id: 'root',
      layoutOptions: {
        'elk.algorithm': 'layered', 'elk.direction': 'DOWN',
        'elk.spacing.nodeNode': String(SPACING.nodeSep), 'elk.layered.spacing.nodeNodeBetweenLayers': String(SPACING.rankSep),
        'elk.spacing.edgeEdge': String(SPACING.edgeSep),
      },
      children: g.width.map((w, v) => ({ id: `n${v}`, width: w, height: g.height[v] })),
      edges: g.from.map((a, e) => ({ id: `e${e}`, sources: [`n${a}`], targets: [`n${g.to[e]}`] })),
    });
    return () => {
      const nodes = [];
      for (const c of layout.children) nodes.push(c.x + c.width / 2, c.y + c.height / 2, c.width, c.height);
      const edges = layout.edges.map((edge, e) => ({
        from: g.from[e], to: g.to[e],
        lines: (edge.sections ?? []).map((s) => [s.startPoint, ...(s.bendPoints ?? []), s.endPoint].flatMap((p) => [p.x, p.y])),
      }));
      return { nodes, edges };
    };
  };
}

// The first view, untimed (prepare), then the timed layout with the largest collapsed group it shows
// opened: its subgroups stay collapsed, as when a user clicks one group open.
async function visualquantExpandRunner() {
  const run = await visualquantRunner({});
  let expanded = null;
  const expand = (g) => run(expanded && g.width.length === expanded.nodes ? { ...g, options: { collapsed: expanded.flags } } : g);
  expand.prepare = async (g) => {
    run({ ...g, options: { collapsed: 'firstView' } });
    const first = run.last;
    const depth = g.groupParent.map(() => 0);
    const depthOf = (k) => (depth[k] ||= g.groupParent[k] < 0 ? 1 : depthOf(g.groupParent[k]) + 1);
    const members = g.groupParent.map(() => 0);
    for (const k of g.nodeGroup) for (let p = k; p >= 0; p = g.groupParent[p]) members[p]++;
    const shown = Array.from(first.ref).filter((ref) => ref < 0).map((ref) => -ref - 1);
    if (!shown.length) return;
    const largest = shown.reduce((a, b) => (members[b] > members[a] ? b : a));
    const open = depthOf(largest) - 1;
    const flags = g.groupParent.map((_, k) => (depthOf(k) > open ? 1 : 0));
    flags[largest] = 0;
    expanded = { nodes: g.width.length, flags };
  };
  return expand;
}

const runners = {
  'visualquant-expand': visualquantExpandRunner,
  visualquant: () => visualquantRunner({}),
  'visualquant-nostubs': () => visualquantRunner({ stubs: false }),
  'visualquant-collapsed': () => visualquantRunner({ collapsed: 'firstView' }),
  dagre: dagreRunner,
  elk: elkRunner,
};

const run = await runners[engine]();
await run(resnet(400));  // warm-up: past the first view's 200-node budget, so collapsing runs too
// Peak memory of the layout alone: on Linux the process's high-water mark is reset just before it
// (clear_refs 5), so compiling the engine and the warm-up do not count; elsewhere the lifetime
// maximum is the best there is.
await run.prepare?.(graph);
globalThis.gc?.();
const resetPeak = () => { try { writeFileSync('/proc/self/clear_refs', '5'); return true; } catch { return false; } };
const peakSinceReset = () => {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
  return Number(m[1]) * 1024;
};
const resettable = resetPeak();
const baseline = process.memoryUsage().rss;
const t0 = process.hrtime.bigint();
const finish = await run(graph);
const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
const peak = resettable ? peakSinceReset() : process.resourceUsage().maxRSS * 1024;
const drawing = finish();
writeFileSync(outFile, JSON.stringify(drawing));
console.log(JSON.stringify({
  time_s: seconds, peak_mb: Math.max(0, (peak - baseline) / 1048576), nodes: drawing.nodes.length / 4, edges: drawing.edges.length,
}));
