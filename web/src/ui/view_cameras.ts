// Where the graph views look, and at what size: the first view of a model, Fit, the zoom buttons,
// bringing a selection into view, and keeping linked views on the same rows. One place for these
// rules because they share one promise: a view the tool moves on its own is at reading size. Only
// the user zooms out further than that (the − button, the wheel, the minimap shows the rest).
// The page has two views (float and quantized); the VS Code single-model viewer has one.
import type { Camera, GraphView, Region } from './graph_view';

/** Node labels are 12 px at scale 1: at 0.75 they are 9 px, the smallest size that reads well. */
export const READING_SCALE = 0.75;

export class ViewCameras {
  private syncing = false;
  /** The cameras the last Fit set: a second Fit from there shows the whole drawing. */
  private fitted: string | null = null;

  /** `linked()` says whether the views share zoom and rows (the page's Link views box). */
  constructor(private readonly views: readonly GraphView[], private readonly linked: () => boolean = () => false) {}

  /** The first view of a drawing: all of it when that is readable, else reading size from its start (its inputs). */
  first(): void {
    this.fitted = null;
    const whole = this.wholeScale();
    if (whole >= READING_SCALE) return this.apply(this.views.map((v) => v.fitCamera(whole)));
    // As large as lets the widest drawing fit across its view, between reading size and 1.
    const widest = Math.max(...this.views.map((v) => (v.drawing?.width ?? 1) / Math.max(v.size.width - 32, 1)));
    const scale = Math.max(READING_SCALE, Math.min(1, 1 / widest));
    this.apply(this.views.map((v) => ({ ...v.fitCamera(scale), ty: 16 })));
  }

  /**
   * Fit: the whole drawing when it is readable so; else as much as reading size shows, around what
   * the views show now. Pressed again from there, the whole drawing at whatever size it takes.
   */
  fit(): void {
    const whole = this.wholeScale();
    if (whole >= READING_SCALE || this.fitted === this.key()) {
      this.apply(this.views.map((v) => v.fitCamera(whole)));
      this.fitted = null;
      return;
    }
    this.apply(this.views.map((v) => this.readableAround(v)));
    this.fitted = this.key();
  }

  /** Zooms every view by `factor` about its centre; linked views move as one. */
  zoom(factor: number): void {
    // Linked, the first view's zoom is passed on to the others: zooming each would apply the
    // factor twice (each view's change is synced to the others).
    if (this.linked()) {
      this.views[0].zoomAt(factor);
      this.sync(this.views[0], this.views[0].camera);
    } else {
      for (const v of this.views) v.zoomAt(factor);
    }
  }

  /** A view moved by the user: linked views take the same zoom and rows, each keeping its own horizontal centre. */
  sync(from: GraphView, camera: Camera): void {
    if (this.syncing || !this.linked()) return;
    this.syncing = true;
    for (const to of this.views) {
      if (to === from) continue;
      const old = to.camera;
      const centre = (to.size.width / 2 - old.tx) / old.scale;
      to.setCamera({ scale: camera.scale, ty: camera.ty, tx: to.size.width / 2 - centre * camera.scale + (camera.tx - from.camera.tx) });
    }
    this.syncing = false;
  }

  /**
   * Brings a selection into view: per view, the nodes selected there (`selected`, indices into its
   * layout) and the one to centre on when they do not all fit (`focus`). The size never drops below
   * reading size, or below the user's own zoom when that is smaller already.
   */
  reveal(selected: readonly (readonly number[])[], focus: readonly (number | null)[]): void {
    const boxes = this.views.map((v, k) => v.boundsOf(selected[k]));
    if (boxes.every((b, k) => !b || this.views[k].isVisible(b))) return;
    // The largest scale at which a box fits its view, 24 px clear on each side.
    const boxScale = (v: GraphView, b: Region) => Math.min((v.size.width - 48) / Math.max(b.x1 - b.x0, 1), (v.size.height - 48) / Math.max(b.y1 - b.y0, 1));
    const current = Math.min(...this.views.map((v) => v.camera.scale));
    let scale = current;
    this.views.forEach((v, k) => {
      const b = boxes[k];
      if (b) scale = Math.min(scale, boxScale(v, b));
    });
    scale = Math.max(scale, Math.min(current, READING_SCALE));
    // A selection too large for that size: centre on its focus node instead.
    const centred = this.views.map((v, k) => {
      const b = boxes[k];
      if (!b) return null;
      const f = focus[k];
      return scale <= boxScale(v, b) || f === null ? b : v.boundsOf([f]);
    });
    const linked = this.linked();
    const ys = centred.filter((b): b is Region => b !== null).map((b) => (b.y0 + b.y1) / 2);
    const cy = ys.reduce((a, b) => a + b, 0) / Math.max(ys.length, 1);
    this.views.forEach((v, k) => {
      const b = centred[k];
      if (!b && !linked) return;
      const { width, height } = v.size, cam = v.camera;
      const y = linked ? cy : (b!.y0 + b!.y1) / 2;
      v.setCamera({
        scale: linked || b ? scale : cam.scale,
        tx: b ? width / 2 - ((b.x0 + b.x1) / 2) * scale : cam.tx,
        ty: height / 2 - y * scale,
      });
    });
    this.fitted = null;
  }

  /** The largest scale at which every view shows its whole drawing (linked views share one). */
  private wholeScale(): number {
    return Math.min(...this.views.map((v) => v.fitScale()));
  }

  /** Reading size, centred where the view looks now, and centred across when the drawing is narrow enough. */
  private readableAround(v: GraphView): Camera {
    const d = v.drawing, { width, height } = v.size, cam = v.camera;
    if (!d) return cam;
    const s = READING_SCALE;
    const centre = (at: number, size: number, extent: number) => Math.min(Math.max(at, size / (2 * s)), Math.max(extent - size / (2 * s), size / (2 * s)));
    const cx = d.width * s <= width ? d.width / 2 : centre((width / 2 - cam.tx) / cam.scale, width, d.width);
    const cy = centre((height / 2 - cam.ty) / cam.scale, height, d.height);
    return { scale: s, tx: Math.round(width / 2 - cx * s), ty: Math.round(height / 2 - cy * s) };
  }

  private apply(cameras: Camera[]): void {
    this.views.forEach((v, k) => v.setCamera(cameras[k]));
  }

  private key(): string {
    return JSON.stringify(this.views.map((v) => v.camera));
  }
}
