// One side's graph on a canvas: the core's layout drawn with culling (a uniform grid finds what the
// viewport shows), pan (drag, wheel), zoom (ctrl+wheel, pinch, buttons), zoom to fit, hit testing,
// selection, and edge badges (Q/DQ folded onto edges) with a tooltip. Labels are fitted to the
// core's box sizes with measureText. Name-scope groups: an open group is a box whose header
// (its label line) closes it when clicked; a collapsed one is a node drawn as a stack, which opens
// when clicked. A visually hidden listbox mirrors the nodes for assistive technology and carries the
// selection state as attributes (and what is folded onto the edges into each node, the badges); a
// hidden list of buttons opens and closes the groups.
import type { LayoutEdge, LayoutReport } from '../protocol/messages';
import { el } from './dom';
import { Grid } from './grid';
import { NodeList } from './node_list';

export interface Camera {
  scale: number;
  tx: number;
  ty: number;
}

/** A rectangle of the drawing, in drawing units (layout coordinates). */
export interface Region {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

export interface NodePaint {
  fill: string;
  text: string;
}

export interface ViewSnapshot {
  layout: LayoutReport;
  paints: readonly NodePaint[];
  colors: Readonly<Theme>;
  camera: Camera;
  /** The view's size in CSS pixels. */
  width: number;
  height: number;
  /** Labels as drawn (cut to their boxes), per node and per group. */
  labels: readonly string[];
  groupLabels: readonly string[];
  /** Per edge: its badge's centre and half width, or null. */
  badges: ReadonlyArray<readonly [number, number, number] | null>;
  selected: ReadonlySet<number>;
  primary: number | null;
}

/** Below this scale labels are not drawn (too small to read); below BADGE_SCALE badges and arrows neither. */
export const LABEL_SCALE = 0.45;
export const BADGE_SCALE = 0.3;

export interface GraphViewEvents {
  select(index: number | null): void;
  camera(camera: Camera): void;
  badgeHover(edge: LayoutEdge | null, clientX: number, clientY: number): void;
  /** Open or close group `group` (an index into the layout's groups); without it, groups are not clickable. */
  toggleGroup?(group: number): void;
}

/** The font of node labels (label_sizes.ts measures with it). */
export const FONT = '12px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
/** Room left and right of a node's label inside its box. */
export const LABEL_PAD = 5;

/** The camera and viewport size (CSS pixels) that show `region` of a drawing at `scale`. */
function framing(region: Region, scale: number): { camera: Camera; width: number; height: number } {
  return { camera: { scale, tx: -region.x0 * scale, ty: -region.y0 * scale },
    width: Math.ceil((region.x1 - region.x0) * scale), height: Math.ceil((region.y1 - region.y0) * scale) };
}

/** The text drawn on a collapsed group's node. */
export function groupNodeText(label: string, members: number): string {
  return `▸ ${label} (${members})`;
}
const SMALL_FONT = '10px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
const MAX_SCALE = 4;
/** Height of an open group's header, its label line: clicking there closes the group. */
const GROUP_HEADER = 14;

export interface Theme {
  background: string; edge: string; edgeSelected: string; selection: string; counterpart: string;
  groupFill: string; groupStroke: string; groupText: string; badgeFill: string; badgeText: string;
}

/** The drawing colours of the page's theme, from its CSS variables as they apply to `element`. */
export function themeOf(element: Element): Theme {
  const css = getComputedStyle(element);
  const v = (name: string) => css.getPropertyValue(name).trim();
  return {
    background: v('--graph-bg'), edge: v('--edge'), edgeSelected: v('--edge-selected'), selection: v('--selection'),
    counterpart: v('--counterpart'), groupFill: v('--group-fill'), groupStroke: v('--group-stroke'), groupText: v('--group-text'),
    badgeFill: v('--badge-fill'), badgeText: v('--badge-text'),
  };
}

export class GraphView {
  readonly canvas: HTMLCanvasElement;
  private readonly nodeList: NodeList;
  private readonly ctx: CanvasRenderingContext2D;
  private layout: LayoutReport | null = null;
  private paints: NodePaint[] = [];
  private labels: string[] = [];
  private groupLabels: string[] = [];
  /** Per edge: x, y, half width of the badge pill. */
  private badgeAt: Array<[number, number, number] | null> = [];
  /** Per edge: the larger side of its bounding box. */
  private edgeSpan = new Float64Array(0);
  private nodeGrid = new Grid(0);
  private edgeGrid = new Grid(0);
  private selected = new Set<number>();
  private primary: number | null = null;
  private readonly fitted = new Map<string, string>();
  private theme!: Theme;
  private cam: Camera = { scale: 1, tx: 0, ty: 0 };
  private frame = 0;
  private visibleNodes: number[] = [];
  private visibleEdges: number[] = [];
  private cssWidth = 0;
  private cssHeight = 0;
  /** Bumped when what is drawn changes (layout, colours, theme, the view's size), not when the camera moves. */
  private content = 0;
  private readonly frameListeners: Array<(content: number) => void> = [];
  /** Frames drawn, and the duration of the last one (ms): shown to tests and the status line. */
  stats = { frames: 0, lastFrameMs: 0, drawnNodes: 0, drawnEdges: 0 };

