// The compared tensors of an activation comparison as a table: worst accumulated error first by
// default (the header says so), sortable by any column; clicking a row selects its ops in both
// graphs. The weight SQNR of the same entry sits beside the activation figures, so that a layer
// whose weights are fine but whose output is not reads at a glance.
import type { ActivationPoint, WeightLayer } from '../protocol/messages';
import { el, fmt, onRowActivate } from '../ui/dom';
import { byColumn, csvTable, markSorted, sortHeader, type SortableColumn } from '../ui/sortable_columns';

interface Column extends SortableColumn {
  value(p: ActivationPoint, weights: Map<number, WeightLayer>): string | number | null;
  /** Larger is worse: the first click sorts from the largest. */
  worseHigh?: boolean;
  format?(v: number | null): string;
}

const db = (v: number | null) => (v === null ? '∞' : v.toFixed(1));
const pct = (v: number | null) => (v === null ? '–' : `${(v * 100).toFixed(v > 0 && v < 0.001 ? 3 : 1)} %`);
const nodes = (ids: string[]) => ids.join(' + ');

export const POINT_COLUMNS: Column[] = [
  { key: 'order', title: 'Depth', help: "Position in the quantized model's order (inputs first)", value: (p) => p.point, numeric: true, format: (v) => String(v) },
  { key: 'float', title: 'Float ops', help: 'The float op(s) whose output is compared', value: (p) => nodes(p.float_nodes) },
  { key: 'quant', title: 'Quantized ops', help: 'The quantized op(s) whose output is compared', value: (p) => nodes(p.quant_nodes) },
  { key: 'sqnr', title: 'SQNR dB', help: 'Accumulated error: the quantized model against the float model at this tensor (higher is better; ∞: equal)',
    value: (p) => p.accumulated.sqnr_db, numeric: true, format: db },
  { key: 'local', title: 'Local dB', help: "Error made here: this op fed the float model's values at its inputs (higher is better)",
    value: (p) => (p.local ? p.local.sqnr_db : null), numeric: true, format: (v) => (v === null ? '–' : db(v)) },
  { key: 'drop', title: 'Drop dB', help: 'How much lower the SQNR is here than at the worst of its compared inputs', value: (p) => p.sqnr_drop_db,
    numeric: true, worseHigh: true, format: (v) => (v === null ? '–' : v.toFixed(1)) },
  { key: 'cosine', title: 'Cosine', help: 'Cosine similarity of the two tensors', value: (p) => p.accumulated.cosine, numeric: true, format: (v) => (v === null ? '–' : v.toFixed(5)) },
  { key: 'max_abs', title: 'Max |err|', help: 'Largest absolute difference', value: (p) => p.accumulated.max_abs, numeric: true, worseHigh: true, format: (v) => fmt(v) },
  { key: 'steps', title: 'Steps', help: "RMS error in steps of the output quantizer (pure rounding is 0.29)", value: (p) => p.accumulated.rmse_steps,
    numeric: true, worseHigh: true, format: (v) => fmt(v) },
  { key: 'clipped', title: 'Clipped', help: "Share of the float model's values beyond the output quantizer's range",
    value: (p) => p.accumulated.clipped_fraction ?? null, numeric: true, worseHigh: true, format: pct },
  // A weight without error is ∞ (the layer table's null SQNR); an op without a weight, '–'.
  { key: 'weight', title: 'Weight dB', help: "The weight SQNR of the same op (the layer table's; ∞: no error, –: no quantized weight)",
    value: (p, w) => { const l = weightOf(p, w); return l ? l.error.sqnr_db ?? Infinity : null; }, numeric: true,
    format: (v) => (v === null ? '–' : v === Infinity ? '∞' : v.toFixed(1)) },
  { key: 'verdict', title: 'Verdict', help: 'What the figures show, in words', value: (p) => p.verdict },
];

function weightOf(p: ActivationPoint, weights: Map<number, WeightLayer>): WeightLayer | undefined {
  for (const e of p.entries) {
    const w = weights.get(e);
    if (w) return w;
  }
  return undefined;
}

