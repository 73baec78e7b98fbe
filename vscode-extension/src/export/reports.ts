// The reports the export commands write: the JSON report (what `visualquant compare --json` writes)
// and the CSV layer table (the web page's CSV). The HTML report is the web page's
// (web/src/export/html_report.ts).
import type { FullReport } from '../../../web/src/export/html_report';
import { layersToCsv } from '../../../web/src/ui/layer_table';

export function jsonReport({ report, weights, lint }: FullReport): string {
  return `${JSON.stringify({ ...report, weights, lint }, null, 2)}\n`;
}

export function csvReport({ weights }: FullReport): string {
  return layersToCsv(weights.layers);
}
