// The overlays: how each drawn node is coloured, and the legend that explains it. Colours are
// picked per theme; labels get black or white text by the fill's luminance.
import { MATCH_STATUSES, type Comparison, type NodeInfo } from '../model/comparison';
import type { ActivationPoint } from '../protocol/messages';
import type { NodePaint } from './graph_view';

export type OverlayName = 'status' | 'heat' | 'activations' | 'activations-local' | 'precision' | 'lint';
export type ThemeName = 'light' | 'dark';

export interface LegendItem {
  key: string;
  label: string;
  color: string;
}

export interface Overlay {
  name: OverlayName;
  title: string;
  /** The legend key a node falls under (also written to the node list as data-overlay). */
  keyOf(info: NodeInfo, comparison: Comparison): string;
  legend(theme: ThemeName): LegendItem[];
}

const NEUTRAL: Record<ThemeName, string> = { light: '#e4e7eb', dark: '#3a4049' };
const pick = (light: string, dark: string) => ({ light, dark });

const STATUS_COLORS: Record<string, { light: string; dark: string }> = {
  identical: pick('#cfe8d5', '#2f5d3a'),
  renamed: pick('#d3e3f6', '#2c4a6e'),
  // Matched by structure only (two models that are not one network): neither green nor blue.
  structural: pick('#e8e0c8', '#5a5238'),
  fused: pick('#e3d5f3', '#553a78'),
  lowered: pick('#f6e3c6', '#6e5428'),
  inserted: pick('#f9d2c4', '#7a3a26'),
  removed: pick('#f4c7d0', '#74303f'),
  unmatched: pick('#f2b8b8', '#8a2e2e'),
};

const HEAT_BINS: Array<{ key: string; label: string; min: number; color: { light: string; dark: string } }> = [
  { key: 'sqnr-45', label: '≥ 45 dB', min: 45, color: pick('#b9e0c0', '#2d6a3a') },
  { key: 'sqnr-35', label: '35–45 dB', min: 35, color: pick('#dcebb0', '#55692a') },
  { key: 'sqnr-25', label: '25–35 dB', min: 25, color: pick('#f7e3a1', '#7a6420') },
  { key: 'sqnr-15', label: '15–25 dB', min: 15, color: pick('#f6c08d', '#8a4f1c') },
  { key: 'sqnr-0', label: '< 15 dB', min: -Infinity, color: pick('#ef8f8f', '#9c2a2a') },
];

/** Moves the weight-error bins' lower bounds (dB, one per bin above the worst; a host's settings). */
export function setSqnrThresholds(bounds: number[]): void {
  const b = [...bounds].sort((x, y) => y - x);
  if (b.length !== HEAT_BINS.length - 1 || !b.every(Number.isFinite)) return;
  HEAT_BINS.forEach((bin, k) => {
    bin.min = k < b.length ? b[k] : -Infinity;
    bin.label = k === 0 ? `≥ ${b[0]} dB` : k < b.length ? `${b[k]}–${b[k - 1]} dB` : `< ${b[k - 1]} dB`;
  });
}

/**
 * The SQNR (dB) under which a layer counts as damaged: the lower bound of the middle weight-error
 * bin (25 dB, unless a host's settings moved the bins: there it is the damaged threshold).
 */
export function damagedSqnrDb(): number {
  return HEAT_BINS[2].min;
}

/**
 * Activation error bins (dB): lower than the weights' because an activation carries the error of
 * every layer before it (a whole int8 network's output is typically 15-35 dB).
 */
const ACTIVATION_BINS: Array<{ key: string; label: string; min: number; color: { light: string; dark: string } }> = [
  { key: 'act-40', label: '≥ 40 dB', min: 40, color: pick('#b9e0c0', '#2d6a3a') },
  { key: 'act-30', label: '30–40 dB', min: 30, color: pick('#dcebb0', '#55692a') },
  { key: 'act-20', label: '20–30 dB', min: 20, color: pick('#f7e3a1', '#7a6420') },
  { key: 'act-10', label: '10–20 dB', min: 10, color: pick('#f6c08d', '#8a4f1c') },
  { key: 'act-0', label: '< 10 dB', min: -Infinity, color: pick('#ef8f8f', '#9c2a2a') },
];

/** The overlay of one activation figure: `figure` reads it from a node's compared point (null: no error). */
function activationOverlay(name: OverlayName, title: string, figure: (p: ActivationPoint) => number | null | undefined): Overlay {
  return {
    name,
    title,
    keyOf: (info, c) => {
      if (!c.activations) return 'not-run';
      const p = c.activationPoint(info);
      const v = p ? figure(p) : undefined;
      if (v === undefined) return 'none';
      if (v === null) return 'act-40';  // equal tensors: no error at all
      return ACTIVATION_BINS.find((b) => v >= b.min)!.key;
    },
    legend: (t) => [...ACTIVATION_BINS.map((b) => ({ key: b.key, label: b.label, color: b.color[t] })),
      { key: 'none', label: 'not compared', color: NEUTRAL[t] }],
  };
}

