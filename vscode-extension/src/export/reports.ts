// The reports the export commands write: the JSON report (what `visualquant compare --json` writes,
// with the activation comparison once one ran: web/src/export/report_json.ts)
// and the CSV layer table (the web page's CSV). The HTML report is the web page's
// (web/src/export/html_report.ts).
import type { FullReport } from '../../../web/src/export/html_report';
import { layersToCsv } from '../../../web/src/ui/layer_table';

export { reportJson as jsonReport } from '../../../web/src/export/report_json';

export function csvReport({ weights }: FullReport): string {
  return layersToCsv(weights.layers, weights);
}

export { threeWayCsv } from '../../../web/src/versions/three_way_table';
export { threeWayJson } from '../../../web/src/export/report_json';
