// Compiled (not run) by typecheck.test.mjs: the wrapper's declaration file describes what callers
// use, strictly typed.
import {
  EdgeFlags, loadVisualQuant, VisualQuantError, type CompareReport, type InspectReport, type LayoutPairReport, type LayoutReport,
  type LayoutResult, type LintFinding, type WeightLayer, type WeightsReport,
} from '../../wasm/visualquant.mjs';

export async function summarise(bytes: Uint8Array, wasmBinary: Uint8Array): Promise<string> {
  const core = await loadVisualQuant({ wasmBinary });
  try {
    const report: InspectReport = JSON.parse(core.inspect(bytes, 'model.onnx', { 'weights.bin': new Uint8Array(4) }));
    const forms: string[] = report.quantization.forms;
    return `${report.file.name}: ${report.graph.nodes} nodes, ${forms.join(',')} (${core.version})`;
  } catch (e) {
    if (e instanceof VisualQuantError) return `refused: ${e.code}`;
    throw e;
  }
}

export async function worstMatch(a: Uint8Array, b: Uint8Array, wasmBinary: Uint8Array): Promise<string> {
  const core = await loadVisualQuant({ wasmBinary });
  const report: CompareReport = JSON.parse(core.compare(a, 'a.onnx', b, 'b.onnx'));
  const index = report.summary.least_confident_entries[0];
  const entry = report.mapping[index];
  return `${entry.kind} ${entry.confidence}: ${entry.float.join('+')} -> ${entry.quant.join('+')} (${entry.evidence.join('; ')})`;
}

export async function worstLayer(a: Uint8Array, b: Uint8Array, wasmBinary: Uint8Array): Promise<string> {
  const core = await loadVisualQuant({ wasmBinary });
  const open = core.open(a, 'a.onnx', b, 'b.onnx');
  try {
    const report: CompareReport = JSON.parse(open.report);
    const weights: WeightsReport = JSON.parse(open.weights(32));
    const worst: WeightLayer = JSON.parse(open.weightLayer(weights.layers[0].quant_node));
    const lint: LintFinding[] = JSON.parse(open.lint());
    const sqnr = worst.error.sqnr_db === null ? 'lossless' : worst.error.sqnr_db.toFixed(1);
    return `${report.summary.entries} entries; worst ${worst.float_node} at ${sqnr} dB, ${worst.channels.count} channels; ` +
      `${lint.filter((f) => f.severity === 'error').length} lint errors`;
  } finally {
    open.close();
  }
}

export async function drawModel(bytes: Uint8Array, wasmBinary: Uint8Array): Promise<string[]> {
  const core = await loadVisualQuant({ wasmBinary });
  const first: LayoutReport = JSON.parse(core.layout(bytes, 'model.onnx', { collapsed: true }));
  const open = first.groups.filter((g) => g.state === 'collapsed').slice(0, 1).map((g) => g.name);
  const sizes = new Float64Array(2 * first.stats.model_nodes).fill(Number.NaN);
  const report: LayoutReport = JSON.parse(core.layout(bytes, 'model.onnx', { view: 'nodes', collapsed: true, expanded: open, nodeSizes: sizes }));
  return report.nodes.map((n) => (n.kind === 'group' ? `[${n.label} x${n.members}]` : `${n.label}@${n.x},${n.y}`))
    .concat(report.edges.filter((e) => e.badge !== undefined).map((e) => `${e.from}->${e.to} ${e.badge}`));
}

export async function drawGraph(wasmBinary: Uint8Array): Promise<number> {
  const core = await loadVisualQuant({ wasmBinary });
  const r: LayoutResult = core.layoutGraph({ width: [60, 60, 60], height: [28, 28, 28], from: [0, 1], to: [1, 2] },
    { rankSep: 50, collapsed: 'firstView' });
  let stubs = 0;
  for (const f of r.flags) if (f & EdgeFlags.stub) stubs++;
  return r.points.length + r.crossings + stubs + r.x[0];
}

export async function sideBySide(a: Uint8Array, b: Uint8Array, wasmBinary: Uint8Array): Promise<number> {
  const core = await loadVisualQuant({ wasmBinary });
  const pair: LayoutPairReport = JSON.parse(core.layoutPair(a, 'a.onnx', b, 'b.onnx', { view: 'nodes' }));
  let same = 0;
  for (const [f, q] of pair.matches) if (pair.float.nodes[f].y === pair.quant.nodes[q].y) same++;
  return same;
}

export async function expandOneByOne(bytes: Uint8Array, wasmBinary: Uint8Array): Promise<number[]> {
  const core = await loadVisualQuant({ wasmBinary });
  const views = core.openLayout(bytes, 'model.onnx');
  try {
    const first: LayoutReport = JSON.parse(views.view({ collapsed: true }));
    const open: string[] = [];
    const counts: number[] = [];
    for (const g of first.groups.filter((x) => x.state === 'collapsed')) {
      open.push(g.name);
      counts.push((JSON.parse(views.view({ collapsed: true, expanded: open })) as LayoutReport).stats.nodes);
    }
    return counts;
  } finally {
    views.close();
  }
}
