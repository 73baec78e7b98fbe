// The Versions tab of a three-way comparison: one row per group of float ops, what version A and
// version B made of them side by side (form, precision, granularity, fusions, weight SQNR), the
// ratio of their output scales, the winner and the differences in words, most different first
// (the core's ranking: README "Three-way comparisons"). A row selects its float ops, and with them
// both versions' counterparts in the three graphs; the row of the selection is marked.
import type { ThreeWayCell, ThreeWayReport, ThreeWayRow } from '../protocol/messages';
import { el, fmt, onRowActivate } from '../ui/dom';
import { csvTable } from '../ui/sortable_columns';

const COLUMNS = ['#', 'Float ops', 'A', 'B', 'A SQNR', 'B SQNR', 'Out scale B/A', 'Winner', 'Where they differ'];
/** With both versions run on inputs: their activation SQNR at each row's output, after the weights'. */
const ACTIVATION_COLUMNS = ['A act. SQNR', 'B act. SQNR'];
const HELP: Record<string, string> = {
  '#': 'Rank: rows where the two versions differ most come first (the disagreement score)',
  'A SQNR': "Weight signal-to-quantization-noise ratio of version A's weight against the float weight, in dB (higher is better)",
  'B SQNR': "Weight signal-to-quantization-noise ratio of version B's weight against the float weight, in dB (higher is better)",
  'A act. SQNR': "Activation SQNR of version A at the row's output, accumulated from the model inputs, in dB (higher is better)",
  'B act. SQNR': "Activation SQNR of version B at the row's output, accumulated from the model inputs, in dB (higher is better)",
  'Out scale B/A': "B's output scale over A's: below 1, B covers a narrower range (it clips sooner, A rounds coarser)",
  Winner: 'The higher activation SQNR when both versions ran, else the higher weight SQNR (a tie within 0.5 dB), else the version that kept the weight in float; unknown without a figure on both sides',
};

/** A cell in words: "qdq · int8 per channel · fused", "float (kept)", "—" without a counterpart. */
export function cellText(c: ThreeWayCell): string {
  if (c.kind === 'removed' || c.ops.length === 0) return '— (no counterpart)';
  const parts = [c.form];
  if (c.weight) parts.push(`${c.weight.type} ${c.weight.granularity.replace('_', ' ')}`);
  else if (c.output && c.quantized) parts.push(`out ${c.output.type}`);
  if (c.fused) parts.push('fused');
  if (c.lowered) parts.push('lowered');
  if (c.weight_kept_float) parts.push('weight kept float');
  return parts.join(' · ');
}

const db = (c: ThreeWayCell) => (c.weight_compared && c.weight_sqnr_db !== null ? c.weight_sqnr_db : null);
/** An activation SQNR as shown: '–' not observed, 'exact' for no error at all. */
const actText = (c: ThreeWayCell) => (!c.activation_compared ? '–' : c.activation_sqnr_db === null ? 'exact' : fmt(c.activation_sqnr_db, 3));
const columnsOf = (report: ThreeWayReport) => (report.summary.activations ? [...COLUMNS.slice(0, 6), ...ACTIVATION_COLUMNS, ...COLUMNS.slice(6)] : COLUMNS);
const winnerText = (r: ThreeWayRow) => (r.winner === null ? 'unknown' : r.winner === 'tie' ? 'tie' : r.winner);

/** The rows in the order the tab shows them: those that differ, most different first, then the rest in float order. */
function shownOrder(report: ThreeWayReport): ThreeWayRow[] {
  const differ = new Set(report.where_they_differ);
  return [...report.where_they_differ.map((i) => report.table[i]), ...report.table.filter((r) => !differ.has(r.row))];
}

/** The Versions table as CSV, as the tab shows it (the page's and the extension's CSV export of a three-way comparison). */
export function threeWayCsv(report: ThreeWayReport): string {
  const ran = report.summary.activations !== null;
  return csvTable(columnsOf(report).slice(1).concat('Winner reason'), shownOrder(report).map((r) => [
    r.float_ops.join(' + '), cellText(r.A), cellText(r.B), db(r.A), db(r.B), ...(ran ? [actText(r.A), actText(r.B)] : []),
    r.output_scale_ratio, winnerText(r), r.differences.join('; '), r.winner_reason,
  ]));
}

