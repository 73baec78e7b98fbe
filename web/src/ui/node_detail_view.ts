// One model node's detail as the core reports it (the protocol's `node`): op and domain, the graph
// scope, doc string, attributes, and inputs and outputs with element types and shapes. Shared by the
// comparison's detail panel and the VS Code single-model viewer. Every model string goes in as text.
import type { NodeAttribute, NodeInput, NodeOutput, NodeReport, NodeTensorSummary } from '../protocol/messages';
import { el } from './dom';

type Shape = NodeInput['shape'];

export function shapeText(elementType: string | null | undefined, shape: Shape): string {
  const dims = shape === null || shape === undefined ? '?' : shape.map((d) => (d === null ? '?' : String(d))).join(' × ');
  return `${elementType ?? '?'} [${dims}]`;
}

type AttributeItem = Exclude<NodeAttribute['value'], unknown[]>;

function tensorText(t: NodeTensorSummary): string {
  const values = t.values.map((v) => (Array.isArray(v) ? `${v[0]}+${v[1]}i` : String(v))).join(', ');
  const more = t.elements > t.values.length ? `, … (${t.elements} elements)` : '';
  return `${t.element_type} [${t.dims.join(' × ')}]${t.values.length ? ` = ${values}${more}` : ''}`;
}

function valueText(v: AttributeItem): string {
  if (v === null) return '–';
  if (typeof v !== 'object') return String(v);
  if ('elements' in v) return tensorText(v);
  if ('error' in v) return `unreadable: ${v.error}`;
  if ('path' in v) return `graph ${v.name}: ${v.nodes} nodes`;
  return `sparse, ${v.stored_values} values stored`;
}

export function attributeText(a: NodeAttribute): string {
  if (!Array.isArray(a.value)) return valueText(a.value) + (a.value_length ? ` … (${a.value_length} bytes)` : '');
  const shown = a.value.map(valueText).join(a.type === 'ints' || a.type === 'floats' ? ', ' : '\n');
  return `[${shown}${a.count !== undefined && a.count > a.value.length ? `, … (${a.count} in all)` : ''}]`;
}

function sourceText(i: NodeInput): string {
  const outer = i.from_graph !== undefined ? ` (from ${i.from_graph === '' ? 'the main graph' : i.from_graph})` : '';
  if (i.producer) return `${i.producer.op_type} ${i.producer.id}${outer}${i.tensor ? `\n= ${tensorText(i.tensor)}` : ''}`;
  if (i.source === 'initializer' && i.tensor) return `initializer${outer}\n= ${tensorText(i.tensor)}`;
  return `${i.source.replace('_', ' ')}${outer}`;
}

function consumersText(o: NodeOutput): string {
  const readers = (o.consumers ?? []).map((c) => `${c.op_type} ${c.id}`);
  if (o.consumer_count !== undefined && o.consumer_count > readers.length) readers.push(`… (${o.consumer_count} readers)`);
  if (o.graph_output) readers.push('graph output');
  return readers.join('\n') || 'nothing';
}

function table(field: string, head: string[], rows: HTMLTableRowElement[]): HTMLTableElement {
  return el('table', { class: 'node-table', attrs: { 'data-field': field } },
    el('thead', {}, el('tr', {}, ...head.map((h) => el('th', { text: h })))), el('tbody', {}, ...rows));
}

function cells(key: string, ...texts: string[]): HTMLTableRowElement {
  return el('tr', { attrs: { 'data-key': key } }, ...texts.map((t, i) => el(i === 0 ? 'th' : 'td', { text: t })));
}

/** The node's detail as elements, for a box the caller places. */
export function renderNodeDetail(r: NodeReport): HTMLElement[] {
  const scope = r.graph.scope.map((s) => `${s.op_type} ${s.node} › ${s.attribute}`).join(' › ');
  const parts: HTMLElement[] = [
    el('div', { class: 'node-op' }, el('strong', { text: (r.domain ? `${r.domain}:` : '') + r.op_type }), el('code', { text: ` ${r.id}` })),
    el('div', { class: 'muted', text: scope ? `in ${scope}` : 'in the main graph', attrs: { 'data-field': 'scope' } }),
  ];
  if (r.doc_string) parts.push(el('p', { class: 'node-doc', text: r.doc_string, attrs: { 'data-field': 'doc' } }));
  parts.push(r.attributes.length
    ? table('attributes', ['attribute', 'type', 'value'], r.attributes.map((a) => cells(a.name, a.name, a.type, attributeText(a))))
    : el('p', { class: 'muted', text: 'No attributes.' }));
  parts.push(table('inputs', ['input', 'type and shape', 'from'], r.inputs.map((i) =>
    cells(i.name, i.name || `(${i.index} omitted)`, i.source === 'omitted' ? '–' : shapeText(i.element_type, i.shape), sourceText(i)))));
  parts.push(table('outputs', ['output', 'type and shape', 'to'], r.outputs.map((o) =>
    cells(o.name, o.name || `(${o.index} omitted)`, o.omitted ? '–' : shapeText(o.element_type, o.shape), consumersText(o)))));
  return parts;
}

/**
 * A box showing a node's detail once the core answers (asked lazily: the caller passes the promise),
 * under `title` (none when empty); a failure is said in the box.
 */
export function nodeDetailBox(title: string, attrs: Record<string, string>, report: Promise<NodeReport>): HTMLElement {
  const head = () => (title ? [el('h4', { text: title })] : []);
  const box = el('div', { class: 'node-detail', attrs }, ...head(), el('p', { class: 'muted', text: 'Loading the node…' }));
  report.then((r) => {
    box.replaceChildren(...head(), ...renderNodeDetail(r));
    box.dataset.loaded = 'true';
  }, (e: unknown) => box.replaceChildren(...head(),
    el('p', { class: 'muted', text: `The node's detail failed: ${e instanceof Error ? e.message : String(e)}` })));
  return box;
}

/** Node reports asked once per key (a node is clicked again and again); a failure is asked again. */
export class NodeReportCache {
  private readonly reports = new Map<string, Promise<NodeReport>>();

  get(key: string, load: () => Promise<NodeReport>): Promise<NodeReport> {
    let report = this.reports.get(key);
    if (!report) {
      report = load();
      this.reports.set(key, report);
      report.catch(() => this.reports.delete(key));
    }
    return report;
  }
}
