// The forecast of a long job's end from its progress (web/src/ui/progress_forecast.ts), which decides
// whether the layer table's partial rows are painted: at the rate so far; unknown (never too soon)
// before any progress; a partial result expected to stand less than the minimum is not worth it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { importTs } from './ts_module.mjs';

test('the time left is forecast at the rate so far', async () => {
  const { forecastRemainingMs } = await importTs('web/src/ui/progress_forecast.ts');
  assert.equal(forecastRemainingMs(400, 0.5), 400);
  assert.equal(forecastRemainingMs(300, 0.75), 100);
  assert.equal(forecastRemainingMs(300, 1), 0);
  assert.equal(forecastRemainingMs(300, 0), Infinity, 'no progress yet: unknown, never soon');
  assert.equal(forecastRemainingMs(300, NaN), Infinity);
});

test('a partial result is painted only when it is expected to stand for the minimum', async () => {
  const { worthPaintingPartial } = await importTs('web/src/ui/progress_forecast.ts');
  assert.equal(worthPaintingPartial(100, 0.1, 250), true, 'early on: the table fills');
  assert.equal(worthPaintingPartial(400, 0.85, 250), false, 'the ranked table is expected within 71 ms');
  assert.equal(worthPaintingPartial(0, 0, 250), true);
});
