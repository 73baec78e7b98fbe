// Settings: read and checked, and mapped onto the UI's options and the damaged-layer filter.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { damagedLayers, DEFAULT_SETTINGS, readSettings, uiOptionsOf } from '../src/host/settings';

const from = (values: Record<string, unknown>) => readSettings((key) => values[key]);

test('defaults when nothing is set, and the UI options they give (the web page\'s own bins)', () => {
  const s = from({});
  assert.deepEqual(s, DEFAULT_SETTINGS);
  assert.deepEqual(uiOptionsOf(s), { overlay: 'status', view: 'logical', bins: 64, sqnrThresholds: [45, 35, 25, 15] });
});

test('values set are used', () => {
  const s = from({ histogramBins: 128, defaultOverlay: 'heat', 'thresholds.damagedSqnrDb': 30, 'thresholds.goodSqnrDb': 50, foldQdq: false });
  assert.deepEqual(s, { histogramBins: 128, defaultOverlay: 'heat', damagedSqnrDb: 30, goodSqnrDb: 50, foldQdq: false });
  assert.deepEqual(uiOptionsOf(s), { overlay: 'heat', view: 'nodes', bins: 128, sqnrThresholds: [50, 40, 30, 20] });
});

test('values out of range or of the wrong type fall back to the defaults', () => {
  const s = from({ histogramBins: 3, defaultOverlay: 'rainbow', 'thresholds.damagedSqnrDb': 'low', foldQdq: 'yes' });
  assert.deepEqual(s, DEFAULT_SETTINGS);
  assert.equal(from({ histogramBins: 99.6 }).histogramBins, 100);
  assert.equal(from({ histogramBins: Number.NaN }).histogramBins, 64);
});

test('a good threshold not above the damaged one is moved above it', () => {
  const s = from({ 'thresholds.damagedSqnrDb': 40, 'thresholds.goodSqnrDb': 30 });
  assert.equal(s.goodSqnrDb, 60);
  const t = uiOptionsOf(s).sqnrThresholds!;
  assert.deepEqual(t, [...t].sort((a, b) => b - a));
});

test('damaged layers: below the threshold; an exact copy (infinite SQNR) never is', () => {
  const layer = (sqnr: number | null) => ({ error: { sqnr_db: sqnr } });
  const layers = [layer(12), layer(24.9), layer(25), layer(null), layer(60)];
  assert.deepEqual(damagedLayers(layers, DEFAULT_SETTINGS), [layers[0], layers[1]]);
});