  constructor(host: HTMLElement, readonly label: string, private readonly events: GraphViewEvents) {
    this.canvas = el('canvas', { class: 'graph-canvas', attrs: { role: 'img', tabindex: '0', 'aria-label': `${label} graph: arrow keys walk the selection, ? lists the keys` } });
    const list = el('ul', { class: 'sr-only node-list', attrs: { role: 'listbox', 'aria-label': `${label} graph nodes` } });
    const groupList = el('ul', { class: 'sr-only group-list', attrs: { 'aria-label': `${label} graph groups` } });
    host.append(this.canvas, list, groupList);
    this.nodeList = new NodeList(list, groupList, (index) => this.events.select(index), this.events.toggleGroup?.bind(this.events));
    this.ctx = this.canvas.getContext('2d', { alpha: false })!;
    this.refreshTheme();
    new ResizeObserver(() => this.resize()).observe(host);
    this.bindPointer();
  }

  get camera(): Camera {
    return { ...this.cam };
  }

  get size(): { width: number; height: number } {
    return { width: this.cssWidth, height: this.cssHeight };
  }

  get drawing(): LayoutReport | null {
    return this.layout;
  }

  /** Called after every frame with the content version (a minimap redraws its overview only when that changes). */
  onFrame(listener: (content: number) => void): void {
    this.frameListeners.push(listener);
  }

  /** What the view shows now, for what is drawn from it (the minimap, the SVG export); null before a layout. */
  snapshot(): ViewSnapshot | null {
    if (!this.layout) return null;
    return {
      layout: this.layout, paints: this.paints, colors: this.theme, camera: this.camera, width: this.cssWidth, height: this.cssHeight,
      labels: this.labels, groupLabels: this.groupLabels, badges: this.badgeAt, selected: this.selected, primary: this.primary,
    };
  }

  refreshTheme(): void {
    this.theme = themeOf(this.canvas);
    this.content++;
    this.invalidate();
  }

  setLayout(layout: LayoutReport | null, paints: NodePaint[]): void {
    this.layout = layout;
    this.selected.clear();
    this.primary = null;
    if (!layout) {
      this.nodeList.set(null, []);
      this.invalidate();
      return;
    }
    this.fitted.clear();
    this.nodeGrid = new Grid(layout.nodes.length);
    this.ctx.font = FONT;
    this.labels = layout.nodes.map((n, i) => {
      const b = [n.x - n.w / 2, n.y - n.h / 2, n.x + n.w / 2, n.y + n.h / 2] as const;
      this.nodeGrid.add(i, ...b);
      return this.fit(n.kind === 'group' ? groupNodeText(n.label, n.members) : n.label, n.w - 2 * LABEL_PAD);
    });
    this.edgeGrid = new Grid(layout.edges.length);
    this.ctx.font = SMALL_FONT;
    this.groupLabels = layout.groups.map((g) => (g.box ? this.fit(`▾ ${g.label}`, g.box[2] - 8) : ''));
    this.edgeSpan = new Float64Array(layout.edges.length);
    /** Per node: the badges on the edges into it, as "badge@x,y@from id" (the node list's data-badges). */
    const badgesInto: string[][] = [];
    // Thousands of edges carry the same few badge texts: each is measured once.
    const badgeWidths = new Map<string, number>();
    const badgeWidth = (text: string) => {
      let w = badgeWidths.get(text);
      if (w === undefined) badgeWidths.set(text, (w = this.ctx.measureText(text).width));
      return w;
    };
    this.badgeAt = layout.edges.map((e, i) => {
      const p = e.points;
      let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
      for (let k = 0; k + 1 < p.length; k += 2) {
        x0 = Math.min(x0, p[k]); x1 = Math.max(x1, p[k]); y0 = Math.min(y0, p[k + 1]); y1 = Math.max(y1, p[k + 1]);
      }
      this.edgeSpan[i] = Math.max(x1 - x0, y1 - y0);
      for (let k = 0; k + 3 < p.length; k += 2) {
        // Stubs are two separate pieces: (p0,p1) and (p2,p3); skip the gap between them.
        if (e.stub && k === 2) continue;
        this.edgeGrid.add(i, Math.min(p[k], p[k + 2]), Math.min(p[k + 1], p[k + 3]), Math.max(p[k], p[k + 2]), Math.max(p[k + 1], p[k + 3]));
      }
      if (!e.badge) return null;
      const [x, y] = badgePosition(e);
      if (!e.stub) (badgesInto[e.to] ??= []).push(`${e.badge}@${x},${y}@${layout.nodes[e.from].id}`);
      return [x, y, badgeWidth(e.badge) / 2 + 5];
    });
    this.nodeList.set(layout, badgesInto);
    this.setPaints(paints);
  }

