// The graph view's spatial index: which nodes or edges touch a region of the drawing.

/** Side of a grid cell, in drawing units. */
const CELL = 256;

/**
 * A uniform grid over the drawing: each cell lists the items whose boxes touch it. A query that
 * would visit more cells than there are items (far zoomed out) scans the items' boxes instead.
 */
export class Grid {
  private readonly cells = new Map<number, number[]>();
  private readonly boxes: Float64Array;
  private stamp: Uint32Array;
  private round = 0;
  private bounds = { cx0: Infinity, cy0: Infinity, cx1: -Infinity, cy1: -Infinity };
  constructor(private readonly count: number) {
    this.stamp = new Uint32Array(count);
    this.boxes = new Float64Array(4 * count).fill(NaN);
  }
  private key(cx: number, cy: number) {
    return cx * 65536 + cy;
  }
  add(item: number, x0: number, y0: number, x1: number, y1: number) {
    const b = this.boxes;
    if (Number.isNaN(b[4 * item])) b.set([x0, y0, x1, y1], 4 * item);
    else b.set([Math.min(b[4 * item], x0), Math.min(b[4 * item + 1], y0), Math.max(b[4 * item + 2], x1), Math.max(b[4 * item + 3], y1)], 4 * item);
    const cx0 = Math.floor(x0 / CELL), cy0 = Math.floor(y0 / CELL), cx1 = Math.floor(x1 / CELL), cy1 = Math.floor(y1 / CELL);
    const bo = this.bounds;
    bo.cx0 = Math.min(bo.cx0, cx0); bo.cy0 = Math.min(bo.cy0, cy0); bo.cx1 = Math.max(bo.cx1, cx1); bo.cy1 = Math.max(bo.cy1, cy1);
    for (let cx = cx0; cx <= cx1; cx++) {
      for (let cy = cy0; cy <= cy1; cy++) {
        const k = this.key(cx, cy);
        const list = this.cells.get(k);
        if (list) list.push(item);
        else this.cells.set(k, [item]);
      }
    }
  }
  query(x0: number, y0: number, x1: number, y1: number, out: number[]): number[] {
    out.length = 0;
    const bo = this.bounds;
    const cx0 = Math.max(Math.floor(x0 / CELL), bo.cx0), cy0 = Math.max(Math.floor(y0 / CELL), bo.cy0);
    const cx1 = Math.min(Math.floor(x1 / CELL), bo.cx1), cy1 = Math.min(Math.floor(y1 / CELL), bo.cy1);
    if (cx1 < cx0 || cy1 < cy0) return out;
    if ((cx1 - cx0 + 1) * (cy1 - cy0 + 1) > this.count) {
      const b = this.boxes;
      for (let i = 0; i < this.count; i++) {
        if (b[4 * i] <= x1 && b[4 * i + 2] >= x0 && b[4 * i + 1] <= y1 && b[4 * i + 3] >= y0) out.push(i);
      }
      return out;
    }
    if (++this.round === 0xffffffff) {
      this.stamp.fill(0);
      this.round = 1;
    }
    for (let cx = cx0; cx <= cx1; cx++) {
      for (let cy = cy0; cy <= cy1; cy++) {
        const list = this.cells.get(this.key(cx, cy));
        if (!list) continue;
        for (const item of list) {
          if (this.stamp[item] === this.round) continue;
          this.stamp[item] = this.round;
          out.push(item);
        }
      }
    }
    return out;
  }
}
