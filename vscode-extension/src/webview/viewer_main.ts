// The one-model viewer (the custom editor of .onnx files): the core, in the extension host, loads
// the model (openModel: its inspect report) and lays out its graph (layoutModel); the page draws it
// with the web UI's GraphView and shows a node's details and the model's weights and quantization.
// A model the core cannot load shows the core's error in words, code and message.
import { CoreRequestError } from '../../../web/src/protocol/connection';
import { describeError, type InspectReport, type LayoutEdge, type LayoutReport, type LayoutView } from '../../../web/src/protocol/messages';
import { byId, el, fmt } from '../../../web/src/ui/dom';
import { GraphView, type Camera, type NodePaint } from '../../../web/src/ui/graph_view';
import { NodeReportCache, nodeDetailBox } from '../../../web/src/ui/node_detail_view';
import { textOn } from '../../../web/src/ui/overlays';
import { ViewCameras } from '../../../web/src/ui/view_cameras';
import { focusGraphWhenShown } from './focus';
import { keptState } from './kept_state';
import { editorTheme, pageInit, vscodeApi } from './page_host';
import { VsCodeConnection } from './vscode_connection';

interface ViewerState {
  view: LayoutView;
  selected: string | null;
  camera: Camera | null;
}

const init = pageInit('viewer');
const core = new VsCodeConnection();
const theme = editorTheme();
const kept = keptState<ViewerState>(init.file.ref, ['camera']);  // the camera moves continuously
let restored = kept.restored ?? null;
let view: LayoutView = restored?.view ?? init.view;
let layout: LayoutReport | null = null;
let selected: number | null = null;
let running: number | null = null;
/** Node details asked of the core (the protocol's `node`, of the open model). */
const nodeReports = new NodeReportCache();

/** Node categories and their colours: what the viewer's legend shows. */
const CATEGORIES = {
  quantized: { label: 'quantized op', light: '#f3d6a6', dark: '#75531d' },
  float: { label: 'float op', light: '#d3e3f6', dark: '#2c4a6e' },
  io: { label: 'graph input / output', light: '#cfe8d5', dark: '#2f5d3a' },
  group: { label: 'group', light: '#e4e7eb', dark: '#3a4049' },
} as const;
type Category = keyof typeof CATEGORIES;
const QUANT_OP = /^(QuantizeLinear|DequantizeLinear|DynamicQuantizeLinear|QLinear.*|.*Integer(ToFloat)?|MatMulNBits|GatherBlockQuantized|DynamicQuantize.*|QGemm|QAttention|QEmbedLayerNormalization)$/;

function categoryOf(node: LayoutReport['nodes'][number], l: LayoutReport): Category {
  if (node.kind === 'group') return 'group';
  if (node.kind !== 'op') return 'io';
  // A folded Q/DQ pair sits on the op's input edges as a badge.
  const quantEdge = l.edges.some((e) => e.to === node.index && e.badge && !/^rescale$/.test(e.badge));
  return QUANT_OP.test(node.label) || quantEdge ? 'quantized' : 'float';
}

const graph = new GraphView(byId('graph-model'), 'Model', {
  select: (index) => select(index),
  camera: () => persist(),
  badgeHover: (edge, x, y) => tooltip(edge, x, y),
});
const cameras = new ViewCameras([graph]);

function persist() {
  kept.save({ view, selected: selected === null || !layout ? null : layout.nodes[selected].id, camera: layout ? graph.camera : null });
}

function progress(text: string | null, fraction?: number) {
  byId('progress').hidden = text === null;
  if (text === null) return;
  byId('progress-stage').textContent = text;
  const bar = byId<HTMLProgressElement>('progress-bar');
  if (fraction === undefined) bar.removeAttribute('value');
  else bar.value = fraction;
}

function showError(text: string, code: string) {
  const box = byId('error');
  box.dataset.code = code;
  box.replaceChildren(el('span', { text }));
  box.hidden = false;
  document.body.dataset.state = 'error';
}

async function step<T>(start: () => { id: number; promise: Promise<T> }): Promise<T> {
  const request = start();
  running = request.id;
  try {
    return await request.promise;
  } finally {
    running = null;
  }
}

async function open() {
  const name = init.file.name;
  byId('model-name').textContent = name;
  try {
    progress(`Opening ${name}`);
    const opened = await step(() => core.request('openModel', { file: init.file, external: [] }, { onProgress: (p) => progress(p.detail, p.fraction) }));
    renderSummary(opened.inspect);
    await showLayout();
  } catch (e) {
    progress(null);
    if (e instanceof CoreRequestError && e.code === 'cancelled') showError('Cancelled. Reopen the file to load it.', 'cancelled');
    else if (e instanceof CoreRequestError) showError(`Could not open ${name}. ${describeError(e)}`, e.code);
    else showError(`Could not open ${name}: ${e instanceof Error ? e.message : String(e)}`, 'internal');
  }
}