  setPaints(paints: NodePaint[]): void {
    this.paints = paints;
    this.content++;
    this.invalidate();
  }

  /** Marks nodes selected (`primary`: the one clicked, drawn strongest). */
  setSelection(indices: Iterable<number>, primary: number | null): void {
    this.selected = new Set(indices);
    this.primary = primary;
    this.nodeList.select(this.selected);
    this.canvas.dataset.selected = JSON.stringify([...this.selected].map((i) => this.layout!.nodes[i].id));
    this.invalidate();
  }

  /** Settles when the accessible node list of the current layout is complete (it is built after the first frame). */
  get listReady(): Promise<void> {
    return this.nodeList.ready;
  }

  /** Node list attributes for overlays (data-status etc.). */
  setNodeData(name: string, values: string[]): void {
    this.nodeList.setData(name, values);
  }

  setCamera(camera: Camera, notify = false): void {
    const scale = clamp(camera.scale, this.minScale(), MAX_SCALE);
    this.cam = { scale, tx: camera.tx, ty: camera.ty };
    this.canvas.dataset.transform = `${this.cam.scale} ${this.cam.tx} ${this.cam.ty}`;
    this.invalidate();
    if (notify) this.events.camera(this.camera);
  }

  /** How far one may zoom out: until the whole drawing is a quarter of the view. */
  private minScale(): number {
    if (!this.layout || !this.cssWidth) return 0.02;
    return Math.min(0.02, 0.25 * Math.min(this.cssWidth / Math.max(this.layout.width, 1), this.cssHeight / Math.max(this.layout.height, 1)));
  }

  /** The scale at which the whole drawing fits. */
  fitScale(): number {
    this.resize();  // the pane may just have been shown: measure it now
    if (!this.layout || !this.cssWidth) return 1;
    const pad = 24;
    return clamp(Math.min((this.cssWidth - 2 * pad) / Math.max(this.layout.width, 1), (this.cssHeight - 2 * pad) / Math.max(this.layout.height, 1), 1.5),
      this.minScale(), MAX_SCALE);
  }

  /** Camera showing the whole drawing at `scale`, centred horizontally, from the top. */
  fitCamera(scale = this.fitScale()): Camera {
    if (!this.layout) return { scale: 1, tx: 0, ty: 0 };
    const tx = (this.cssWidth - this.layout.width * scale) / 2;
    const ty = Math.max((this.cssHeight - this.layout.height * scale) / 2, 24);
    return { scale, tx, ty };
  }

  /** The bounding box of some nodes, in drawing units. */
  boundsOf(indices: readonly number[]): Region | null {
    if (!this.layout || indices.length === 0) return null;
    let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
    for (const i of indices) {
      const n = this.layout.nodes[i];
      x0 = Math.min(x0, n.x - n.w / 2); x1 = Math.max(x1, n.x + n.w / 2);
      y0 = Math.min(y0, n.y - n.h / 2); y1 = Math.max(y1, n.y + n.h / 2);
    }
    return { x0, y0, x1, y1 };
  }

