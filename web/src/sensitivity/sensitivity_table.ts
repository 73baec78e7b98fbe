// The sweep's entries as a table, best recovery first: what keeping each one in float gives back
// (the output SQNR then, the gain, and with the split, only its weights or only its activations, and
// the float model with only it quantized),
// why an entry was not measured, and a box per row to pick entries by hand. Clicking a row selects
// the entry's ops in both graphs.
import type { SensitivityEntry, SensitivityReport } from 'visualquant-core';
import { el, onRowActivate } from '../ui/dom';
import { entryLabel, gainText, rankedEntries, variantText } from './sensitivity_model';

export class SensitivityTable {
  private rows: SensitivityEntry[] = [];
  private picked = new Set<number>();
  private selected: number | null = null;
  private readonly tbody: HTMLTableSectionElement;

  constructor(table: HTMLTableElement, private readonly onSelect: (e: SensitivityEntry) => void,
    private readonly onPick: (entry: number, on: boolean) => void) {
    const head = el('tr', {},
      el('th', { text: 'Keep', title: 'Pick entries by hand: measure them together, export them, save the model' }),
      el('th', { text: 'Rank', title: 'By the output SQNR with the entry kept in float, best first' }),
      el('th', { text: 'Entry' }),
      el('th', { text: 'Op' }),
      el('th', { text: 'Float ops', title: "The float model's ops put in the quantized ones' place" }),
      el('th', { text: 'Output SQNR', title: 'The lowest output SQNR of the quantized model with this entry kept in float (weights and activations)' }),
      el('th', { text: 'Gain', title: 'Over the quantized model as it is' }),
      el('th', { text: 'Weights only', title: 'The gain with only its weights kept in float' }),
      el('th', { text: 'Activations only', title: 'The gain with only its activations kept in float (QDQ forms)' }),
      el('th', { text: 'Quantized alone', title: 'The output SQNR of the float model with only this entry quantized: the damage it does on its own' }),
      el('th', { text: 'Note' }));
    this.tbody = el('tbody');
    table.replaceChildren(el('thead', {}, head), this.tbody);
    onRowActivate(this.tbody, (row) => this.rows[Number(row.dataset.index)], (e) => this.onSelect(e));
    this.tbody.addEventListener('change', (ev) => {
      const box = ev.target as HTMLInputElement;
      if (box.type !== 'checkbox') return;
      // A block's box picks every entry of the block.
      for (const e of (box.dataset.entries ?? box.dataset.entry ?? '').split(',')) this.onPick(Number(e), box.checked);
    });
  }

  setReport(report: SensitivityReport | null): void {
    this.rows = report ? rankedEntries(report) : [];
    const rank = new Map((report?.ranking ?? []).map((e, i) => [e, i + 1]));
    this.tbody.replaceChildren(...this.rows.map((e, i) => {
      const k = e.keep_in_float;
      const reasons = [...Object.entries(k), ['quantized alone', e.quantized_alone] as const]
        .filter(([, v]) => v.status === 'failed').map(([part, v]) => `${part}: ${v.reason ?? v.status}`);
      const box = el('input', { attrs: { type: 'checkbox', 'data-entry': String(e.entry), 'data-entries': e.entries.join(','),
        'aria-label': e.block ? `Keep block ${e.block} in float` : `Keep entry ${e.entry} in float` } });
      box.checked = e.entries.every((x) => this.picked.has(x));
      box.addEventListener('click', (ev) => ev.stopPropagation());
      return el('tr', { attrs: { 'data-index': String(i), 'data-entry': String(e.entry), tabindex: '0' } },
        el('td', {}, box),
        el('td', { class: 'num', text: rank.has(e.entry) ? String(rank.get(e.entry)) : '–' }),
        el('td', { class: e.block ? 'mono' : 'num', text: e.block ? `${e.block} (${e.entries.length} entries)` : String(e.entry) }),
        el('td', { text: e.op }),
        el('td', { class: 'mono', text: entryLabel(e), title: e.float_nodes.join('\n') }),
        el('td', { class: 'num', text: variantText(k.both) }),
        el('td', { class: 'num', text: gainText(k.both) }),
        el('td', { class: 'num', text: gainText(k.weights) }),
        el('td', { class: 'num', text: gainText(k.activations) }),
        el('td', { class: 'num', text: variantText(e.quantized_alone) }),
        el('td', { class: 'muted', text: reasons.join('; ') }));
    }));
    this.select(this.selected);
  }

  /** The entries picked (in the table or in a node's detail): their boxes ticked. */
  setPicked(picked: Set<number>): void {
    this.picked = picked;
    for (const box of this.tbody.querySelectorAll<HTMLInputElement>('input[type="checkbox"]'))
      box.checked = (box.dataset.entries ?? box.dataset.entry ?? '').split(',').every((e) => picked.has(Number(e)));
  }

  select(entry: number | null): void {
    this.selected = entry;
    for (const row of this.tbody.rows) row.classList.toggle('selected', entry !== null && row.dataset.entry === String(entry));
  }
}