async function showLayout() {
  progress('Laying out the graph');
  const l = await step(() => core.request('layoutModel', { view }, { onProgress: (p) => progress(p.detail) }));
  progress(null);
  const previous = restored;
  restored = null;
  layout = l;
  graph.setLayout(l, []);
  repaint();
  byId('model-count').textContent = `${l.stats.model_nodes} nodes · ${l.nodes.length} drawn`;
  if (previous?.camera) graph.setCamera(previous.camera);
  else cameras.first();
  const index = previous?.selected ? l.nodes.findIndex((n) => n.id === previous.selected) : -1;
  select(index >= 0 ? index : null);
  await graph.listReady;  // the node list is built after the first frame
  if (layout === l) document.body.dataset.state = 'ready';
}

function repaint() {
  if (!layout) return;
  const t = theme.current();
  const categories = layout.nodes.map((n) => categoryOf(n, layout!));
  const paints: NodePaint[] = categories.map((c) => {
    const fill = CATEGORIES[c][t];
    return { fill, text: textOn(fill) };
  });
  graph.setPaints(paints);
  graph.setNodeData('category', categories);
  const counts = new Map<Category, number>();
  for (const c of categories) counts.set(c, (counts.get(c) ?? 0) + 1);
  byId('legend').replaceChildren(...(Object.keys(CATEGORIES) as Category[]).filter((c) => counts.get(c)).map((c) => {
    const swatch = el('span', { class: 'swatch' });
    swatch.style.background = CATEGORIES[c][t];
    return el('span', { class: 'legend-item', attrs: { 'data-key': c } }, swatch, `${CATEGORIES[c].label} (${counts.get(c)})`);
  }));
}

function select(index: number | null) {
  selected = index;
  graph.setSelection(index === null ? [] : [index], index);
  persist();
  const status = byId('selection-status');
  const host = byId('node-detail');
  if (index === null || !layout) {
    status.textContent = 'Nothing selected';
    status.dataset.id = '';
    host.replaceChildren(el('p', { class: 'muted placeholder', text: 'Click a node to see its details.' }));
    return;
  }
  const l = layout, n = l.nodes[index];
  status.textContent = `${n.label} — ${n.id}`;
  status.dataset.id = n.id;
  const groupPath: string[] = [];
  for (let g = n.parent; g !== null; g = l.groups[g].parent) groupPath.unshift(l.groups[g].label);
  const link = (i: number) => {
    const b = el('button', { class: 'link', text: `${l.nodes[i].label} (${l.nodes[i].id})`, attrs: { type: 'button' } });
    b.addEventListener('click', () => select(i));
    return el('li', {}, b);
  };
  const ins = l.edges.filter((e) => e.to === index), outs = l.edges.filter((e) => e.from === index);
  const badges = [...ins, ...outs].filter((e) => e.badge);
  host.replaceChildren(
    el('div', { class: 'detail-head' },
      el('div', { class: 'eyebrow', text: n.kind === 'group' ? 'Collapsed group' : n.kind === 'op' ? 'Operator' : `Graph ${n.kind}` }),
      el('h2', { text: n.label }), el('div', { class: 'node-name', text: n.id })),
    facts([['Category', CATEGORIES[categoryOf(n, l)].label], ['Group', groupPath.join(' › ') || '(top level)'],
      ['Reads from', String(ins.length)], ['Writes to', String(outs.length)]]),
    section('Inputs from', ins.length ? el('ul', { class: 'links' }, ...ins.map((e) => link(e.from))) : el('p', { class: 'muted', text: 'none' })),
    section('Outputs to', outs.length ? el('ul', { class: 'links' }, ...outs.map((e) => link(e.to))) : el('p', { class: 'muted', text: 'none' })),
    ...(badges.length ? [section('Folded on its edges', el('ul', { class: 'evidence' },
      ...badges.map((e) => el('li', { text: `${e.badge}: ${(e.badge_nodes ?? []).join(', ')}` }))))] : []),
    // The model node itself (attributes, inputs and outputs with types and shapes), asked of the core when shown.
    ...(n.kind === 'op' ? [section('Model node', nodeDetailBox('', { 'data-node': n.id },
      nodeReports.get(n.id, () => core.request('node', { nodeId: n.id }).promise)))] : []),
  );
}

function facts(rows: Array<[string, string]>): HTMLElement {
  return el('dl', { class: 'facts' }, ...rows.flatMap(([k, v]) => [el('dt', { text: k }), el('dd', { text: v })]));
}

function section(title: string, ...children: Array<Node | null>): HTMLElement {
  return el('section', { class: 'detail-section' }, el('h3', { text: title }), ...children);
}

function tallyTable(rows: Array<{ label: string; count: number; elements: number; bytes: number }>): HTMLElement {
  const tr = (cells: string[], tag: 'td' | 'th') => el('tr', {}, ...cells.map((c, k) => el(tag, { class: k ? 'num' : '', text: c })));
  return el('table', { class: 'quant-table' }, el('thead', {}, tr(['', 'tensors', 'elements', 'bytes'], 'th')),
    el('tbody', {}, ...rows.map((r) => tr([r.label, String(r.count), r.elements.toLocaleString('en-US'), r.bytes.toLocaleString('en-US')], 'td'))));
}