  /** True when some of the drawing is in the viewport (a relayout that shrank it may leave the camera on empty space). */
  showsDrawing(): boolean {
    if (!this.layout) return false;
    const { scale, tx, ty } = this.cam;
    return tx < this.cssWidth && this.layout.width * scale + tx > 0 && ty < this.cssHeight && this.layout.height * scale + ty > 0;
  }

  /** True when the box is inside the viewport. */
  isVisible(b: Region): boolean {
    const { scale, tx, ty } = this.cam;
    return b.x0 * scale + tx >= 0 && b.x1 * scale + tx <= this.cssWidth && b.y0 * scale + ty >= 0 && b.y1 * scale + ty <= this.cssHeight;
  }

  /** Screen position (CSS pixels in the canvas) of a drawing point. */
  toScreen(x: number, y: number): [number, number] {
    return [x * this.cam.scale + this.cam.tx, y * this.cam.scale + this.cam.ty];
  }

  zoomAt(factor: number, sx = this.cssWidth / 2, sy = this.cssHeight / 2): void {
    const scale = clamp(this.cam.scale * factor, this.minScale(), MAX_SCALE);
    const k = scale / this.cam.scale;
    this.setCamera({ scale, tx: sx - (sx - this.cam.tx) * k, ty: sy - (sy - this.cam.ty) * k }, true);
  }

