// The page's Export buttons: the JSON report (asked of the core with every layer's detail), the CSV
// layer table, both graphs as PNG and SVG, and the self-contained HTML report. The images and the
// report's graphs show what is in view, the whole graphs, or the selection with its neighbours (the
// Export scope). Files are saved through download() (the browser, or the host page); what takes
// time says so while it runs (busy()).
import { sideTitle } from '../model/pair_case';
import { uiHost } from '../host';
import { SIDES, type Side } from '../model/comparison';
import type { CoreConnection } from '../protocol/connection';
import type { ActivationsReport, CompareReport, LintFinding, ThreeWayReport, WeightsReport } from '../protocol/messages';
import { download } from '../ui/dom';
import { LABEL_SCALE, type GraphView, type Region } from '../ui/graph_view';
import { damagedSqnrDb } from '../ui/overlays';
import { htmlReport } from './html_report';
import { reportJson, threeWayJson } from './report_json';
import { viewsPng } from './png';
import { EXPORT_GAP, EXPORT_HEAD, graphsSvg, pageChrome } from './svg';
import { exportRegions, pngScale, SCOPE_TITLE, type ExportScope } from './export_regions';

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
  /**
   * A three-way comparison's report (null for two models, or until made): the JSON export is it, as
   * `visualquant compare FLOAT A B --json` writes it, and the CSV export its Versions table.
   */
  threeWay: ThreeWayReport | null;
  versionsCsv(): string;
  /** What the images draw, and the nodes selected per side (layout indices) for the 'selection' scope. */
  scope: ExportScope;
  selected: Record<Side, number[]>;
}

/** Shows `text` (and how far, as `fraction`) while `work` runs, painted before it starts; `work` may update it. */
export type Busy = <T>(text: string, work: (update: (text: string, fraction?: number) => void) => Promise<T>) => Promise<T>;

export class PageExports {
  constructor(private readonly core: CoreConnection, private readonly state: () => ExportState | null, private readonly busy: Busy,
    private readonly refuse: (message: string) => void) {}

  /** The full compare report, as `visualquant compare --json` writes it: alignment, weights, lint (and the activations, once run). */
  async json(): Promise<void> {
    const s = this.state();
    if (!s?.weights || !s.lint) return;
    if (s.threeWay) {
      download(`${baseName(s)}-three-way.json`, threeWayJson(s.threeWay), 'application/json');
      return;
    }
    // The table keeps only the summary; the report has every layer's detail, analysed again here.
    const bins = uiHost()?.options?.bins;
    const params = bins ? { bins, detail: true } : { detail: true };
    const weights = await this.busy('Preparing the JSON report: every layer\'s detail', (update) =>
      this.core.request('weights', params, { onProgress: (p) => update(`Preparing the JSON report: ${p.detail}`, p.fraction) }).promise);
    download(`${baseName(s)}-compare.json`, reportJson({ report: s.report, weights, lint: s.lint, activations: s.activations }), 'application/json');
  }

  csv(): void {
    const s = this.state();
    if (s?.threeWay) download(`${baseName(s)}-versions.csv`, s.versionsCsv(), 'text/csv');
    else if (s) download(`${baseName(s)}-layers.csv`, s.tableCsv(), 'text/csv');
  }

  /** Both graphs side by side under their title lines, as a PNG (the canvases' drawing, at the screen's resolution). */
  async png(): Promise<void> {
    const s = this.ready();
    if (!s) return;
    const blob = await this.busy(`Drawing the PNG (${SCOPE_TITLE[s.scope]})`, async () => {
      const regions = this.regions(s);
      const dpr = window.devicePixelRatio || 1;
      const sizes = regions.map((r, k) => (r ? { width: r.x1 - r.x0, height: r.y1 - r.y0 } : s.views[SIDES[k]].size));
      // Whole graphs may be larger than a canvas can be: drawn smaller then, and the title says so.
      const scale = regions.some((r) => r) ? pngScale(sizes, dpr, EXPORT_GAP, EXPORT_HEAD) : 1;
      const note = scale < 1 ? `, drawn at ${(scale * 100).toPrecision(2)} % to fit one image${scale < LABEL_SCALE ? ': labels too small to draw, the SVG has them' : ''}` : '';
      return viewsPng(SIDES.map((side, k) => ({
        title: paneTitle(s, side) + note,
        canvas: regions[k] ? s.views[side].render(regions[k]!, scale, dpr) : s.views[side].canvas,
      })), pageChrome());
    });
    if (blob) download(`${baseName(s)}-${fileScope(s)}.png`, blob, 'image/png');
  }

  async svg(): Promise<void> {
    const s = this.ready();
    if (!s) return;
    const svg = await this.busy(`Writing the SVG (${SCOPE_TITLE[s.scope]})`, async () => viewsSvg(s, this.regions(s)));
    if (svg) download(`${baseName(s)}-${fileScope(s)}.svg`, svg, 'image/svg+xml');
  }

  /** The self-contained HTML report (no script, opens offline), with the graphs of the export scope. */
  async html(): Promise<void> {
    const s = this.ready();
    if (!s?.weights || !s.lint) return;
    const html = await this.busy(`Writing the HTML report (graphs: ${SCOPE_TITLE[s.scope]})`, async () =>
      htmlReport({ report: s.report, weights: s.weights!, lint: s.lint!, activations: s.activations }, { damagedSqnrDb: damagedSqnrDb() }, s.coreVersion,
        viewsSvg(s, this.regions(s)) ?? undefined));
    download(`${baseName(s)}-report.html`, html, 'text/html');
  }

  /** The state, unless the scope is the selection and nothing is selected (said, not exported empty). */
  private ready(): ExportState | null {
    const s = this.state();
    if (s?.scope === 'selection' && SIDES.every((side) => s.selected[side].length === 0)) {
      this.refuse('Nothing is selected: select a node to export it with its neighbours, or choose another export scope.');
      return null;
    }
    return s;
  }

  private regions(s: ExportState) {
    const layouts = SIDES.map((side) => s.views[side].drawing);
    if (layouts.some((l) => !l)) return SIDES.map(() => null);
    return exportRegions(s.scope, layouts.map((l) => l!), SIDES.map((side) => s.selected[side]));
  }
}

function baseName(s: ExportState): string {
  return s.report.float.file.replace(/\.onnx$/i, '') || 'comparison';
}

/** A pane's title line in the images: side, file, overlay, and what of the graph it holds. */
function paneTitle(s: ExportState, side: Side): string {
  return `${sideTitle(s.report, side)}: ${s.report[side].file} (${s.overlayTitle.toLowerCase()}${s.scope === 'view' ? '' : `; ${SCOPE_TITLE[s.scope]}`})`;
}

/** Both graphs as SVG: what is in view, or each pane's region (every model string as escaped text). */
function viewsSvg(s: ExportState, regions: (Region | null)[]): string | null {
  const panes = SIDES.map((side, k) => ({ title: paneTitle(s, side), view: regions[k] ? s.views[side].snapshotOf(regions[k]!) : s.views[side].snapshot() }));
  if (panes.some((p) => !p.view)) return null;
  return graphsSvg(panes.map((p) => ({ title: p.title, view: p.view! })), pageChrome());
}

/** The file name's part that says what an image holds. */
function fileScope(s: ExportState): string {
  return s.scope === 'view' ? 'view' : s.scope === 'whole' ? 'graphs' : 'selection';
}
