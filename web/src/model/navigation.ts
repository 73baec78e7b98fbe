// Where keyboard navigation goes, without any DOM: the mismatches in drawing order (n / p), the
// next node along an edge or in the same row (arrow keys), and stepping through an ordered list.
import type { MappingEntry, LayoutReport } from '../protocol/messages';
import { SIDES, type Comparison } from './comparison';

/** Below this confidence a match is worth a look even when its kind is identical or renamed. */
export const LOW_CONFIDENCE = 0.5;

/** A mapping entry that n / p stops at: anything but a plain match, or a plain match with low confidence. */
export function isMismatch(entry: MappingEntry): boolean {
  return (entry.kind !== 'identical' && entry.kind !== 'renamed') || entry.confidence < LOW_CONFIDENCE;
}

/**
 * The mismatching entries that are drawn, top to bottom (then left to right), as a reader scans
 * the graphs: each with the drawing position of its first node (float side first).
 */
export function mismatchOrder(c: Comparison): Array<{ entry: number; y: number; x: number }> {
  const out: Array<{ entry: number; y: number; x: number }> = [];
  c.report.mapping.forEach((entry, i) => {
    if (!isMismatch(entry)) return;
    for (const side of SIDES) {
      const nodes = c.entryNodes(side, i).map((k) => c.layout[side].nodes[k]);
      if (!nodes.length) continue;
      const top = nodes.reduce((a, b) => (b.y < a.y || (b.y === a.y && b.x < a.x) ? b : a));
      out.push({ entry: i, y: top.y, x: top.x });
      return;
    }
  });
  return out.sort((a, b) => a.y - b.y || a.x - b.x || a.entry - b.entry);
}

/**
 * The next (dir 1) or previous (dir -1) item of an ordered list after `current`; from nothing, or
 * from an item not in the list, the first (or last). Wraps around at the ends.
 */
export function stepThrough<T>(items: readonly T[], current: T | null, dir: 1 | -1): T | null {
  if (!items.length) return null;
  const at = current === null ? -1 : items.indexOf(current);
  if (at < 0) return dir === 1 ? items[0] : items[items.length - 1];
  return items[(at + dir + items.length) % items.length];
}

export type Direction = 'up' | 'down' | 'left' | 'right';

/**
 * The node an arrow key walks to from node `index`: up to a predecessor, down to a successor (of
 * several, the one nearest horizontally), left or right to the nearest node in the same row.
 */
export function neighbour(layout: LayoutReport, index: number, dir: Direction): number | null {
  const here = layout.nodes[index];
  if (!here) return null;
  let best: number | null = null, bestCost = Infinity;
  const consider = (k: number, cost: number) => {
    if (k !== index && cost < bestCost) { best = k; bestCost = cost; }
  };
  if (dir === 'up' || dir === 'down') {
    for (const e of layout.edges) {
      const k = dir === 'up' ? (e.to === index ? e.from : -1) : (e.from === index ? e.to : -1);
      if (k >= 0) consider(k, Math.abs(layout.nodes[k].x - here.x) + 1e-3 * k);
    }
    return best;
  }
  layout.nodes.forEach((n, k) => {
    if (Math.abs(n.y - here.y) > Math.max(n.h, here.h) / 2) return;
    const dx = n.x - here.x;
    if ((dir === 'left' && dx < 0) || (dir === 'right' && dx > 0)) consider(k, Math.abs(dx));
  });
  return best;
}