const PRECISION_COLORS: Record<string, { light: string; dark: string }> = {
  float32: pick('#dfe6ee', '#3d4756'),
  float16: pick('#cfe0f5', '#2f4d74'),
  bfloat16: pick('#c6e5ea', '#285b63'),
  int16: pick('#d8d0f2', '#4a3d7a'), uint16: pick('#d8d0f2', '#4a3d7a'),
  int8: pick('#f3d6a6', '#75531d'), uint8: pick('#f6e3bd', '#6b5a2c'),
  int4: pick('#f2b3a0', '#82381f'), uint4: pick('#f2b3a0', '#82381f'),
  int32: pick('#e6e0c6', '#5a5437'),
};

const LINT_COLORS: Record<string, { light: string; dark: string }> = {
  error: pick('#ef8f8f', '#9c2a2a'),
  warning: pick('#f6d08d', '#80601c'),
  info: pick('#cfe0f5', '#2f4d74'),
};

export const OVERLAYS: Record<OverlayName, Overlay> = {
  status: {
    name: 'status',
    title: 'Match status',
    keyOf: (info) => info.status,
    legend: (t) => MATCH_STATUSES.map((s) => ({ key: s, label: s, color: STATUS_COLORS[s][t] })),
  },
  heat: {
    name: 'heat',
    title: 'Weight error (SQNR)',
    keyOf: (info, c) => {
      const sqnr = c.weightLayer(info)?.error.sqnr_db;
      if (sqnr === undefined) return 'none';
      if (sqnr === null) return 'sqnr-45';  // no error at all
      return HEAT_BINS.find((b) => sqnr >= b.min)!.key;
    },
    legend: (t) => [...HEAT_BINS.map((b) => ({ key: b.key, label: b.label, color: b.color[t] })),
      { key: 'none', label: 'no quantized weight', color: NEUTRAL[t] }],
  },
  activations: activationOverlay('activations', 'Activation error (SQNR, accumulated)', (p) => p.accumulated.sqnr_db),
  // Where the error is born: each op fed the float model's values at its inputs (the local run).
  'activations-local': activationOverlay('activations-local', 'Activation error made here (local SQNR)', (p) => (p.local ? p.local.sqnr_db : undefined)),
  precision: {
    name: 'precision',
    title: 'Precision',
    keyOf: (info) => (PRECISION_COLORS[info.precision] ? info.precision : info.precision.startsWith('float8') ? 'float8' : 'other'),
    legend: (t) => [
      ...Object.entries(PRECISION_COLORS).filter(([k]) => !k.startsWith('uint') || k === 'uint8')
        .map(([k, c]) => ({ key: k, label: k === 'int16' || k === 'int4' ? `${k} / u${k}` : k, color: c[t] })),
      { key: 'float8', label: 'float8 formats', color: pick('#c9ecd9', '#2b6448')[t] },
      { key: 'other', label: 'no weight / other', color: NEUTRAL[t] },
    ],
  },
  lint: {
    name: 'lint',
    title: 'Lint findings',
    keyOf: (info, c) => {
      const f = c.lintFindings(info);
      return f.some((x) => x.severity === 'error') ? 'error' : f.some((x) => x.severity === 'warning') ? 'warning' : f.length ? 'info' : 'none';
    },
    legend: (t) => [...Object.entries(LINT_COLORS).map(([k, c]) => ({ key: k, label: k, color: c[t] })),
      { key: 'none', label: 'no finding', color: NEUTRAL[t] }],
  },
};

/** The colour of each legend key, with the neutral colour for keys that the legend lacks. */
export function paintsFor(overlay: Overlay, theme: ThemeName, infos: NodeInfo[], comparison: Comparison): { paints: NodePaint[]; keys: string[] } {
  const colors = new Map(overlay.legend(theme).map((i) => [i.key, i.color]));
  const keys = infos.map((info) => overlay.keyOf(info, comparison));
  const paints = keys.map((k) => {
    const fill = colors.get(k) ?? NEUTRAL[theme];
    return { fill, text: textOn(fill) };
  });
  return { paints, keys };
}

/** Black or white text, whichever reads better on the colour. */
export function textOn(hex: string): string {
  const m = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(hex);
  if (!m) return '#111';
  const lin = (c: string) => {
    const v = parseInt(c, 16) / 255;
    return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
  };
  const l = 0.2126 * lin(m[1]) + 0.7152 * lin(m[2]) + 0.0722 * lin(m[3]);
  return l > 0.22 ? '#14171a' : '#f4f6f8';
}
