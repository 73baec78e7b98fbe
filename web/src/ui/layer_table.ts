// The ranked layer table: every quantized weight, worst first (or, between two versions of a
// model, every weight, most changed first), sortable by any column and filterable by name or op
// type. Clicking a row selects the layer's nodes in both graphs.
import { labelTitle } from '../model/pair_case';
import type { UnrankedWeightLayer, WeightLayer, WeightsReport } from '../protocol/messages';
import { el, fmt, onRowActivate } from './dom';
import { MiddleEllipsis, pathPartCounts } from './middle_ellipsis';
import { byColumn, csvTable, markSorted, sortHeader, type SortableColumn } from './sortable_columns';

interface Column extends SortableColumn {
  value(l: WeightLayer): string | number | null;
  format?(v: number | null, l: WeightLayer): string;
  /** The cells' class beyond 'num' (styles.css). */
  cellClass?: string;
  /** In the CSV only (its value is shown in another column on screen). */
  csvOnly?: boolean;
}

/** One formatter for every cell (toLocaleString makes one per call). */
const INTEGER = new Intl.NumberFormat('en-US');

const COLUMNS: Column[] = [
  { key: 'rank', title: 'Rank', help: "The core's ranking: lowest SQNR first, of the tensor or of its worst channel when that is lower",
    value: (l) => l.rank, numeric: true, format: (v) => String(v) },
  { key: 'float_node', title: 'Float node', value: (l) => l.float_node, cellClass: 'name' },
  { key: 'quant_node', title: 'Quantized node', value: (l) => l.quant_node, cellClass: 'name' },
  { key: 'op', title: 'Op', value: (l) => (l.float_op_type === l.quant_op_type ? l.float_op_type : `${l.float_op_type} → ${l.quant_op_type}`) },
  { key: 'type', title: 'Codes', value: (l) => l.codes?.type ?? '' },
  { key: 'parameters', title: 'Params', value: (l) => l.parameters, numeric: true, format: (v) => (v === null ? '–' : INTEGER.format(v)) },
  { key: 'sqnr', title: 'SQNR dB', help: 'Weight SQNR of the whole tensor (∞: no error)', value: (l) => l.error.sqnr_db, numeric: true,
    format: (v) => (v === null ? '∞' : v.toFixed(1)) },
  { key: 'worst_channel_sqnr', title: 'Worst ch. dB', help: 'Weight SQNR of the worst output channel, and its index (a zeroed channel hides behind the tensor-wide figure)',
    value: (l) => (l.channels.worst ? l.channels.worst.sqnr_db : null), numeric: true,
    format: (v, l) => (v === null || !l.channels.worst ? '–' : `${v.toFixed(1)} (ch ${l.channels.worst.index})`) },
  // In the CSV a column of its own; on screen beside its SQNR (the table fits a laptop screen so).
  { key: 'worst_channel', title: 'Worst ch.', help: 'Index of the worst output channel', value: (l) => l.channels.worst?.index ?? null, numeric: true,
    csvOnly: true },
  { key: 'cosine', title: 'Cosine', value: (l) => l.error.cosine, numeric: true, format: (v) => (v === null ? '–' : v.toFixed(5)) },
  { key: 'max_lsb', title: 'Max LSB', help: 'The largest |error|, in quantization steps (0.5: rounding alone)', value: (l) => l.error.max_abs_lsb,
    numeric: true, format: (v) => fmt(v) },
  { key: 'spread', title: 'Spread', help: "The widest output channel's value range over the narrowest's (what a per-tensor scale suffers from)",
    value: (l) => l.channels.range_spread, numeric: true, format: (v) => fmt(v) },
  // Last, and taking what width is left (its full text in the tooltip and the detail panel).
  { key: 'note', title: 'Note', value: (l) => l.note ?? '', cellClass: 'note' },
];
// The relative L2 error is not a column: it is 10^(-SQNR/20), the SQNR column again. The JSON report has it.

/** The part of a weights report that decides the columns: what is measured, and the sides' names. */
export type TableMeasures = Pick<WeightsReport, 'measures' | 'reference' | 'compared'>;

const percent = (v: number | null) => (v === null ? '–' : v === 0 ? '0 %' : v < 0.001 ? '< 0.1 %' : `${(v * 100).toFixed(1)} %`);
const relative = (db: number | null) => (db === null ? 0 : Math.pow(10, -db / 20));

/**
 * Between two versions of a model (two float models, or two quantized ones without a float model)
 * the figures are changes, not errors: the columns say so, name the sides by their labels, and
 * add what a fine-tune or a re-export is read by (the share of values changed, the relative change).
 */
