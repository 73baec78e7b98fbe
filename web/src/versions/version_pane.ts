// The third graph of a three-way comparison: version B, laid out against the float model (the
// pair 'B' of the core: its own alignment, its own rows). The page's two panes stay the float model
// and version A; this one follows them through the float model:
// - a selection in either pane selects, here, B's nodes aligned with the float nodes selected;
// - a click here selects B's node with its aligned float nodes, which the page then selects (and
//   with them A's counterparts);
// - linked views scroll together: a float node's row in the page's layout is mapped to its row in
//   this pair's layout (piecewise linear between the float nodes both layouts draw), so B shows
//   what the float pane shows though its rows are not the float pane's.
import { Comparison, type NodeGroups } from '../model/comparison';
import type { CompareReport, LayoutPairReport, LintFinding, WeightsReport } from '../protocol/messages';
import { GraphView, type Camera } from '../ui/graph_view';
import { Minimap } from '../ui/minimap';
import { paintsFor, type Overlay, type ThemeName } from '../ui/overlays';
import { ViewCameras } from '../ui/view_cameras';

export interface VersionPaneEvents {
  /** B's node `index` was clicked: the float model's node ids aligned with it (none for B's own nodes). */
  selected(floatIds: string[]): void;
  /** The user moved this view: where the float pane should look (its drawing's y at the view's centre). */
  moved(floatCentreY: number): void;
  toggleGroup(group: number): void;
}

export class VersionPane {
  readonly view: GraphView;
  private readonly cameras: ViewCameras;
  private comparison: Comparison | null = null;
  /**
   * Float node rows, y in the page's float layout and in this pair's: sorted by the page's y (to map
   * the float pane's scroll here) and by this pair's (to map this view's scroll back).
   */
  private toHere: RowMap = { from: [], to: [] };
  private toPage: RowMap = { from: [], to: [] };
  private weights: WeightsReport | null = null;
  private lint: LintFinding[] | null = null;
  /** Set while this view follows another: its own camera events are not passed back. */
  private following = false;

  constructor(host: HTMLElement, private readonly events: VersionPaneEvents) {
    this.view = new GraphView(host, 'Version B', {
      select: (index) => this.clicked(index),
      camera: (camera) => {
        if (!this.following) this.events.moved(this.pageY(camera));
      },
      badgeHover: () => undefined,
      toggleGroup: (group) => this.events.toggleGroup(group),
    });
    new Minimap(host, this.view);
    this.cameras = new ViewCameras([this.view]);
  }

  get pair(): Comparison | null {
    return this.comparison;
  }

  /** Draws B from the pair's report and layout; `pageFloat` is the page's float layout (the scroll mapping's other end). */
  show(report: CompareReport, layout: LayoutPairReport, groups: NodeGroups, pageFloat: LayoutPairReport['float'], fresh: boolean): Comparison {
    const c = (this.comparison = new Comparison(report, layout, groups));
    this.analyse(c);
    this.view.setLayout(layout.quant, []);
    const here = new Map<string, number>();
    for (const n of layout.float.nodes) if (n.kind !== 'group') here.set(n.id, n.y);
    const pairs: Array<[number, number]> = [];
    for (const n of pageFloat.nodes) if (n.kind !== 'group' && here.has(n.id)) pairs.push([n.y, here.get(n.id)!]);
    this.toHere = rowMap(pairs, 0);
    this.toPage = rowMap(pairs, 1);
    if (fresh) this.cameras.first();
    return c;
  }

  /** B's weight analysis and lint (from the three-way report): the heat and lint overlays. */
  setAnalysis(weights: WeightsReport | null, lint: LintFinding[] | null): void {
    this.weights = weights;
    this.lint = lint;
    if (this.comparison) this.analyse(this.comparison);
  }

  private analyse(c: Comparison) {
    if (this.weights) c.setWeights(this.weights);
    if (this.lint) c.setLint(this.lint);
  }

  repaint(overlay: Overlay, theme: ThemeName): void {
    const c = this.comparison;
    if (!c) return;
    const { paints, keys } = paintsFor(overlay, theme, c.nodes.quant, c);
    this.view.setPaints(paints);
    this.view.setNodeData('overlay', keys);
    this.view.setNodeData('status', c.nodes.quant.map((n) => n.status));
  }