export class ThreeWayTable {
  private report: ThreeWayReport | null = null;
  private order: ThreeWayRow[] = [];
  private readonly tbody: HTMLTableSectionElement;

  private readonly thead: HTMLTableSectionElement;

  constructor(table: HTMLTableElement, private readonly count: HTMLElement, private readonly onSelect: (row: ThreeWayRow) => void) {
    table.replaceChildren((this.thead = el('thead')), (this.tbody = el('tbody')));
    this.header(COLUMNS);
    onRowActivate(this.tbody, (tr) => (tr.dataset.row === undefined ? null : this.report?.table[Number(tr.dataset.row)]), (r) => this.onSelect(r));
    this.set(null);
  }

  /** The three-way report (null: being made; a string: why there is none). */
  set(report: ThreeWayReport | null | string): void {
    this.report = typeof report === 'object' ? report : null;
    const placeholder = (text: string) => this.tbody.replaceChildren(el('tr', {}, el('td', { class: 'muted', text, attrs: { colspan: String(COLUMNS.length) } })));
    if (typeof report === 'string') {
      this.count.textContent = '';
      return placeholder(report);
    }
    if (!report) {
      this.count.textContent = '';
      return placeholder('Comparing the two versions…');
    }
    const differ = new Set(report.where_they_differ);
    this.order = shownOrder(report);
    const ran = report.summary.activations;
    this.header(columnsOf(report));
    this.count.textContent = `${report.summary.differing} of ${report.summary.rows} differ${ran?.inputs.synthetic ? ' · synthetic inputs' : ''}`;
    const w = report.summary.winners;
    this.count.title = `winners: A ${w.A}, B ${w.B}, tie ${w.tie}, unknown ${w.unknown}`;
    const [a, b] = report.versions;
    this.tbody.replaceChildren(...this.order.map((r, k) => el('tr', {
      attrs: { tabindex: '0', 'data-row': String(r.row), 'data-winner': winnerText(r), 'aria-selected': 'false', ...(differ.has(r.row) ? { 'data-differs': 'true' } : {}) },
    },
    el('td', { class: 'num', text: differ.has(r.row) ? String(k + 1) : '' }),
    el('td', { text: r.float_op_types.join(' + '), title: r.float_ops.join('\n') }),
    el('td', { text: cellText(r.A), title: `${a.quant.file}: ${r.A.ops.join(', ') || 'no counterpart'}` }),
    el('td', { text: cellText(r.B), title: `${b.quant.file}: ${r.B.ops.join(', ') || 'no counterpart'}` }),
    el('td', { class: 'num', text: db(r.A) === null ? '–' : fmt(db(r.A), 3) }),
    el('td', { class: 'num', text: db(r.B) === null ? '–' : fmt(db(r.B), 3) }),
    ...(ran ? [el('td', { class: 'num', attrs: { 'data-field': 'activation-a' }, text: actText(r.A) }), el('td', { class: 'num', attrs: { 'data-field': 'activation-b' }, text: actText(r.B) })] : []),
    el('td', { class: 'num', text: r.output_scale_ratio === null ? '–' : fmt(r.output_scale_ratio, 3) }),
    el('td', { class: `winner w-${winnerText(r)}${r.winner === null ? ' muted' : ''}`, text: winnerText(r), title: r.winner_reason }),
    el('td', { class: 'differences', text: r.differences.join('; ') || '—', title: r.differences.join('\n') }))));
  }

  private header(columns: string[]) {
    this.thead.replaceChildren(el('tr', {}, ...columns.map((t) => el('th', { text: t, title: HELP[t], attrs: { scope: 'col' } }))));
  }

  /** Marks the rows holding any of `floatOps` (the float nodes selected). */
  select(floatOps: string[]): void {
    const picked = new Set(floatOps);
    for (const tr of this.tbody.rows) {
      const r = tr.dataset.row === undefined ? null : this.report?.table[Number(tr.dataset.row)];
      const on = !!r && r.float_ops.some((op) => picked.has(op));
      tr.setAttribute('aria-selected', String(on));
      if (on && picked.size) tr.scrollIntoView({ block: 'nearest' });
    }
  }

  /** The table as shown, as CSV. */
  toCsv(): string {
    return this.report ? threeWayCsv(this.report) : '';
  }
}
