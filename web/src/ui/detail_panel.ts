// The detail panel of the selected node: what it is, what it matched and why, how it is quantized,
// lint findings, and for weighted ops the weight analysis with charts (asked of the core lazily).
import { other, type Comparison, type NodeInfo, type Side } from '../model/comparison';
import { pointFacts } from '../activations/point_detail';
import type { ActivationPoint, NodeReport, TensorQuantization, WeightLayer, WeightsReport } from '../protocol/messages';
import { isDifference, sideName, sideTitle } from '../model/pair_case';
import { el, fmt } from './dom';
import { NodeReportCache, nodeDetailBox } from './node_detail_view';


export interface DetailActions {
  /** Selects a model node by id on a side (counterpart links). */
  selectId(side: Side, id: string): void;
  /** Fetches and draws one layer's weight charts into `host`. */
  loadWeights(info: NodeInfo, host: HTMLElement): void;
  /** Asks the core for one model node's detail (attributes, inputs and outputs with types and shapes). */
  loadNode(side: Side, id: string): Promise<NodeReport>;
  /** Plots per-channel scales and zero points along the channel axis into `host`. */
  plotQuantParams(q: TensorQuantization, host: HTMLElement): void;
  /** Draws one compared tensor's charts (values, per-channel error) into `host`. */
  plotActivation(point: ActivationPoint, host: HTMLElement): void;
  /** Whether an entry is picked to keep in float (the Sensitivity tab), and picking it. */
  keptInFloat?(entry: number): boolean;
  keepInFloat?(entry: number, on: boolean): void;
}

/** At most this many counterpart nodes get their detail shown (a fusion may hold many). */
const MAX_COUNTERPART_DETAILS = 3;

function section(title: string, ...children: Array<Node | null>): HTMLElement {
  return el('section', { class: 'detail-section' }, el('h3', { text: title }), ...children);
}

function dl(rows: Array<[string, string | Node]>): HTMLDListElement {
  const d = el('dl', { class: 'facts' });
  for (const [k, v] of rows) d.append(el('dt', { text: k }), typeof v === 'string' ? el('dd', { text: v }) : el('dd', {}, v));
  return d;
}

function quantRow(name: string, q: TensorQuantization | null): HTMLTableRowElement | null {
  if (!q) return null;
  const range = (r: [number, number] | null) => (r === null ? '–' : r[0] === r[1] ? fmt(r[0], 4) : `${fmt(r[0], 4)} … ${fmt(r[1], 4)}`);
  const gran = q.granularity === 'per_channel' ? `per channel (axis ${q.axis})` : q.granularity === 'blocked' ? `blocks of ${q.block_size} (axis ${q.axis})` : q.granularity.replace('_', ' ');
  return el('tr', {}, el('th', { text: name, attrs: { scope: 'row' } }), el('td', { text: q.type }), el('td', { text: gran }),
    el('td', { class: 'num', text: range(q.scale_range) }), el('td', { class: 'num', text: range(q.zero_point_range) }));
}

export class DetailPanel {
  /** Node details asked of the core, per comparison (a new pair starts afresh). */
  private readonly nodeReports = new WeakMap<Comparison, NodeReportCache>();
  /** How far the analysis of every layer is while it runs ("120 of 560 layers, 40 %"), else null. */
  private analysis: string | null = null;
  /** The weight charts' placeholder shown now, if any. */
  private waiting: HTMLElement | null = null;

  constructor(private readonly host: HTMLElement, private readonly actions: DetailActions) {
    this.clear();
  }

  /**
   * How far the analysis of every layer is (null once done). A layer's charts are asked of the same
   * core, after it: while it runs, the placeholder says what it waits for, and how far that is.
   */
  analysisProgress(text: string | null): void {
    this.analysis = text;
    if (this.waiting?.isConnected) this.waiting.textContent = this.waitingText();
  }

