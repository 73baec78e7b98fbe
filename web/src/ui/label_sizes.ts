// Label sizes measured with the canvas font the graph view draws in, for the core's layout: boxes
// that fit their labels, where the core alone can only estimate from the number of characters.
// Each distinct label is measured once (a 15,000-node graph has a few hundred distinct labels).
import { SIDES } from '../model/comparison';
import type { LayoutLabelsReport, LayoutParams } from '../protocol/messages';
import { FONT, groupNodeText, LABEL_PAD } from './graph_view';

/** The core's own bounds on estimated widths: longer labels are cut with an ellipsis. */
const MIN_WIDTH = 40;
const MAX_WIDTH = 20 + 7 * 48;
/** -1 keeps the core's estimate (the heights: those are fixed by kind). */
const KEEP = -1;

export type MeasuredSizes = Omit<LayoutParams, 'view' | 'collapsed' | 'expanded'>;

/** (width, height) pairs per side for every node of `labels` (by its index in the model's layout graph) and every group (its collapsed node). */
export function measureLabels(labels: LayoutLabelsReport): MeasuredSizes {
  const ctx = document.createElement('canvas').getContext('2d')!;
  ctx.font = FONT;
  const widths = new Map<string, number>();
  const width = (text: string) => {
    let w = widths.get(text);
    if (w === undefined) {
      w = Math.min(Math.max(Math.ceil(ctx.measureText(text).width) + 2 * LABEL_PAD + 6, MIN_WIDTH), MAX_WIDTH);
      widths.set(text, w);
    }
    return w;
  };
  const out: MeasuredSizes = {};
  for (const side of SIDES) {
    const { nodes, groups } = labels[side];
    const nodeSizes = new Array<number>(2 * nodes.length).fill(KEEP);
    for (const n of nodes) nodeSizes[2 * n.index] = width(n.label);
    const groupSizes = groups.flatMap((g) => [width(groupNodeText(g.label, g.members)), KEEP]);
    if (side === 'float') Object.assign(out, { floatNodeSizes: nodeSizes, floatGroupSizes: groupSizes });
    else Object.assign(out, { quantNodeSizes: nodeSizes, quantGroupSizes: groupSizes });
  }
  return out;
}
