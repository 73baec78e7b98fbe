// The JSON export, one rule for the page and the VS Code extension: the compare report as
// `visualquant compare --json` writes it (alignment, weights with every layer's detail, lint), and,
// once an activation comparison has run on the pair, its report under `activations`, as
// `visualquant activations --engine web --json` writes it.
import type { FullReport } from './html_report';

export function reportJson({ report, weights, lint, activations }: FullReport): string {
  return `${JSON.stringify({ ...report, weights, lint, ...(activations ? { activations } : {}) }, null, 2)}\n`;
}