  private waitingText(): string {
    return this.analysis === null ? 'Loading the weight analysis…'
      : `Waiting for the analysis of every layer (${this.analysis}); this op's charts come right after it.`;
  }

  clear(message = 'Click a node in either graph, or a row of the layer table.'): void {
    this.host.replaceChildren(el('p', { class: 'muted placeholder', text: message }));
  }

  show(info: NodeInfo, comparison: Comparison, counterparts: NodeInfo[]): void {
    const node = info.node;
    const entry = comparison.entry(info.entry);
    const parts: Array<HTMLElement | null> = [];
    let weights: { section: HTMLElement; charts: HTMLElement } | null = null;
    parts.push(el('header', { class: 'detail-head' },
      el('div', { class: 'eyebrow', text: `${sideTitle(comparison.report, info.side)} · ${node.kind}` }),
      el('h2', { text: node.label }),
      el('div', { class: 'node-name', text: node.id, attrs: { 'data-field': 'name' } })));

    // Mapping: kind, confidence, the other side, evidence.
    if (entry) {
      const others = entry[`${other(info.side)}_ops`];
      const links = el('ul', { class: 'links' });
      for (const id of others) {
        const b = el('button', { class: 'link', text: id, attrs: { type: 'button' } });
        b.addEventListener('click', () => this.actions.selectId(other(info.side), id));
        links.append(el('li', {}, b));
      }
      const same = entry[`${info.side}_ops`].filter((id) => id !== node.id);
      parts.push(section('Mapping',
        dl([
          ['kind', el('span', { class: `kind kind-${entry.kind}`, text: entry.kind, attrs: { 'data-field': 'kind' } })],
          ['confidence', el('span', { text: `${Math.round(entry.confidence * 100)} %`, attrs: { 'data-field': 'confidence' } })],
          [`${sideName(comparison.report, other(info.side))} ops`, others.length ? links : 'none'],
          ...(same.length ? [['with it on this side', same.join(', ')] as [string, string]] : []),
        ]),
        ...(entry.float_ops.length && entry.quant_ops.length && this.actions.keepInFloat && info.entry !== null && comparison.report.case === 'float_vs_quantized' ? [this.keepBox(info.entry)] : []),
        // An op with no counterpart was not matched: its evidence says why not.
        el('h4', { text: entry.float_ops.length && entry.quant_ops.length ? 'Why matched' : 'Why unmatched' }),
        el('ul', { class: 'evidence', attrs: { 'data-field': 'evidence' } }, ...entry.evidence.map((e) => el('li', { text: e })))));
      parts.push(this.activationSection(info, comparison));
      weights = this.weightsSection(info, comparison, counterparts);
      parts.push(weights?.section ?? null);
      const fusion = comparison.fusionOf(info.entry);
      if (fusion) {
        parts.push(section('Fusion', dl([
          ['pattern', fusion.pattern],
          ['verification', el('span', { class: `verification v-${fusion.verification}`, text: fusion.verification })],
          ['detail', fusion.detail],
        ])));
      }
    } else if (node.kind === 'input' || node.kind === 'output') {
      parts.push(section('Mapping', dl([['counterpart', counterparts.length ? counterparts.map((c) => c.node.id).join(', ') : 'none on the other side']])));
    } else {
      parts.push(section('Mapping', el('p', { text: 'No mapping entry: this node has no counterpart.' })));
    }

    // The logical op: class, its neighbours, the model nodes folded into it, quantization.
    const op = info.logicalOp;
    if (op) {
      const graph = comparison.report.logical_graphs[info.side];
      const names = (ids: number[]) => (ids.length ? ids.map((i) => `${graph[i]?.op_type ?? '?'} ${graph[i]?.op ?? ''}`).join('\n') : 'none');
      const rows: Array<[string, string | Node]> = [
        ['op type', op.op_type],
        ['class', op.class],
        ['precision', info.precision],
        ['inputs from', names(op.preds)],
        ['outputs to', names(op.succs)],
      ];
      if (op.weight) rows.push(['weight', `${op.weight.stored_type}, ${op.weight.channels} channels × ${op.weight.per_channel}${op.weight.dequantized ? ', dequantised' : ''}`]);
      parts.push(section('Operation', dl(rows),
        op.nodes.length > 1 ? el('details', {}, el('summary', { text: `${op.nodes.length} model nodes folded into this op` }),
          el('ul', { class: 'mono-list' }, ...op.nodes.map((n) => el('li', { text: n })))) : null));
      const q = op.quantization;
      if (q) {
        const rows2 = [quantRow('weight', q.weight), quantRow('bias', q.bias), ...q.inputs.map((x, i) => quantRow(`input ${i}`, x)), quantRow('output', q.output)]
          .filter((r): r is HTMLTableRowElement => r !== null);
        parts.push(section('Quantization', el('table', { class: 'quant-table' },
          el('thead', {}, el('tr', {}, ...['tensor', 'type', 'granularity', 'scale', 'zero point'].map((t) => el('th', { text: t })))),
          el('tbody', {}, ...rows2)), this.perChannel(q.weight)));
      }
    }
    parts.push(this.nodeSection(info, comparison, counterparts));

    const findings = comparison.lintFindings(info.side === 'quant' ? info : counterparts[0] ?? info);
    if (findings.length) {
      parts.push(section('Lint', el('ul', { class: 'lint-list' }, ...findings.map((f) =>
        el('li', {}, el('span', { class: `severity s-${f.severity}`, text: f.severity }), el('code', { text: f.check }), el('span', { text: ` ${f.message}` }))))));
    }

    this.host.replaceChildren(...parts.filter((p): p is HTMLElement => p !== null));
    if (weights) this.actions.loadWeights(info, weights.charts);
  }

