// The page's and the extension's CSV cells follow the one rule the CLI follows too: the cases in
// tests/fixtures/csv_cells.json, which core/report/csv_cell.h is tested against as well.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { csvCell } from '../../web/src/export/csv_cell';
import { repoRoot } from './repo_root';

interface CsvCase { value: string; text: boolean; cell: string }

test('every CSV cell case is written as the CLI writes it', () => {
  const { cases } = JSON.parse(readFileSync(path.join(repoRoot(), 'tests/fixtures/csv_cells.json'), 'utf8')) as { cases: CsvCase[] };
  assert.ok(cases.length >= 10);
  for (const c of cases) {
    // A number cell comes to the page as a number; its text is what the CLI prints for it.
    const value = c.text ? c.value : Number(c.value);
    assert.equal(csvCell(value), c.text ? c.cell : String(value), JSON.stringify(c.value));
  }
});