  invalidate(): void {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.draw();
    });
  }

  private resize() {
    const r = this.canvas.parentElement!.getBoundingClientRect();
    const width = Math.max(Math.floor(r.width), 1), height = Math.max(Math.floor(r.height), 1);
    if (width === this.cssWidth && height === this.cssHeight) return;
    this.cssWidth = width;
    this.cssHeight = height;
    this.content++;
    const dpr = window.devicePixelRatio || 1;
    this.canvas.width = Math.round(this.cssWidth * dpr);
    this.canvas.height = Math.round(this.cssHeight * dpr);
    this.canvas.style.width = `${this.cssWidth}px`;
    this.canvas.style.height = `${this.cssHeight}px`;
    this.invalidate();
  }

  /** `text` cut with an ellipsis to `width` in the current font; remembered per layout, as a graph repeats its labels. */
  private fit(text: string, width: number): string {
    const key = `${this.ctx.font}\u0000${width}\u0000${text}`;
    let fitted = this.fitted.get(key);
    if (fitted === undefined) this.fitted.set(key, (fitted = this.cut(text, width)));
    return fitted;
  }

  private cut(text: string, width: number): string {
    if (this.ctx.measureText(text).width <= width) return text;
    let lo = 0, hi = text.length;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.ctx.measureText(`${text.slice(0, mid)}…`).width <= width) lo = mid;
      else hi = mid - 1;
    }
    return lo > 0 ? `${text.slice(0, lo)}…` : '';
  }

  private draw() {
    const started = performance.now();
    const { ctx, theme } = this;
    const dpr = window.devicePixelRatio || 1;
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.fillStyle = theme.background;
    ctx.fillRect(0, 0, this.canvas.width, this.canvas.height);
    const layout = this.layout;
    if (!layout) return;
    const { scale, tx, ty } = this.cam;
    try {
      const { nodes, edges } = this.drawGraph(ctx, layout, { scale, tx, ty }, dpr, this.cssWidth, this.cssHeight);
      this.stats = { frames: this.stats.frames + 1, lastFrameMs: performance.now() - started, drawnNodes: nodes, drawnEdges: edges };
      // For the status of the drawing (and the tests): frames drawn, the last frame's time, what it drew.
      const d = this.canvas.dataset;
      d.frames = String(this.stats.frames);
      d.frameMs = this.stats.lastFrameMs.toFixed(2);
      d.drawnNodes = String(nodes);
      d.drawnEdges = String(edges);
    } finally {
      for (const listener of this.frameListeners) listener(this.content);
    }
  }

  /**
   * A snapshot as if the view were `region` (drawing units) shown at `scale`: what the exports of
   * the whole graph or of a selection's neighbourhood draw, whatever the view shows now.
   */
  snapshotOf(region: Region, scale = 1): ViewSnapshot | null {
    const now = this.snapshot();
    return now && { ...now, ...framing(region, scale) };
  }

  /** `region` drawn as the view draws it, at `scale` (CSS pixels a drawing unit) and `dpr` device pixels a CSS pixel, on a new canvas. */
  render(region: Region, scale: number, dpr: number): HTMLCanvasElement {
    const { camera, width, height } = framing(region, scale);
    const out = document.createElement('canvas');
    out.width = Math.max(1, Math.round(width * dpr));
    out.height = Math.max(1, Math.round(height * dpr));
    const ctx = out.getContext('2d')!;
    ctx.fillStyle = this.theme.background;
    ctx.fillRect(0, 0, out.width, out.height);
    if (this.layout) this.drawGraph(ctx, this.layout, camera, dpr, width, height);
    return out;
  }

  /** Draws what of the layout a `width` × `height` viewport shows through `cam`; says how many nodes and edges it drew. */
  private drawGraph(ctx: CanvasRenderingContext2D, layout: LayoutReport, cam: Camera, dpr: number, width: number, height: number) {
    const { theme } = this;
    const { scale, tx, ty } = cam;
    ctx.setTransform(dpr * scale, 0, 0, dpr * scale, dpr * tx, dpr * ty);
    const px = 1 / scale;  // one CSS pixel in drawing units
    const vx0 = -tx / scale, vy0 = -ty / scale, vx1 = (width - tx) / scale, vy1 = (height - ty) / scale;
    const detail = scale >= LABEL_SCALE;

    // Open name-scope groups: faint boxes with their label.
    ctx.lineWidth = px;
    layout.groups.forEach((g, gi) => {
      if (!g.box) return;
      const [x, y, w, h] = g.box;
      if (x > vx1 || y > vy1 || x + w < vx0 || y + h < vy0 || Math.max(w, h) * scale < 4) return;
      ctx.fillStyle = theme.groupFill;
      ctx.fillRect(x, y, w, h);
      ctx.strokeStyle = theme.groupStroke;
      ctx.strokeRect(x, y, w, h);
      if (detail) {
        ctx.fillStyle = theme.groupText;
        ctx.font = SMALL_FONT;
        ctx.textAlign = 'left';
        ctx.textBaseline = 'top';
        ctx.fillText(this.groupLabels[gi], x + 4, y + 2);
      }
    });

    // Edges, one path; those touching the selection again on top. Far out, edges shorter than two
    // pixels are left out: the nodes they join already show the shape.
    const edges = this.edgeGrid.query(vx0, vy0, vx1, vy1, this.visibleEdges);
    if (scale < 0.15) {
      let kept = 0;
      for (const e of edges) {
        const edge = layout.edges[e];
        if (this.edgeSpan[e] * scale >= 2 || this.selected.has(edge.from) || this.selected.has(edge.to)) edges[kept++] = e;
      }
      edges.length = kept;
    }
    ctx.strokeStyle = theme.edge;
    ctx.lineWidth = Math.max(px, 1);
    ctx.beginPath();
    for (const e of edges) tracePath(ctx, layout.edges[e]);
    ctx.stroke();
    if (this.selected.size) {
      ctx.strokeStyle = theme.edgeSelected;
      ctx.lineWidth = Math.max(2 * px, 1.5);
      ctx.beginPath();
      for (const e of edges) {
        const edge = layout.edges[e];
        if (this.selected.has(edge.from) || this.selected.has(edge.to)) tracePath(ctx, edge);
      }
      ctx.stroke();
    }
    if (scale >= BADGE_SCALE) {
      ctx.fillStyle = theme.edge;
      ctx.beginPath();
      for (const e of edges) traceArrow(ctx, layout.edges[e]);
      ctx.fill();
    }

    // Nodes: plain rectangles when they are a few pixels tall, rounded and outlined otherwise.
    const nodes = this.nodeGrid.query(vx0, vy0, vx1, vy1, this.visibleNodes);
    const radius = 4;
    const coarse = scale < 0.15;
    let fill = '';
    for (const i of nodes) {
      const n = layout.nodes[i];
      const x = n.x - n.w / 2, y = n.y - n.h / 2;
      const f = this.paints[i]?.fill ?? theme.groupFill;
      if (f !== fill) ctx.fillStyle = fill = f;
      if (coarse && !this.selected.has(i)) {
        // At least a pixel, so that far out every node still shows.
        ctx.fillRect(x, y, Math.max(n.w, px), Math.max(n.h, px));
        continue;
      }
      if (n.kind === 'group') {
        // A collapsed group: a stack of cards, the one behind offset up and right.
        ctx.lineWidth = px;
        ctx.strokeStyle = theme.groupStroke;
        ctx.beginPath();
        ctx.roundRect(x + 4, y - 4, n.w, n.h, radius);
        ctx.stroke();
      }
      ctx.beginPath();
      if (n.kind === 'input' || n.kind === 'output') ctx.roundRect(x, y, n.w, n.h, n.h / 2);
      else ctx.roundRect(x, y, n.w, n.h, radius);
      ctx.fill();
      fill = '';
      if (this.selected.has(i)) {
        ctx.lineWidth = Math.max((i === this.primary ? 3 : 2.5) * px, 1.5);
        ctx.strokeStyle = i === this.primary ? theme.selection : theme.counterpart;
        ctx.stroke();
      } else {
        ctx.lineWidth = px;
        ctx.strokeStyle = theme.edge;
        ctx.stroke();
      }
    }
    if (detail) {
      ctx.font = FONT;
      ctx.textAlign = 'center';
      ctx.textBaseline = 'middle';
      for (const i of nodes) {
        const n = layout.nodes[i];
        if (!this.labels[i]) continue;
        ctx.fillStyle = this.paints[i]?.text ?? theme.groupText;
        ctx.fillText(this.labels[i], n.x, n.y + 0.5);
      }
    }

    // Badges of what is folded onto edges (Q/DQ, DQ, DynQ, rescale).
    if (scale >= BADGE_SCALE) {
      ctx.font = SMALL_FONT;
      ctx.textAlign = 'center';
      ctx.textBaseline = 'middle';
      for (const e of edges) {
        const b = this.badgeAt[e];
        if (!b) continue;
        const [x, y, hw] = b;
        ctx.fillStyle = theme.badgeFill;
        ctx.beginPath();
        ctx.roundRect(x - hw, y - 7, 2 * hw, 14, 7);
        ctx.fill();
        if (detail) {
          ctx.fillStyle = theme.badgeText;
          ctx.fillText(layout.edges[e].badge!, x, y + 0.5);
        }
      }
    }
    return { nodes: nodes.length, edges: edges.length };
  }

  /** The node under a canvas point (CSS pixels), or null. */
  nodeAt(sx: number, sy: number): number | null {
    if (!this.layout) return null;
    const x = (sx - this.cam.tx) / this.cam.scale, y = (sy - this.cam.ty) / this.cam.scale;
    for (const i of this.nodeGrid.query(x, y, x, y, [])) {
      const n = this.layout.nodes[i];
      if (Math.abs(x - n.x) <= n.w / 2 && Math.abs(y - n.y) <= n.h / 2) return i;
    }
    return null;
  }

  /** The open group whose header is under a canvas point (the innermost), or null. */
  groupHeaderAt(sx: number, sy: number): number | null {
    if (!this.layout || !this.events.toggleGroup || this.cam.scale < BADGE_SCALE) return null;
    const x = (sx - this.cam.tx) / this.cam.scale, y = (sy - this.cam.ty) / this.cam.scale;
    let best: number | null = null, area = Infinity;
    this.layout.groups.forEach((g, gi) => {
      const b = g.box;
      if (!b || x < b[0] || x > b[0] + b[2] || y < b[1] || y > b[1] + GROUP_HEADER || b[2] * b[3] >= area) return;
      best = gi;
      area = b[2] * b[3];
    });
    return best;
  }

  private badgeEdgeAt(sx: number, sy: number): LayoutEdge | null {
    if (!this.layout || this.cam.scale < BADGE_SCALE) return null;
    const x = (sx - this.cam.tx) / this.cam.scale, y = (sy - this.cam.ty) / this.cam.scale;
    for (const e of this.edgeGrid.query(x - 40, y - 10, x + 40, y + 10, [])) {
      const b = this.badgeAt[e];
      if (b && Math.abs(x - b[0]) <= b[2] && Math.abs(y - b[1]) <= 7) return this.layout.edges[e];
    }
    return null;
  }

  private bindPointer() {
    const c = this.canvas;
    let down: { x: number; y: number; cam: Camera; moved: boolean; id: number } | null = null;
    const local = (e: { clientX: number; clientY: number }) => {
      const r = c.getBoundingClientRect();
      return [e.clientX - r.left, e.clientY - r.top] as const;
    };
    c.addEventListener('pointerdown', (e) => {
      if (e.button !== 0) return;
      const [x, y] = local(e);
      down = { x, y, cam: this.camera, moved: false, id: e.pointerId };
      c.setPointerCapture(e.pointerId);
    });
    c.addEventListener('pointermove', (e) => {
      const [x, y] = local(e);
      if (down && down.id === e.pointerId) {
        if (!down.moved && Math.hypot(x - down.x, y - down.y) < 4) return;
        down.moved = true;
        c.classList.add('panning');
        this.setCamera({ scale: down.cam.scale, tx: down.cam.tx + x - down.x, ty: down.cam.ty + y - down.y }, true);
        return;
      }
      const edge = this.badgeEdgeAt(x, y);
      this.events.badgeHover(edge, e.clientX, e.clientY);
      c.classList.toggle('pointing', edge !== null || this.nodeAt(x, y) !== null || this.groupHeaderAt(x, y) !== null);
    });
    const finish = (e: PointerEvent) => {
      if (!down || down.id !== e.pointerId) return;
      const wasClick = !down.moved;
      down = null;
      c.classList.remove('panning');
      if (wasClick && e.type === 'pointerup') {
        const [x, y] = local(e);
        const node = this.nodeAt(x, y);
        const n = node === null ? null : this.layout!.nodes[node];
        const toggle = this.events.toggleGroup?.bind(this.events);
        if (n?.kind === 'group' && toggle) return toggle(n.group);
        const header = node === null ? this.groupHeaderAt(x, y) : null;
        if (header !== null && toggle) return toggle(header);
        this.events.select(node);
      }
    };
    c.addEventListener('pointerup', finish);
    c.addEventListener('pointercancel', finish);
    c.addEventListener('pointerleave', () => this.events.badgeHover(null, 0, 0));
    c.addEventListener('wheel', (e) => {
      e.preventDefault();
      const [x, y] = local(e);
      if (e.ctrlKey || e.metaKey) {
        this.zoomAt(Math.exp(-e.deltaY * (e.deltaMode === 1 ? 0.05 : 0.002)), x, y);
      } else {
        const k = e.deltaMode === 1 ? 16 : 1;
        const dx = e.shiftKey ? e.deltaY : e.deltaX;
        const dy = e.shiftKey ? 0 : e.deltaY;
        this.setCamera({ scale: this.cam.scale, tx: this.cam.tx - dx * k, ty: this.cam.ty - dy * k }, true);
      }
    }, { passive: false });
  }
}

