// Both graphs as the views show them, as one SVG: each pane under its title line, clipped to its
// viewport, with what the view draws there (open groups, edges with arrows, nodes in the overlay's
// colours, the selection, labels and badges at the zoom levels where the canvas draws them).
// Only what is in view goes in, so a 20,000-node graph exports what the user sees, not megabytes.
// Built as text: every model string goes through escapeHtml (valid for XML too), never as markup.
import { escapeHtml as x } from './html_report';
import { BADGE_SCALE, groupNodeText, LABEL_SCALE, type ViewSnapshot } from '../ui/graph_view';

export interface SvgPane {
  title: string;
  view: ViewSnapshot;
}

/** Colours of the page around the graphs (title bars, the gap between the panes). */
export interface PageChrome {
  panel: string;
  border: string;
  text: string;
}

/** The page's chrome colours in the current theme. */
export function pageChrome(): PageChrome {
  const css = getComputedStyle(document.body);
  const v = (name: string) => css.getPropertyValue(name).trim();
  return { panel: v('--panel'), border: v('--border'), text: v('--text') };
}

/** Height of a pane's title line and the gap between panes, in the exported images (CSS pixels). */
export const EXPORT_HEAD = 28;
export const EXPORT_GAP = 2;
const HEAD = EXPORT_HEAD;
const GAP = EXPORT_GAP;
const FONT = 'system-ui, -apple-system, &quot;Segoe UI&quot;, Roboto, sans-serif';
const r2 = (v: number) => String(Math.round(v * 100) / 100);

