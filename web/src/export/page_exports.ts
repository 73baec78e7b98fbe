// The page's Export buttons: the JSON report (asked of the core with every layer's detail), the CSV
// layer table, both graphs as PNG and SVG, and the self-contained HTML report. Files are saved
// through download() (the browser, or the host page).
import { uiHost } from '../host';
import { SIDES, type Side } from '../model/comparison';
import type { CoreConnection } from '../protocol/connection';
import type { ActivationsReport, CompareReport, LintFinding, WeightsReport } from '../protocol/messages';
import { download } from '../ui/dom';
import type { GraphView } from '../ui/graph_view';
import { damagedSqnrDb } from '../ui/overlays';
import { htmlReport } from './html_report';
import { reportJson } from './report_json';
import { viewsPng } from './png';
import { graphsSvg, pageChrome } from './svg';

/** What the exports read of the page when a button is pressed. */
export interface ExportState {
  report: CompareReport;
  /** The table's weights report (summaries) and the lint, once analysed. */
  weights: WeightsReport | null;
  lint: LintFinding[] | null;
  /** The activation comparison of the pair, once one ran. */
  activations: ActivationsReport | null;
  coreVersion: string;
  /** The overlay shown, for the images' title lines. */
  overlayTitle: string;
  views: Record<Side, GraphView>;
  /** The layer table as shown (sorted and filtered), as CSV. */
  tableCsv(): string;
}

export class PageExports {
  constructor(private readonly core: CoreConnection, private readonly state: () => ExportState | null) {}

  /** The full compare report, as `visualquant compare --json` writes it: alignment, weights, lint (and the activations, once run). */
  async json(): Promise<void> {
    const s = this.state();
    if (!s?.weights || !s.lint) return;
    // The table keeps only the summary; the report has every layer's detail.
    const bins = uiHost()?.options?.bins;
    const weights = await this.core.request('weights', bins ? { bins, detail: true } : { detail: true }).promise;
    download(`${baseName(s)}-compare.json`, reportJson({ report: s.report, weights, lint: s.lint, activations: s.activations }), 'application/json');
  }

  csv(): void {
    const s = this.state();
    if (s) download(`${baseName(s)}-layers.csv`, s.tableCsv(), 'text/csv');
  }

  /** Both graphs as they are shown, side by side under their title lines, as a PNG. */
  async png(): Promise<void> {
    const s = this.state();
    if (!s) return;
    const blob = await viewsPng(SIDES.map((side) => ({ title: paneTitle(s, side), canvas: s.views[side].canvas })), pageChrome());
    if (blob) download(`${baseName(s)}-view.png`, blob, 'image/png');
  }

  svg(): void {
    const s = this.state();
    const svg = s && viewsSvg(s);
    if (s && svg) download(`${baseName(s)}-view.svg`, svg, 'image/svg+xml');
  }

  /** The self-contained HTML report (no script, opens offline), with the graphs as shown. */
  html(): void {
    const s = this.state();
    if (!s?.weights || !s.lint) return;
    const html = htmlReport({ report: s.report, weights: s.weights, lint: s.lint }, { damagedSqnrDb: damagedSqnrDb() }, s.coreVersion,
      viewsSvg(s) ?? undefined);
    download(`${baseName(s)}-report.html`, html, 'text/html');
  }
}

function baseName(s: ExportState): string {
  return s.report.float.file.replace(/\.onnx$/i, '') || 'comparison';
}

/** A pane's title line in the images: side, file and overlay. */
function paneTitle(s: ExportState, side: Side): string {
  return `${side === 'float' ? 'Float' : 'Quantized'}: ${s.report[side].file} (${s.overlayTitle.toLowerCase()})`;
}

/** Both graphs as they are shown, as SVG (what is in view, every model string as escaped text). */
function viewsSvg(s: ExportState): string | null {
  const panes = SIDES.map((side) => ({ title: paneTitle(s, side), view: s.views[side].snapshot() }));
  if (panes.some((p) => !p.view)) return null;
  return graphsSvg(panes.map((p) => ({ title: p.title, view: p.view! })), pageChrome());
}
