// A graph view's minimap: the whole drawing small, in a corner of the view, with the viewport as a
// rectangle; a click or a drag there moves the view. The overview (every node, one rectangle each)
// is drawn into an offscreen canvas once per layout, colours or theme, and each frame only copies
// it and draws the rectangle, so panning a 20,000-node graph costs the minimap one drawImage. It
// takes at most a fixed share of its view, so that small screens keep most of the graph in sight.
import { el } from './dom';
import type { GraphView } from './graph_view';

/** The largest minimap, and the share of its view it may take at most (small screens). */
const MAX_WIDTH = 150;
const MAX_HEIGHT = 120;
const SHARE = 0.28;

export class Minimap {
  private readonly canvas: HTMLCanvasElement;
  private readonly ctx: CanvasRenderingContext2D;
  private overview: HTMLCanvasElement | null = null;
  private content = -1;
  /** Drawing units to minimap pixels, per axis (see render). */
  private sx = 1;
  private sy = 1;
  /** Left margin (CSS pixels) that centres a narrow overview. */
  private ox = 3;
  private renders = 0;

  constructor(host: HTMLElement, private readonly view: GraphView) {
    this.canvas = el('canvas', { class: 'minimap', attrs: { 'aria-hidden': 'true', title: 'Overview: click or drag to move the view' } });
    host.append(this.canvas);
    this.ctx = this.canvas.getContext('2d')!;
    view.onFrame((content) => this.frame(content));
    this.bindPointer();
  }

  /**
   * The overview, drawn once (again when the view's size changes). Graphs are far taller than wide, and at their own aspect ratio the
   * overview would be a sliver: the width is stretched up to 3 times to use the box, and centred.
   */
  private render() {
    const shown = this.view.snapshot();
    this.canvas.hidden = !shown || shown.layout.nodes.length === 0;
    if (!shown || this.canvas.hidden) return;
    const { layout, colors, paints } = shown;
    const started = performance.now();
    const dpr = window.devicePixelRatio || 1;
    const boxW = Math.round(Math.min(MAX_WIDTH, SHARE * shown.width)), boxH = Math.round(Math.min(MAX_HEIGHT, SHARE * shown.height));
    const width = Math.round(boxW * dpr), height = Math.round(boxH * dpr);
    const out = this.overview ?? document.createElement('canvas');
    this.overview = out;
    out.width = width;
    out.height = height;
    const ctx = out.getContext('2d')!;
    ctx.fillStyle = colors.background;
    ctx.fillRect(0, 0, width, height);
    const pad = 3 * dpr;
    this.sy = (height - 2 * pad) / Math.max(layout.height, 1) / dpr;
    this.sx = Math.min((width - 2 * pad) / Math.max(layout.width, 1) / dpr, 3 * this.sy);
    this.ox = (boxW - layout.width * this.sx) / 2;
    const sx = this.sx * dpr, sy = this.sy * dpr, ox = this.ox * dpr;
    ctx.fillStyle = colors.groupFill;
    for (const g of layout.groups) if (g.box) ctx.fillRect(ox + g.box[0] * sx, pad + g.box[1] * sy, g.box[2] * sx, g.box[3] * sy);
    let fill = '';
    layout.nodes.forEach((n, i) => {
      const f = paints[i]?.fill ?? colors.edge;
      if (f !== fill) ctx.fillStyle = fill = f;
      // At least a pixel each way, so that every node shows.
      ctx.fillRect(ox + (n.x - n.w / 2) * sx, pad + (n.y - n.h / 2) * sy, Math.max(n.w * sx, 1), Math.max(n.h * sy, 1));
    });
    this.canvas.width = width;
    this.canvas.height = height;
    this.canvas.style.width = `${boxW}px`;
    this.canvas.style.height = `${boxH}px`;
    this.renders++;
    this.canvas.dataset.renders = String(this.renders);
    this.canvas.dataset.renderMs = (performance.now() - started).toFixed(2);
  }

  private frame(content: number) {
    if (content !== this.content) {
      this.content = content;
      this.render();
    }
    if (!this.overview || this.canvas.hidden) return;
    const dpr = window.devicePixelRatio || 1;
    const ctx = this.ctx;
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.drawImage(this.overview, 0, 0);
    const { camera: { scale, tx, ty }, width, height, colors } = this.view.snapshot()!;
    const [x0, y0] = this.toMap(-tx / scale, -ty / scale), [x1, y1] = this.toMap((width - tx) / scale, (height - ty) / scale);
    ctx.strokeStyle = colors.selection;
    ctx.lineWidth = 1.5 * dpr;
    ctx.strokeRect(x0 * dpr, y0 * dpr, Math.max((x1 - x0) * dpr, 2), Math.max((y1 - y0) * dpr, 2));
    this.canvas.dataset.viewport = [x0, y0, x1, y1].map((v) => v.toFixed(1)).join(' ');
  }

  /** Minimap position (CSS pixels) of a drawing point. */
  private toMap(x: number, y: number): [number, number] {
    return [this.ox + x * this.sx, 3 + y * this.sy];
  }

  /** Centres the view on the drawing point under a minimap position. */
  private moveTo(mx: number, my: number) {
    const x = (mx - this.ox) / this.sx, y = (my - 3) / this.sy;
    const cam = this.view.camera, { width, height } = this.view.size;
    this.view.setCamera({ scale: cam.scale, tx: width / 2 - x * cam.scale, ty: height / 2 - y * cam.scale }, true);
  }

  private bindPointer() {
    const c = this.canvas;
    let dragging: number | null = null;
    const at = (e: PointerEvent) => {
      const r = c.getBoundingClientRect();
      this.moveTo(e.clientX - r.left, e.clientY - r.top);
    };
    c.addEventListener('pointerdown', (e) => {
      if (e.button !== 0) return;
      e.stopPropagation();
      dragging = e.pointerId;
      c.setPointerCapture(e.pointerId);
      at(e);
    });
    c.addEventListener('pointermove', (e) => {
      if (dragging === e.pointerId) at(e);
    });
    const end = (e: PointerEvent) => {
      if (dragging === e.pointerId) dragging = null;
    };
    c.addEventListener('pointerup', end);
    c.addEventListener('pointercancel', end);
  }
}
