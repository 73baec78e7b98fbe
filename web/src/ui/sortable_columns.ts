// What the page's sortable tables share (the layer table, the Activations tab's compared tensors):
// a header of sort buttons whose tooltips say what each column measures, the sort state marked on
// them, the one ordering rule (null is the best value: an infinite SQNR, no error), and the CSV of
// the rows as shown.
import { csvCell } from '../export/csv_cell';
import { el } from './dom';

export interface SortableColumn {
  key: string;
  title: string;
  /** What the column measures (the header's tooltip). */
  help?: string;
  numeric?: boolean;
}

/** Fills `table` with a header row of sort buttons (each calls `onSort` with its key) and an empty body. */
export function sortHeader(table: HTMLTableElement, columns: SortableColumn[], onSort: (key: string) => void):
  { tbody: HTMLTableSectionElement; headers: Map<string, HTMLTableCellElement> } {
  const headers = new Map<string, HTMLTableCellElement>();
  const tr = el('tr');
  for (const c of columns) {
    const button = el('button', { class: 'sort', text: c.title, title: c.help, attrs: { type: 'button', 'data-sort': c.key } });
    button.addEventListener('click', () => onSort(c.key));
    const th = el('th', { class: c.numeric ? 'num' : '', attrs: { scope: 'col', 'aria-sort': 'none' } }, button);
    headers.set(c.key, th);
    tr.append(th);
  }
  const tbody = el('tbody');
  table.replaceChildren(el('thead', {}, tr), tbody);
  return { tbody, headers };
}

/** Marks the sorted column's header (aria-sort, which the styles draw as an arrow). */
export function markSorted(headers: Map<string, HTMLTableCellElement>, key: string, ascending: boolean): void {
  for (const [k, th] of headers) th.setAttribute('aria-sort', k === key ? (ascending ? 'ascending' : 'descending') : 'none');
}

/** The rows' order by one column's value: null sorts as the best value, equal values by `tie`. */
export function byColumn<T>(value: (row: T) => string | number | null, ascending: boolean, tie: (a: T, b: T) => number): (a: T, b: T) => number {
  const dir = ascending ? 1 : -1;
  return (a, b) => {
    const va = value(a), vb = value(b);
    if (va === vb) return tie(a, b);
    if (va === null) return dir;
    if (vb === null) return -dir;
    return (va < vb ? -1 : 1) * dir;
  };
}

/** A table as CSV: the column titles, then one line of cells per row (csvCell's rule for each). */
export function csvTable(titles: string[], rows: Array<Array<string | number | null>>): string {
  return `${[titles, ...rows].map((cells) => cells.map(csvCell).join(',')).join('\n')}\n`;
}