  /**
   * A per-channel weight's scales and zero points along the channel axis: plotted when the compare
   * report lists them (at most 16 channels); for more, the weight charts below have the series.
   */
  private perChannel(w: TensorQuantization | null): HTMLElement | null {
    if (!w || w.granularity !== 'per_channel' || w.scale_count < 2) return null;
    if (!w.scales) return el('p', { class: 'muted', text: `${w.scale_count} per-channel scales: see the weight charts for each channel.` });
    const host = el('div', { class: 'charts', attrs: { 'data-field': 'quant-params' } });
    this.actions.plotQuantParams(w, host);
    return host;
  }

  /** The model nodes' own detail, asked of the core lazily: the selected node, then its counterparts. */
  private nodeSection(info: NodeInfo, comparison: Comparison, counterparts: NodeInfo[]): HTMLElement | null {
    const ops = [info, ...counterparts.filter((c) => c.node.kind === 'op').slice(0, MAX_COUNTERPART_DETAILS)].filter((n) => n.node.kind === 'op');
    if (!ops.length) return null;
    let cache = this.nodeReports.get(comparison);
    if (!cache) this.nodeReports.set(comparison, (cache = new NodeReportCache()));
    const boxes = ops.map(({ side, node }) => nodeDetailBox(sideTitle(comparison.report, side), { 'data-side': side, 'data-node': node.id },
      cache!.get(`${side} ${node.id}`, () => this.actions.loadNode(side, node.id))));
    return section('Model node', ...boxes);
  }

  /** The entry's compared tensor, once an activation comparison ran: its figures, then its charts (lazily). */
  /** "Keep in float": picks the entry for the Sensitivity tab's hand-picked set (measured there together). */
  private keepBox(entry: number): HTMLElement {
    const box = el('input', { attrs: { type: 'checkbox', 'data-field': 'keep-in-float' } });
    box.checked = this.actions.keptInFloat?.(entry) ?? false;
    box.addEventListener('change', () => this.actions.keepInFloat?.(entry, box.checked));
    return el('label', { class: 'check', title: 'Pick this entry to keep in float: the Sensitivity tab measures the entries picked together, and exports them' },
      box, ' Keep in float (Sensitivity tab)');
  }