function renderSummary(r: InspectReport) {
  const q = r.quantization;
  const opsets = r.model.opset_imports.map((o) => `${o.domain || 'ai.onnx'} ${o.version}`).join(', ');
  byId('summary').textContent = `${r.graph.nodes} nodes · ${r.weights.count} weights (${fmt(r.weights.bytes / (1 << 20))} MB)` +
    (q.forms.length ? ` · quantized: ${q.forms.join(', ')}` : ' · not quantized');
  const ops = [...r.op_types].sort((a, b) => b.count - a.count);
  byId('model-summary').replaceChildren(
    section('Model', facts([
      ['File', `${r.file.name} (${r.file.size_bytes.toLocaleString('en-US')} bytes)`],
      ['Producer', `${r.model.producer_name || 'unknown'} ${r.model.producer_version}`.trim()],
      ['IR version', String(r.model.ir_version)], ['Opsets', opsets],
      ['Nodes', `${r.graph.nodes}${r.graph.nodes_in_subgraphs ? ` (+${r.graph.nodes_in_subgraphs} in ${r.graph.subgraphs} subgraphs)` : ''}`],
      ['Inputs', r.graph.inputs.map((v) => `${v.name}: ${v.element_type ?? '?'}[${(v.shape ?? []).map((d) => d ?? '?').join(', ')}]`).join('\n')],
      ['Outputs', r.graph.outputs.map((v) => `${v.name}: ${v.element_type ?? '?'}[${(v.shape ?? []).map((d) => d ?? '?').join(', ')}]`).join('\n')],
    ])),
    section('Quantization', facts([
      ['Forms', q.forms.length ? q.forms.join(', ') : 'none (a float model)'],
      ['Quantized weights', Object.entries(q.quantized_weight_types).map(([t, n]) => `${n} ${t}`).join(', ') || 'none'],
      ['Quantization ops', Object.entries(q.ops).map(([t, n]) => `${n} ${t}`).join(', ') || 'none'],
      ['DequantizeLinear', `${q.dequantize_of_weights} of weights, ${q.dequantize_of_activations} of activations`],
    ])),
    section('Weights',
      el('h4', { text: 'By element type' }), tallyTable(r.weights.by_element_type.map((w) => ({ ...w, label: w.element_type }))),
      el('h4', { text: 'By storage' }), tallyTable(r.weights.by_storage.map((w) => ({ ...w, label: w.storage })))),
    section('Op types', el('table', { class: 'quant-table' }, el('tbody', {},
      ...ops.map((o) => el('tr', {}, el('td', { text: o.domain ? `${o.domain}.${o.op_type}` : o.op_type }), el('td', { class: 'num', text: String(o.count) })))))),
    ...(r.warnings.length ? [section(`Warnings (${r.warnings.length})`, el('ul', { class: 'evidence' },
      ...r.warnings.slice(0, 50).map((w) => el('li', { text: `${w.source}: ${w.message}` }))))] : []),
  );
}

function tooltip(edge: LayoutEdge | null, x: number, y: number) {
  const tip = byId('tooltip');
  if (!edge) {
    tip.hidden = true;
    return;
  }
  tip.replaceChildren(el('strong', { text: edge.badge ?? '' }), el('div', { class: 'muted', text: (edge.badge_nodes ?? []).join(', ') }));
  tip.hidden = false;
  tip.style.left = `${Math.min(x + 14, window.innerWidth - tip.offsetWidth - 8)}px`;
  tip.style.top = `${y + 14}px`;
}

byId<HTMLInputElement>('raw-view').checked = view === 'nodes';
byId<HTMLInputElement>('raw-view').addEventListener('change', (e) => {
  view = (e.target as HTMLInputElement).checked ? 'nodes' : 'logical';
  const id = selected === null || !layout ? null : layout.nodes[selected].id;
  restored = { view, selected: id, camera: null };
  showLayout().catch((err) => showError(`Layout failed. ${err instanceof CoreRequestError ? describeError(err) : String(err)}`, 'layout'));
});
byId('zoom-in').addEventListener('click', () => cameras.zoom(1.25));
byId('zoom-out').addEventListener('click', () => cameras.zoom(0.8));
byId('zoom-fit').addEventListener('click', () => cameras.fit());
byId('compare-with').addEventListener('click', () => vscodeApi().postMessage({ type: 'action', action: 'compareWith' }));
byId('cancel').addEventListener('click', () => {
  if (running !== null) core.cancel(running);
});
const applyTheme = () => {
  document.documentElement.dataset.theme = theme.current();
  graph.refreshTheme();
  repaint();
};
theme.onChange(applyTheme);
applyTheme();
focusGraphWhenShown('#graph-model canvas');
void open();
