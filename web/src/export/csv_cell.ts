// The one rule for a CSV cell, the same as the CLI's (core/report/csv_cell.h); both are tested
// against tests/fixtures/csv_cells.json. Model strings are data: a text cell a spreadsheet would
// read as a formula (leading = + - @, or a tab or CR before one) gets a leading apostrophe; a cell
// with a comma, quote or line break is quoted, its quotes doubled. Numbers are written as they are.
export function csvCell(v: string | number | null): string {
  let s = v === null ? '' : String(v);
  if (typeof v === 'string' && /^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}