function differenceColumns(m: TableMeasures): Column[] {
  const ref = labelTitle(m.reference), cmp = labelTitle(m.compared);
  const against = `${cmp}'s ${m.measures === 'dequantized_difference' ? 'dequantised ' : ''}weight against ${ref}'s`;
  const byKey = new Map(COLUMNS.map((c) => [c.key, c]));
  return [
    { ...byKey.get('rank')!, help: `The core's ranking: largest change first (lowest SQNR of ${against}, of the tensor or of its worst channel)` },
    { ...byKey.get('float_node')!, title: `${ref} node` },
    { ...byKey.get('quant_node')!, title: `${cmp} node` },
    byKey.get('op')!,
    ...(m.measures === 'dequantized_difference' ? [{ ...byKey.get('type')!, help: `${cmp}'s code type` }] : []),
    byKey.get('parameters')!,
    { key: 'changed', title: 'Changed', help: 'The share of elements whose value differs at all', value: (l) => l.error.changed_fraction, numeric: true,
      format: (v) => percent(v) },
    { key: 'relative', title: 'Rel. change', help: `‖${cmp} − ${ref}‖ / ‖${ref}‖ over the whole tensor`, value: (l) => l.error.relative_l2, numeric: true,
      format: (v) => percent(v) },
    { ...byKey.get('sqnr')!, help: `SQNR of ${against}, whole tensor (∞: unchanged)` },
    { key: 'worst_channel_change', title: 'Worst ch.', help: 'The relative change of the most changed output channel, and its index',
      value: (l) => (l.channels.worst ? relative(l.channels.worst.sqnr_db) : null), numeric: true,
      format: (v, l) => (v === null || !l.channels.worst ? '–' : `${percent(v)} (ch ${l.channels.worst.index})`) },
    byKey.get('worst_channel')!,
    byKey.get('cosine')!,
    { key: 'max_abs', title: 'Max |Δ|', help: 'The largest change of one element', value: (l) => l.error.max_abs, numeric: true, format: (v) => fmt(v) },
    byKey.get('note')!,
  ];
}

/** Every column of the table (the CSV's), for what the weights report measures. */
export function columnsFor(m: TableMeasures | null): Column[] {
  // A report without `measures` (before version 2) measured quantization error.
  return m?.measures && m.measures !== 'quantization_error' ? differenceColumns(m) : COLUMNS;
}

/** The columns on screen (and in the HTML report's table). */
export function shownColumns(m: TableMeasures | null): Column[] {
  return columnsFor(m).filter((c) => !c.csvOnly);
}

/** A cell's text as the table shows it. */
export function cellText(c: Column, l: WeightLayer): string {
  const v = c.value(l);
  return c.format ? c.format(v as number | null, l) : String(v ?? '');
}

/** The table's rows as CSV (also written by the VS Code extension host, without the page). */
export function layersToCsv(layers: WeightLayer[], m: TableMeasures | null): string {
  const columns = columnsFor(m);
  return csvTable(columns.map((c) => c.title), layers.map((l) => columns.map((c) => c.value(l))));
}

/**
 * Above this many rows only the rows in view, and a screenful around them, are in the DOM: a
 * 5,000-layer model would otherwise put 65,000 elements in the page (tens of MB, and a second to
 * build). Small tables keep every row, so that they can be read and searched as a whole.
 */
const WINDOWED_ABOVE = 300;
/** Rows kept beyond each edge of the view while scrolling. */
const OVERSCAN = 40;

export class LayerTable {
  private layers: WeightLayer[] = [];
  /** The rows shown, in order (rows()), and each one's position by mapping entry. */
  private shown: WeightLayer[] = [];
  private readonly positionOf = new Map<number, number>();
  private notAnalysed = 0;
  /** The layers are those found so far (setFound): no rank yet. */
  private unranked = false;
  private measures: TableMeasures | null = null;
  private notCompared = '';
  private columns: Column[] = COLUMNS;
  private shownColumns: Column[] = COLUMNS.filter((c) => !c.csvOnly);
  private sortKey = 'rank';
  private ascending = true;
  private filter = '';
  private selectedEntry: number | null = null;
  private tbody: HTMLTableSectionElement;
  private headers: Map<string, HTMLTableCellElement>;
  /** The element that scrolls the table (its panel), and the measured height of one row. */
  private readonly scroller: HTMLElement;
  private rowHeight = 0;
  private frame = 0;
  /** Node names cut in the middle to the name cells' width (styles.css: --name-cell), in the table's font. */
  private readonly names = new MiddleEllipsis();
  private nameWidth = 0;
  private font = '';
  /** Per name column, in how many names each path part is (the most common are left out first when a name is cut). */
  private readonly partCounts = new Map<string, Map<string, number>>();

