// A fusion group as a small graph, without any DOM: the float ops that were fused (the logical ops
// the fusion names) with the edges between them, in layers (longest path from the fusion's
// inputs), and the quantized op(s) they became.
import type { CompareReport, FusionGroup, LogicalOp } from '../protocol/messages';

export interface FusionGraph {
  float: LogicalOp[];
  /** Edges between float ops, as indices into `float`. */
  edges: Array<[number, number]>;
  /** Layer of each float op (0: reads nothing from inside the fusion). */
  layer: number[];
  quant: LogicalOp[];
}

export function fusionGraph(report: CompareReport, fusion: FusionGroup): FusionGraph {
  const pick = (ops: LogicalOp[], ids: string[]) => {
    const wanted = new Set(ids);
    return ops.filter((op) => wanted.has(op.op));
  };
  const float = pick(report.logical_graphs.float, fusion.float);
  const quant = pick(report.logical_graphs.quant, fusion.quant);
  const at = new Map(float.map((op, k) => [op.id, k]));
  const edges: Array<[number, number]> = [];
  float.forEach((op, k) => {
    for (const s of op.succs) {
      const to = at.get(s);
      if (to !== undefined) edges.push([k, to]);
    }
  });
  // Longest path: logical graphs are acyclic and the ops come in topological order, but the
  // relaxation below does not rely on the order (at most n rounds).
  const layer = float.map(() => 0);
  for (let round = 0, changed = true; changed && round < float.length; round++) {
    changed = false;
    for (const [a, b] of edges) {
      if (layer[b] < layer[a] + 1) {
        layer[b] = layer[a] + 1;
        changed = true;
      }
    }
  }
  return { float, edges, layer, quant };
}
