// The extension's settings (visualquant.*), read and checked, and what they mean to the UI: its
// default overlay and view, histogram bins, and the weight-error overlay's bins, which the
// "damaged" and "good" SQNR thresholds place.
import type { UiOptions } from '../../../web/src/host';
import type { OverlayName } from '../../../web/src/ui/overlays';

export interface Settings {
  histogramBins: number;
  defaultOverlay: OverlayName;
  /** Below this SQNR (dB) a layer is damaged. */
  damagedSqnrDb: number;
  /** At or above this SQNR (dB) a layer is fine. */
  goodSqnrDb: number;
  /** Q/DQ and rescale chains as edge badges (true) or as nodes (false). */
  foldQdq: boolean;
}

export const DEFAULT_SETTINGS: Settings = { histogramBins: 64, defaultOverlay: 'status', damagedSqnrDb: 25, goodSqnrDb: 45, foldQdq: true };
const OVERLAYS: readonly OverlayName[] = ['status', 'heat', 'precision', 'lint'];

/** Reads the settings through `get` (a WorkspaceConfiguration's), falling back to the defaults for values out of range. */
export function readSettings(get: (key: string) => unknown): Settings {
  const number = (key: string, fallback: number, min: number, max: number) => {
    const v = get(key);
    return typeof v === 'number' && Number.isFinite(v) && v >= min && v <= max ? v : fallback;
  };
  const d = DEFAULT_SETTINGS;
  const overlay = get('defaultOverlay');
  const damaged = number('thresholds.damagedSqnrDb', d.damagedSqnrDb, -100, 200);
  let good = number('thresholds.goodSqnrDb', d.goodSqnrDb, -100, 200);
  if (good <= damaged) good = damaged + 20;
  const fold = get('foldQdq');
  return {
    histogramBins: Math.round(number('histogramBins', d.histogramBins, 8, 1024)),
    defaultOverlay: OVERLAYS.includes(overlay as OverlayName) ? (overlay as OverlayName) : d.defaultOverlay,
    damagedSqnrDb: damaged,
    goodSqnrDb: good,
    foldQdq: typeof fold === 'boolean' ? fold : d.foldQdq,
  };
}

/**
 * The UI's options. The weight-error overlay has five bins: at least `good`, two between good and
 * damaged, one just under damaged, and the worst from 10 dB under it (defaults 45, 35, 25, 15).
 */
export function uiOptionsOf(s: Settings): UiOptions {
  const round = (v: number) => Math.round(v * 10) / 10;
  return {
    overlay: s.defaultOverlay,
    view: s.foldQdq ? 'logical' : 'nodes',
    bins: s.histogramBins,
    sqnrThresholds: [s.goodSqnrDb, round((s.goodSqnrDb + s.damagedSqnrDb) / 2), s.damagedSqnrDb, s.damagedSqnrDb - 10],
  };
}

/** The layers below the damaged threshold (shared with the HTML report). */
export { damagedLayers } from '../../../web/src/export/html_report';