  refreshTheme(): void {
    this.view.refreshTheme();
  }

  /** Selects B's nodes aligned with these float nodes (by model node id), brought into view. */
  follow(floatIds: string[], reveal: boolean): string[] {
    const c = this.comparison;
    if (!c) return [];
    const picked = new Set<number>();
    for (const id of floatIds) for (const f of c.indicesOf('float', id)) for (const q of c.selectionFor('float', f).quant) picked.add(q);
    const indices = [...picked];
    this.select(indices, indices[0] ?? null, reveal);
    return indices.map((i) => c.nodes.quant[i].node.id);
  }

  /** B's model node ids selected (by the page following the float model, or a click here). */
  selectedIds(): string[] {
    const c = this.comparison;
    return c ? this.selected.map((i) => c.nodes.quant[i].node.id) : [];
  }

  /** The selected nodes' labels, "Conv + Relu" ('' when none). */
  describeSelection(): string {
    const c = this.comparison;
    return c ? this.selected.map((i) => c.nodes.quant[i].node.label).join(' + ') : '';
  }

  private selected: number[] = [];

  private select(indices: number[], primary: number | null, reveal: boolean) {
    this.selected = indices;
    this.view.setSelection(indices, primary);
    if (reveal && indices.length) {
      this.following = true;
      this.cameras.reveal([indices], [primary]);
      this.following = false;
    }
  }

  private clicked(index: number | null) {
    const c = this.comparison;
    if (!c || index === null) {
      this.events.selected([]);
      return;
    }
    const s = c.selectionFor('quant', index);
    this.select(s.quant, index, false);
    this.events.selected(s.float.map((i) => c.nodes.float[i].node.id));
  }

  /** Scrolls to the row the float pane shows (its camera, in the page's float layout): the same scale. */
  followCamera(floatCamera: Camera, floatViewHeight: number): void {
    if (!this.comparison) return;
    const centre = (floatViewHeight / 2 - floatCamera.ty) / floatCamera.scale;
    const y = interpolate(this.toHere, centre);
    const { width, height } = this.view.size, cam = this.view.camera;
    const cx = (width / 2 - cam.tx) / cam.scale;
    this.following = true;
    this.view.setCamera({ scale: floatCamera.scale, tx: width / 2 - cx * floatCamera.scale, ty: height / 2 - y * floatCamera.scale });
    this.following = false;
  }

  /** The page's float-layout y of what this view shows at its centre. */
  private pageY(camera: Camera): number {
    const centre = (this.view.size.height / 2 - camera.ty) / camera.scale;
    return interpolate(this.toPage, centre);
  }

  clear(): void {
    this.comparison = null;
    this.selected = [];
    this.weights = null;
    this.lint = null;
    this.view.setLayout(null, []);
  }
}

/** y in one layout to y in another, by the float nodes both draw: `from` ascending. */
interface RowMap {
  from: number[];
  to: number[];
}

/** The map from coordinate `by` (0: the page's y, 1: this pair's) of the float nodes' (page, here) rows to the other. */
function rowMap(pairs: Array<[number, number]>, by: 0 | 1): RowMap {
  const sorted = [...pairs].sort((a, b) => a[by] - b[by] || a[1 - by] - b[1 - by]);
  return { from: sorted.map((p) => p[by]), to: sorted.map((p) => p[1 - by]) };
}

/** `x` mapped: linearly between the nearest rows, straight on past the ends; unchanged without rows. */
function interpolate({ from, to }: RowMap, x: number): number {
  if (from.length === 0) return x;
  let lo = 0, hi = from.length - 1;
  if (x <= from[0]) return to[0] + (x - from[0]);
  if (x >= from[hi]) return to[hi] + (x - from[hi]);
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (from[mid] <= x) lo = mid;
    else hi = mid;
  }
  const span = from[hi] - from[lo];
  return span === 0 ? to[lo] : to[lo] + ((x - from[lo]) / span) * (to[hi] - to[lo]);
}