export function graphsSvg(panes: SvgPane[], chrome: PageChrome): string {
  const width = panes.reduce((w, p) => w + p.view.width, 0) + GAP * Math.max(panes.length - 1, 0);
  const height = HEAD + Math.max(...panes.map((p) => p.view.height), 0);
  let left = 0;
  const lefts = panes.map((p) => {
    const at = left;
    left += p.view.width + GAP;
    return at;
  });
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="${FONT}">
<rect width="${width}" height="${height}" fill="${x(chrome.border)}"/>
${panes.map((p, k) => `<defs><marker id="vq-arrow-${k}" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="5" markerHeight="5" orient="auto-start-reverse" markerUnits="userSpaceOnUse"><path d="M0 0L10 5L0 10z" fill="${x(p.view.colors.edge)}"/></marker></defs>`).join('\n')}
${panes.map((p, k) => `<g transform="translate(${lefts[k]} 0)">
<rect width="${p.view.width}" height="${HEAD - GAP}" fill="${x(chrome.panel)}"/>
<text x="10" y="${(HEAD - GAP) / 2}" dominant-baseline="central" font-size="13" font-weight="600" fill="${x(chrome.text)}">${x(p.title)}</text>
${pane(p.view, k)}
</g>`).join('\n')}
</svg>
`;
}

/** One view's drawing, clipped to its viewport; `k` names its arrow marker. */
function pane(view: ViewSnapshot, k: number): string {
  const { layout, colors: c, camera: { scale, tx, ty }, width, height } = view;
  const vx0 = -tx / scale, vy0 = -ty / scale, vx1 = (width - tx) / scale, vy1 = (height - ty) / scale;
  const inView = (x0: number, y0: number, x1: number, y1: number) => x0 <= vx1 && x1 >= vx0 && y0 <= vy1 && y1 >= vy0;
  const px = 1 / scale;
  const detail = scale >= LABEL_SCALE, badges = scale >= BADGE_SCALE;
  const out: string[] = [];
  layout.groups.forEach((g, gi) => {
    if (!g.box) return;
    const [gx, gy, gw, gh] = g.box;
    if (!inView(gx, gy, gx + gw, gy + gh)) return;
    out.push(`<rect x="${r2(gx)}" y="${r2(gy)}" width="${r2(gw)}" height="${r2(gh)}" fill="${x(c.groupFill)}" stroke="${x(c.groupStroke)}" stroke-width="${r2(px)}"/>`);
    if (detail && view.groupLabels[gi]) out.push(`<text x="${r2(gx + 4)}" y="${r2(gy + 2)}" dominant-baseline="hanging" font-size="10" fill="${x(c.groupText)}">${x(view.groupLabels[gi])}</text>`);
  });
  layout.edges.forEach((e) => {
    const p = e.points;
    let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
    for (let i = 0; i + 1 < p.length; i += 2) {
      x0 = Math.min(x0, p[i]); x1 = Math.max(x1, p[i]); y0 = Math.min(y0, p[i + 1]); y1 = Math.max(y1, p[i + 1]);
    }
    if (!inView(x0, y0, x1, y1)) return;
    const hot = view.selected.has(e.from) || view.selected.has(e.to);
    const d = e.stub && p.length === 8
      ? `M${r2(p[0])} ${r2(p[1])}L${r2(p[2])} ${r2(p[3])}M${r2(p[4])} ${r2(p[5])}L${r2(p[6])} ${r2(p[7])}`
      : `M${r2(p[0])} ${r2(p[1])}${Array.from({ length: p.length / 2 - 1 }, (_, i) => `L${r2(p[2 * i + 2])} ${r2(p[2 * i + 3])}`).join('')}`;
    out.push(`<path d="${d}" fill="none" stroke="${x(hot ? c.edgeSelected : c.edge)}" stroke-width="${r2(Math.max((hot ? 2 : 1) * px, 1))}"${badges ? ` marker-end="url(#vq-arrow-${k})"` : ''}/>`);
  });
  layout.nodes.forEach((n, i) => {
    const nx = n.x - n.w / 2, ny = n.y - n.h / 2;
    if (!inView(nx, ny, nx + n.w, ny + n.h)) return;
    const fill = view.paints[i]?.fill ?? c.groupFill;
    const selected = view.selected.has(i);
    const stroke = selected ? (i === view.primary ? c.selection : c.counterpart) : c.edge;
    const rx = n.kind === 'input' || n.kind === 'output' ? n.h / 2 : 4;
    const parts = [`<title>${x(n.kind === 'group' ? groupNodeText(n.label, n.members) : n.id)}</title>`];
    if (n.kind === 'group') parts.push(`<rect x="${r2(nx + 4)}" y="${r2(ny - 4)}" width="${r2(n.w)}" height="${r2(n.h)}" rx="4" fill="none" stroke="${x(c.groupStroke)}" stroke-width="${r2(px)}"/>`);
    parts.push(`<rect x="${r2(nx)}" y="${r2(ny)}" width="${r2(n.w)}" height="${r2(n.h)}" rx="${r2(rx)}" fill="${x(fill)}" stroke="${x(stroke)}" stroke-width="${r2(selected ? Math.max(3 * px, 1.5) : px)}"/>`);
    if (detail && view.labels[i]) {
      parts.push(`<text x="${r2(n.x)}" y="${r2(n.y + 0.5)}" text-anchor="middle" dominant-baseline="central" font-size="12" fill="${x(view.paints[i]?.text ?? c.groupText)}">${x(view.labels[i])}</text>`);
    }
    out.push(`<g class="node" data-kind="${x(n.kind)}">${parts.join('')}</g>`);
  });
  if (badges) {
    layout.edges.forEach((e, i) => {
      const b = view.badges[i];
      if (!b || !e.badge || !inView(b[0] - b[2], b[1] - 7, b[0] + b[2], b[1] + 7)) return;
      out.push(`<rect x="${r2(b[0] - b[2])}" y="${r2(b[1] - 7)}" width="${r2(2 * b[2])}" height="14" rx="7" fill="${x(c.badgeFill)}"/>`);
      if (detail) out.push(`<text x="${r2(b[0])}" y="${r2(b[1] + 0.5)}" text-anchor="middle" dominant-baseline="central" font-size="10" fill="${x(c.badgeText)}">${x(e.badge)}</text>`);
    });
  }
  return `<svg x="0" y="${HEAD}" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" overflow="hidden">
<rect width="${width}" height="${height}" fill="${x(c.background)}"/>
<g transform="matrix(${scale} 0 0 ${scale} ${r2(tx)} ${r2(ty)})">
${out.join('\n')}
</g>
</svg>`;
}