  private activationSection(info: NodeInfo, comparison: Comparison): HTMLElement | null {
    const index = comparison.activations;
    if (!index) return null;
    const point = comparison.activationPoint(info);
    if (!point) {
      const reason = index.reason(info.entry);
      return section('Activations', el('p', { class: 'muted', attrs: { 'data-field': 'activation' }, text: reason ? `Not compared: ${reason}.`
        : 'Not compared: its tensor could not be measured at run time (the Activations tab lists why).' }));
    }
    const charts = el('div', { class: 'charts', attrs: { 'data-field': 'activation-charts' } });
    this.actions.plotActivation(point, charts);
    return section('Activations', pointFacts(point, index.synthetic, index.report.inputs.samples.length), charts);
  }

  /** For weighted ops: the summary from the weights report, and a place for the charts (filled lazily). */
  private weightsSection(info: NodeInfo, comparison: Comparison, counterparts: NodeInfo[]) {
    const layer = comparison.weightLayer(info);
    if (!layer && !info.logicalOp?.weight && !counterparts.some((c) => c.logicalOp?.weight)) return null;
    this.waiting = el('p', { class: 'muted', text: this.waitingText(), attrs: { 'data-field': 'weight-wait' } });
    const charts = el('div', { class: 'charts', attrs: { 'data-field': 'weight-charts' } }, this.waiting);
    return { section: section('Weights', layer ? weightSummary(layer, comparison.weightMeasures) : null, charts), charts };
  }
}

export function weightSummary(l: WeightLayer, m: Pick<WeightsReport, 'measures' | 'reference' | 'compared'> | null = null): HTMLElement {
  // Between two versions of a model the figures are changes of one against the other.
  if (m && isDifference(m)) {
    const pct = (v: number) => (v === 0 ? '0 %' : v < 0.001 ? '< 0.1 %' : `${(v * 100).toFixed(1)} %`);
    return dl([
      ['rank', `${l.rank} (largest change first)`],
      ['changed', `${pct(l.error.changed_fraction)} of the values, ${l.channels.changed} of ${l.channels.count} channels`],
      ['relative change', pct(l.error.relative_l2)],
      [`SQNR of ${m.compared} vs ${m.reference}`, l.error.sqnr_db === null ? '∞ (unchanged)' : `${l.error.sqnr_db.toFixed(1)} dB`],
      ['cosine', l.error.cosine.toFixed(6)],
      ['max |change|', fmt(l.error.max_abs)],
      ...(l.codes ? [[`${m.compared}'s codes`, `${l.codes.type}: ${l.codes.levels_used} of ${l.codes.levels_total} levels used`] as [string, string]] : []),
      ...(l.note ? [['note', l.note] as [string, string]] : []),
    ]);
  }
  return dl([
    ['rank', `${l.rank} (sensitivity ${fmt(l.sensitivity)})`],
    ['SQNR', l.error.sqnr_db === null ? '∞ (no error)' : `${l.error.sqnr_db.toFixed(1)} dB`],
    ['cosine', l.error.cosine.toFixed(6)],
    ['max |error|', `${fmt(l.error.max_abs)}${l.error.max_abs_lsb === null ? '' : ` (${fmt(l.error.max_abs_lsb)} LSB)`}`],
    ['codes', l.codes ? `${l.codes.type}: ${l.codes.levels_used} of ${l.codes.levels_total} levels used, ${l.codes.at_qmin + l.codes.at_qmax} at the limits` : '–'],
    ['outliers', `${l.outliers.beyond_sigmas} beyond ${l.outliers.sigmas}σ, ${l.outliers.beyond_clip_range} clipped`],
    ...(l.note ? [['note', l.note] as [string, string]] : []),
  ]);
}
