// The JSON export, one rule for the page and the VS Code extension: the compare report as
// `visualquant compare --json` writes it (alignment, weights with every layer's detail, lint), and,
// once an activation comparison has run on the pair, its report under `activations`, as
// `visualquant activations --engine web --json` writes it.
import type { ThreeWayReport } from '../protocol/messages';
import type { FullReport } from './html_report';

/** A three-way comparison's JSON export: its report (`visualquant compare FLOAT A B --json`'s content). */
export function threeWayJson(report: ThreeWayReport): string {
  return `${JSON.stringify(report, null, 2)}\n`;
}

export function reportJson({ report, weights, lint, activations }: FullReport): string {
  return `${JSON.stringify({ ...report, weights, lint, ...(activations ? { activations } : {}) }, null, 2)}\n`;
}
