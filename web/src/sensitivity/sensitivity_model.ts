// What the Sensitivity tab derives from a sensitivity report, without DOM: scores as words, the
// rows of the table in ranking order, each part's gain. Numbers say what they measure: an SQNR
// with no error at all is "exact", one without signal "–", an entry not measured says why.
import type { SensitivityEntry, SensitivityReport, SensitivityScore, SensitivityVariant } from 'visualquant-core';

export type Part = 'both' | 'weights' | 'activations';
export const PARTS: Part[] = ['both', 'weights', 'activations'];

export function scoreText(s: SensitivityScore | undefined): string {
  if (s === 'exact') return 'exact (no error)';
  if (s === null || s === undefined) return '–';
  return `${s.toFixed(2)} dB`;
}

/** A gain in dB as a chart reads it: "exact" drawn as the largest finite gain of the report plus a margin. */
export function gainOf(v: SensitivityVariant): number | 'exact' | null {
  if (v.status !== 'measured' || !v.recovery) return null;
  return v.recovery.sqnr_gain_db;
}

export function variantText(v: SensitivityVariant): string {
  if (v.status === 'measured') return scoreText(v.error?.sqnr_db);
  return v.status === 'failed' ? 'failed' : 'not run';
}

export function gainText(v: SensitivityVariant): string {
  const g = gainOf(v);
  if (g === 'exact') return 'all of it';
  if (g === null) return v.status === 'measured' ? '–' : variantText(v);
  return `${g >= 0 ? '+' : ''}${g.toFixed(2)} dB`;
}

/** The entries, best recovery first (the report's ranking), then those not ranked (failed, not run), in entry order. */
export function rankedEntries(report: SensitivityReport): SensitivityEntry[] {
  const byEntry = new Map(report.entries.map((e) => [e.entry, e]));
  const ranked = report.ranking.map((r) => byEntry.get(r)!).filter(Boolean);
  const seen = new Set(report.ranking);
  return [...ranked, ...report.entries.filter((e) => !seen.has(e.entry))];
}

export function entryLabel(e: SensitivityEntry): string {
  const names = e.float_nodes.length ? e.float_nodes : e.quantized_nodes;
  return names.length > 2 ? `${names[0]} … ${names[names.length - 1]} (${names.length} ops)` : names.join(' + ');
}