  constructor(private readonly table: HTMLTableElement, private readonly count: HTMLElement, private readonly onSelect: (layer: WeightLayer) => void) {
    ({ tbody: this.tbody, headers: this.headers } = sortHeader(table, this.shownColumns, (key) => this.sortBy(key)));
    // On the table: its body is made anew when the columns change.
    onRowActivate(table, (row) => {
      const at = row.dataset.entry ? this.positionOf.get(Number(row.dataset.entry)) : undefined;
      return at === undefined ? null : this.shown[at];
    }, (layer) => this.onSelect(layer));
    this.scroller = table.parentElement ?? table;
    const later = () => {
      if (this.windowed() && !this.frame) this.frame = requestAnimationFrame(() => { this.frame = 0; this.drawRows(); });
    };
    this.scroller.addEventListener('scroll', later, { passive: true });
    // A tab shown again (or the panel resized) shows another number of rows, or names cut to another width.
    new ResizeObserver(() => (this.measureNames() && !this.windowed() ? this.drawRows() : later())).observe(this.scroller);
  }

  /** The analysed layers, and how many aligned weights were not analysed (invalid quantization parameters). */
  setLayers(weights: Pick<WeightsReport, 'layers' | 'measures' | 'reference' | 'compared' | 'not_compared'>, notAnalysed = 0): void {
    this.unranked = false;
    this.show(weights, notAnalysed);
  }

  /**
   * The layers an analysis still running has found so far. The core ranks them once every layer is
   * analysed (a layer's sensitivity weighs its share of all the parameters): until then the rank
   * cells say so, and the rows are in order of their lowest SQNR, of the tensor or its worst channel.
   */
  setFound(found: TableMeasures & { layers: UnrankedWeightLayer[] }): void {
    const damage = (l: UnrankedWeightLayer) => Math.min(l.error.sqnr_db ?? Infinity, l.channels.worst?.sqnr_db ?? Infinity);
    const layers = found.layers.map((l) => ({ ...l, rank: 0, sensitivity: 0 }));
    layers.sort((a, b) => (damage(a) === damage(b) ? 0 : damage(a) < damage(b) ? -1 : 1)).forEach((l, i) => { l.rank = i + 1; });
    this.unranked = true;
    this.show({ ...found, layers }, 0);
  }