const ORDER_WORDS: Record<string, string> = { sqnr: 'worst accumulated error first', order: 'in graph order, inputs first', local: 'worst error made here first' };

export class PointTable {
  private points: ActivationPoint[] = [];
  private weights = new Map<number, WeightLayer>();
  private layers: WeightLayer[] = [];
  private kept = new Set<number>();
  private sortKey = 'sqnr';
  private ascending = true;
  private selected: number | null = null;
  private readonly tbody: HTMLTableSectionElement;
  private readonly headers: Map<string, HTMLTableCellElement>;

  constructor(table: HTMLTableElement, private readonly caption: HTMLElement, private readonly onSelect: (p: ActivationPoint) => void) {
    ({ tbody: this.tbody, headers: this.headers } = sortHeader(table, POINT_COLUMNS, (key) => this.sortBy(key)));
    onRowActivate(this.tbody, (row) => this.points.find((p) => String(p.point) === row.dataset.point), (p) => this.onSelect(p));
  }

  setPoints(points: ActivationPoint[]): void {
    this.points = points;
    this.render();
  }

  setWeights(layers: WeightLayer[]): void {
    this.layers = layers;
    this.weights = new Map(layers.filter((l) => !this.kept.has(l.entry)).map((l) => [l.entry, l]));
    if (this.points.length) this.render();
  }

  /** A what-if's entries kept in float: their weights are the float model's, so no weight SQNR. */
  setKeptInFloat(entries: Set<number>): void {
    this.kept = entries;
    this.setWeights(this.layers);
  }

  sortBy(key: string): void {
    if (this.sortKey === key) this.ascending = !this.ascending;
    else {
      this.sortKey = key;
      this.ascending = !POINT_COLUMNS.find((c) => c.key === key)?.worseHigh;
    }
    this.render();
  }

  /** Marks the row of the point holding `entry` (the graphs' selection). */
  select(entry: number | null): void {
    this.selected = entry;
    for (const row of this.tbody.rows) {
      const on = entry !== null && (row.dataset.entries ?? '').split(' ').includes(String(entry));
      row.setAttribute('aria-selected', String(on));
      if (on) row.scrollIntoView({ block: 'nearest' });
    }
  }

  rows(): ActivationPoint[] {
    const column = POINT_COLUMNS.find((c) => c.key === this.sortKey)!;
    return this.points.slice().sort(byColumn((p) => column.value(p, this.weights), this.ascending, (a, b) => a.point - b.point));
  }

  /** The rows as CSV; an SQNR without error is an empty cell, as in the layer table's CSV (and the CLI's). */
  toCsv(): string {
    const cell = (v: string | number | null) => (v === Infinity ? null : v);
    return csvTable(POINT_COLUMNS.map((c) => c.title), this.rows().map((p) => POINT_COLUMNS.map((c) => cell(c.value(p, this.weights)))));
  }

  private render() {
    markSorted(this.headers, this.sortKey, this.ascending);
    const words = ORDER_WORDS[this.sortKey] ?? `by ${POINT_COLUMNS.find((c) => c.key === this.sortKey)!.title}, ${this.ascending ? 'ascending' : 'descending'}`;
    this.caption.textContent = `${this.points.length} compared tensor${this.points.length === 1 ? '' : 's'}, ${words}`;
    const fragment = document.createDocumentFragment();
    for (const p of this.rows()) {
      const tr = el('tr', { attrs: { 'data-point': String(p.point), 'data-entries': p.entries.join(' '), tabindex: '0',
        'aria-selected': String(this.selected !== null && p.entries.includes(this.selected)) } });
      for (const c of POINT_COLUMNS) {
        const v = c.value(p, this.weights);
        const text = c.format ? c.format(v as number | null) : String(v ?? '');
        tr.append(el('td', { class: c.numeric ? 'num' : '', text, title: typeof v === 'string' ? v : undefined }));
      }
      fragment.append(tr);
    }
    this.tbody.replaceChildren(fragment);
  }
}