function clamp(v: number, lo: number, hi: number) {
  return Math.min(Math.max(v, lo), hi);
}

function tracePath(ctx: CanvasRenderingContext2D, edge: LayoutEdge) {
  const p = edge.points;
  if (edge.stub && p.length === 8) {
    ctx.moveTo(p[0], p[1]); ctx.lineTo(p[2], p[3]);
    ctx.moveTo(p[4], p[5]); ctx.lineTo(p[6], p[7]);
    return;
  }
  ctx.moveTo(p[0], p[1]);
  for (let k = 2; k + 1 < p.length; k += 2) ctx.lineTo(p[k], p[k + 1]);
}

function traceArrow(ctx: CanvasRenderingContext2D, edge: LayoutEdge) {
  const p = edge.points, n = p.length;
  if (n < 4) return;
  const x = p[n - 2], y = p[n - 1];
  let dx = x - p[n - 4], dy = y - p[n - 3];
  const len = Math.hypot(dx, dy) || 1;
  dx /= len; dy /= len;
  const s = 5;
  ctx.moveTo(x, y);
  ctx.lineTo(x - s * dx - s * 0.6 * dy, y - s * dy + s * 0.6 * dx);
  ctx.lineTo(x - s * dx + s * 0.6 * dy, y - s * dy - s * 0.6 * dx);
  ctx.closePath();
}

/** Where an edge's badge sits: the middle of its longest segment. */
function badgePosition(edge: LayoutEdge): [number, number] {
  const p = edge.points;
  let best = 0, bestLen = -1;
  for (let k = 0; k + 3 < p.length; k += 2) {
    if (edge.stub && k === 2) continue;
    const len = Math.hypot(p[k + 2] - p[k], p[k + 3] - p[k + 1]);
    if (len > bestLen) { bestLen = len; best = k; }
  }
  return [(p[best] + p[best + 2]) / 2, (p[best + 1] + p[best + 3]) / 2];
}