  private show(weights: Pick<WeightsReport, 'layers' | 'measures' | 'reference' | 'compared' | 'not_compared'>, notAnalysed: number): void {
    const layers = weights.layers;
    this.layers = layers;
    this.notAnalysed = notAnalysed;
    this.notCompared = weights.not_compared ?? '';
    if (weights.measures !== this.measures?.measures || weights.reference !== this.measures?.reference || weights.compared !== this.measures?.compared) {
      this.measures = { measures: weights.measures, reference: weights.reference, compared: weights.compared };
      this.columns = columnsFor(this.measures);
      this.shownColumns = this.columns.filter((c) => !c.csvOnly);
      if (!this.columns.some((c) => c.key === this.sortKey)) this.sortKey = 'rank';
      ({ tbody: this.tbody, headers: this.headers } = sortHeader(this.table, this.shownColumns, (key) => this.sortBy(key)));
    }
    for (const c of this.shownColumns) if (c.cellClass === 'name') this.partCounts.set(c.key, pathPartCounts(layers.map((l) => String(c.value(l)))));
    this.names.clear();
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
      this.ascending = !['max_lsb', 'spread', 'parameters', 'changed', 'relative', 'worst_channel_change', 'max_abs'].includes(key);
    }
    this.render();
  }

  select(entry: number | null): void {
    this.selectedEntry = entry;
    const at = entry === null ? undefined : this.positionOf.get(entry);
    if (at !== undefined && this.windowed()) {
      // Scrolled so that the row is in view (as scrollIntoView 'nearest' would), then drawn there.
      const top = this.headerHeight() + at * this.rowHeight, view = this.scroller.clientHeight;
      if (top < this.scroller.scrollTop + this.headerHeight()) this.scroller.scrollTop = top - this.headerHeight();
      else if (top + this.rowHeight > this.scroller.scrollTop + view) this.scroller.scrollTop = top + this.rowHeight - view;
      this.drawRows();
    }
    for (const row of this.tbody.rows) {
      if (!row.dataset.entry) continue;
      const on = row.dataset.entry === String(entry);
      row.setAttribute('aria-selected', String(on));
      if (on && !this.windowed()) row.scrollIntoView({ block: 'nearest' });
    }
  }

  /** The rows shown, in the order shown. */
  rows(): WeightLayer[] {
    const column = this.columns.find((c) => c.key === this.sortKey)!;
    const shown = this.filter
      ? this.layers.filter((l) => [l.float_node, l.quant_node, l.float_op_type, l.quant_op_type, l.note ?? ''].some((s) => s.toLowerCase().includes(this.filter)))
      : this.layers.slice();
    return shown.sort(byColumn((l) => column.value(l), this.ascending, (a, b) => a.rank - b.rank));
  }

  toCsv(): string {
    return layersToCsv(this.rows(), this.measures);
  }

  private windowed(): boolean {
    return this.shown.length > WINDOWED_ABOVE;
  }

  private headerHeight(): number {
    return this.tbody.previousElementSibling?.getBoundingClientRect().height ?? 0;
  }

  private render() {
    markSorted(this.headers, this.sortKey, this.ascending);
    this.shown = this.rows();
    this.positionOf.clear();
    this.shown.forEach((l, i) => this.positionOf.set(l.entry, i));
    this.drawRows();
    const n = this.shown.length;
    const count = (n === this.layers.length ? `${n} layers` : `${n} of ${this.layers.length} layers`) +
      (this.unranked ? ' so far, unranked' : '');
    // Never a silent gap: weights whose parameters break the spec are not in the table, and say so;
    // nor an unexplained empty table (two models that are not one network have no weights to compare).
    this.count.title = this.notCompared;
    if (this.notCompared) this.count.textContent = 'No weights compared: the two models are not the same network';
    else this.count.textContent = this.notAnalysed
      ? `${count} · ${this.notAnalysed} not analysed: invalid quantization parameters (see the lint)`
      : count;
  }

  /** Every row, or in a long table the rows in view with a spacer above and below for the rest. */
  /** Reads the name cells' width and the table's font; true when they changed (the window crossed a breakpoint). */
  private measureNames(): boolean {
    const style = getComputedStyle(this.table);
    // The cell's own padding (6 px a side) is not room for text.
    const width = (parseFloat(style.getPropertyValue('--name-cell')) || 160) - 12, font = style.font;
    const changed = width !== this.nameWidth || font !== this.font;
    this.nameWidth = width;
    this.font = font;
    return changed;
  }

  private drawRows() {
    this.measureNames();
    const fragment = document.createDocumentFragment();
    if (!this.windowed()) {
      for (const l of this.shown) fragment.append(this.row(l));
      this.tbody.replaceChildren(fragment);
      return;
    }
    if (!this.rowHeight && this.shown.length) {
      const probe = this.row(this.shown[0]);
      this.tbody.replaceChildren(probe);
      this.rowHeight = probe.getBoundingClientRect().height;  // 0 while the tab is hidden: measured again later
    }
    const h = this.rowHeight || 21;
    const inView = Math.ceil((this.scroller.clientHeight || 600) / h);
    const first = Math.max(0, Math.floor(Math.max(0, this.scroller.scrollTop - this.headerHeight()) / h) - OVERSCAN);
    const last = Math.min(this.shown.length, first + inView + 2 * OVERSCAN);
    fragment.append(this.spacer(first * h));
    for (let i = first; i < last; i++) fragment.append(this.row(this.shown[i]));
    fragment.append(this.spacer((this.shown.length - last) * h));
    this.tbody.replaceChildren(fragment);
  }

  private row(l: WeightLayer): HTMLTableRowElement {
    const tr = el('tr', { attrs: { 'data-entry': String(l.entry), 'data-rank': this.unranked ? '' : String(l.rank), tabindex: '0', 'aria-selected': String(l.entry === this.selectedEntry) } });
    for (const c of this.shownColumns) {
      if (this.unranked && c.key === 'rank') {
        tr.append(el('td', { class: 'num', text: '…', title: 'Ranked when every layer is analysed' }));
        continue;
      }
      const v = c.value(l);
      const text = c.cellClass === 'name' ? this.names.cut(cellText(c, l), this.nameWidth, this.font, this.partCounts.get(c.key)) : cellText(c, l);
      tr.append(el('td', { class: c.numeric ? 'num' : c.cellClass ?? '', text, title: typeof v === 'string' ? v : undefined }));
    }
    return tr;
  }

  /** Room for rows not drawn (its height set through the CSSOM, which the page's CSP allows). */
  private spacer(height: number): HTMLTableRowElement {
    const td = el('td', { attrs: { colspan: String(this.shownColumns.length) } });
    td.style.height = `${height}px`;
    const tr = el('tr', { class: 'spacer', attrs: { 'aria-hidden': 'true' } }, td);
    return tr;
  }
}
