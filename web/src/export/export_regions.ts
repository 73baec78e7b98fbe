// What of the two graphs an image export draws: what is in view, the whole graphs, or the selection
// with its neighbours (the nodes one edge away). Matched ops share rows in the pair's layout, so both
// panes of an export take the same vertical range and stay side by side row for row.
import type { LayoutReport } from '../protocol/messages';
import type { Region } from '../ui/graph_view';

export type ExportScope = 'view' | 'whole' | 'selection';

export const SCOPE_TITLE: Record<ExportScope, string> = {
  view: 'as shown',
  whole: 'whole graph',
  selection: 'selection and its neighbours',
};

/** Room around an exported region, in drawing units. */
const MARGIN = 24;

/** The narrowest pane an export makes (drawing units): its title line stays readable. */
const MIN_WIDTH = 520;

/** Per pane, the region an export of `scope` draws (null for 'view': the view as it is). */
export function exportRegions(scope: ExportScope, layouts: readonly LayoutReport[], selected: readonly (readonly number[])[]): (Region | null)[] {
  if (scope === 'view') return layouts.map(() => null);
  const height = Math.max(...layouts.map((l) => l.height));
  if (scope === 'whole') return layouts.map((l) => widened({ x0: -MARGIN, y0: -MARGIN, x1: l.width + MARGIN, y1: height + MARGIN }));
  const boxes = layouts.map((l, k) => neighbourhood(l, selected[k]));
  const y0 = Math.min(...boxes.map((b) => b?.y0 ?? Infinity)), y1 = Math.max(...boxes.map((b) => b?.y1 ?? -Infinity));
  // A pane without a selected node shows the same rows across its whole width.
  return layouts.map((l, k) => widened({ x0: (boxes[k]?.x0 ?? 0) - MARGIN, y0: y0 - MARGIN, x1: (boxes[k]?.x1 ?? l.width) + MARGIN, y1: y1 + MARGIN }));
}

/** A region at least MIN_WIDTH wide, about the same centre. */
function widened(r: Region): Region {
  const grow = Math.max(0, MIN_WIDTH - (r.x1 - r.x0)) / 2;
  return { x0: r.x0 - grow, y0: r.y0, x1: r.x1 + grow, y1: r.y1 };
}

/** The box around some nodes and every node one edge from them; null for no nodes. */
function neighbourhood(layout: LayoutReport, nodes: readonly number[]): Region | null {
  if (nodes.length === 0) return null;
  const chosen = new Set(nodes);
  const near = new Set(nodes);
  for (const e of layout.edges) {
    if (chosen.has(e.from)) near.add(e.to);
    if (chosen.has(e.to)) near.add(e.from);
  }
  let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
  for (const i of near) {
    const n = layout.nodes[i];
    if (!n) continue;
    x0 = Math.min(x0, n.x - n.w / 2); x1 = Math.max(x1, n.x + n.w / 2);
    y0 = Math.min(y0, n.y - n.h / 2); y1 = Math.max(y1, n.y + n.h / 2);
  }
  return x0 <= x1 ? { x0, y0, x1, y1 } : null;
}

/** The largest PNG the exports make: Chromium's canvases fail beyond 16,384 px a side or so many pixels. */
export const PNG_MAX_SIDE = 16384;
export const PNG_MAX_PIXELS = 40e6;

/**
 * The scale (CSS pixels a drawing unit) at which panes of these sizes (drawing units, side by side)
 * make one PNG within the limits at `dpr` device pixels a CSS pixel: 1 when they fit, smaller when not.
 */
export function pngScale(sizes: readonly { width: number; height: number }[], dpr: number, gap: number, head: number): number {
  const width = sizes.reduce((w, s) => w + s.width, 0), height = Math.max(...sizes.map((s) => s.height));
  const extra = gap * Math.max(sizes.length - 1, 0);
  const bySide = Math.min((PNG_MAX_SIDE / dpr - extra) / Math.max(width, 1), (PNG_MAX_SIDE / dpr - head) / Math.max(height, 1));
  const byArea = Math.sqrt(PNG_MAX_PIXELS / (dpr * dpr) / Math.max(width * height, 1));
  return Math.min(1, bySide, byArea);
}
