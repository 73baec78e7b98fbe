// The ranked layer table: every quantized weight, worst first, sortable by any column and
// filterable by name or op type. Clicking a row selects the layer's nodes in both graphs.
import type { WeightLayer } from '../protocol/messages';
import { el, fmt } from './dom';

interface Column {
  key: string;
  title: string;
  value(l: WeightLayer): string | number | null;
  numeric?: boolean;
  format?(v: number | null): string;
}

export const COLUMNS: Column[] = [
  { key: 'rank', title: 'Rank', value: (l) => l.rank, numeric: true, format: (v) => String(v) },
  { key: 'float_node', title: 'Float node', value: (l) => l.float_node },
  { key: 'quant_node', title: 'Quantized node', value: (l) => l.quant_node },
  { key: 'op', title: 'Op', value: (l) => (l.float_op_type === l.quant_op_type ? l.float_op_type : `${l.float_op_type} → ${l.quant_op_type}`) },
  { key: 'type', title: 'Codes', value: (l) => l.codes?.type ?? '' },
  { key: 'parameters', title: 'Params', value: (l) => l.parameters, numeric: true, format: (v) => (v === null ? '–' : v.toLocaleString('en-US')) },
  { key: 'sqnr', title: 'SQNR dB', value: (l) => l.error.sqnr_db, numeric: true, format: (v) => (v === null ? '∞' : v.toFixed(1)) },
  { key: 'cosine', title: 'Cosine', value: (l) => l.error.cosine, numeric: true, format: (v) => (v === null ? '–' : v.toFixed(5)) },
  { key: 'max_lsb', title: 'Max |err| LSB', value: (l) => l.error.max_abs_lsb, numeric: true, format: (v) => fmt(v) },
  { key: 'rel_l2', title: 'Rel. L2', value: (l) => l.error.relative_l2, numeric: true, format: (v) => fmt(v) },
  { key: 'spread', title: 'Ch. spread', value: (l) => l.channels.range_spread, numeric: true, format: (v) => fmt(v) },
  { key: 'note', title: 'Note', value: (l) => l.note ?? '' },
];

/** The table's rows as CSV (also written by the VS Code extension host, without the page). */
export function layersToCsv(layers: WeightLayer[]): string {
  const cell = (v: string | number | null) => {
    let s = v === null ? '' : String(v);
    // Model strings are data: a leading = + - @ would be a formula to a spreadsheet.
    if (typeof v === 'string' && /^[=+\-@\t\r]/.test(s)) s = `'${s}`;
    return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
  };
  const lines = [COLUMNS.map((c) => cell(c.title)).join(',')];
  for (const l of layers) lines.push(COLUMNS.map((c) => cell(c.value(l))).join(','));
  return `${lines.join('\n')}\n`;
}

export class LayerTable {
  private layers: WeightLayer[] = [];
  private sortKey = 'rank';
  private ascending = true;
  private filter = '';
  private selectedEntry: number | null = null;
  private readonly tbody: HTMLTableSectionElement;
  private readonly headers = new Map<string, HTMLTableCellElement>();

  constructor(table: HTMLTableElement, private readonly count: HTMLElement, private readonly onSelect: (layer: WeightLayer) => void) {
    const tr = el('tr');
    for (const c of COLUMNS) {
      const button = el('button', { class: 'sort', text: c.title, attrs: { type: 'button', 'data-sort': c.key } });
      button.addEventListener('click', () => this.sortBy(c.key));
      const th = el('th', { class: c.numeric ? 'num' : '', attrs: { scope: 'col', 'aria-sort': 'none' } }, button);
      this.headers.set(c.key, th);
      tr.append(th);
    }
    table.replaceChildren(el('thead', {}, tr), (this.tbody = el('tbody')));
  }

  setLayers(layers: WeightLayer[]): void {
    this.layers = layers;
    this.render();
  }

  setFilter(text: string): void {
    this.filter = text.trim().toLowerCase();
    this.render();
  }

  sortBy(key: string): void {
    if (this.sortKey === key) this.ascending = !this.ascending;
    else {
      this.sortKey = key;
      // Numbers where larger is worse start from the largest; the rest ascend.
      this.ascending = !['max_lsb', 'rel_l2', 'spread', 'parameters'].includes(key);
    }
    this.render();
  }

  select(entry: number | null): void {
    this.selectedEntry = entry;
    for (const row of this.tbody.rows) {
      const on = row.dataset.entry === String(entry);
      row.setAttribute('aria-selected', String(on));
      if (on) row.scrollIntoView({ block: 'nearest' });
    }
  }

  /** The rows shown, in the order shown. */
  rows(): WeightLayer[] {
    const column = COLUMNS.find((c) => c.key === this.sortKey)!;
    const shown = this.filter
      ? this.layers.filter((l) => [l.float_node, l.quant_node, l.float_op_type, l.quant_op_type, l.note ?? ''].some((s) => s.toLowerCase().includes(this.filter)))
      : this.layers.slice();
    const dir = this.ascending ? 1 : -1;
    shown.sort((a, b) => {
      const va = column.value(a), vb = column.value(b);
      if (va === vb) return a.rank - b.rank;
      // null (infinite SQNR) sorts as the best value.
      if (va === null) return dir;
      if (vb === null) return -dir;
      return (va < vb ? -1 : 1) * dir;
    });
    return shown;
  }

  toCsv(): string {
    return layersToCsv(this.rows());
  }

  private render() {
    for (const [key, th] of this.headers) th.setAttribute('aria-sort', key === this.sortKey ? (this.ascending ? 'ascending' : 'descending') : 'none');
    const rows = this.rows();
    const fragment = document.createDocumentFragment();
    for (const l of rows) {
      const tr = el('tr', { attrs: { 'data-entry': String(l.entry), 'data-rank': String(l.rank), tabindex: '0', 'aria-selected': String(l.entry === this.selectedEntry) } });
      for (const c of COLUMNS) {
        const v = c.value(l);
        const text = c.format ? c.format(v as number | null) : String(v ?? '');
        tr.append(el('td', { class: c.numeric ? 'num' : '', text, title: typeof v === 'string' ? v : undefined }));
      }
      tr.addEventListener('click', () => this.onSelect(l));
      tr.addEventListener('keydown', (e) => {
        if (e.key === 'Enter' || e.key === ' ') {
          e.preventDefault();
          this.onSelect(l);
        }
      });
      fragment.append(tr);
    }
    this.tbody.replaceChildren(fragment);
    this.count.textContent = rows.length === this.layers.length ? `${rows.length} layers` : `${rows.length} of ${this.layers.length} layers`;
  }
}
