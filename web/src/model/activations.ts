// An activation comparison's report, indexed for the views: which compared point (or which reason
// for not comparing) belongs to each mapping entry, the graph overlay and the node detail read it.
import type { ActivationPoint, ActivationsReport, MappingEntry } from '../protocol/messages';

export class ActivationIndex {
  private readonly byEntry = new Map<number, ActivationPoint>();
  private readonly reasonByEntry = new Map<number, string>();

  constructor(readonly report: ActivationsReport) {
    // A fused group's entries share the one point compared after its last op.
    for (const p of report.points) for (const e of p.entries) if (!this.byEntry.has(e)) this.byEntry.set(e, p);
    // Points that failed at run time are not in `points` and name no entry (report.failed lists them).
    for (const u of report.not_observable) this.reasonByEntry.set(u.entry, u.reason);
  }

  get synthetic(): boolean {
    return this.report.inputs.synthetic;
  }

  point(entry: number | null): ActivationPoint | null {
    return entry === null ? null : this.byEntry.get(entry) ?? null;
  }

  /** Why an entry has no compared tensor (removed, inside a subgraph, ...), if it was listed. */
  reason(entry: number | null): string | null {
    return entry === null ? null : this.reasonByEntry.get(entry) ?? null;
  }
}

/**
 * A what-if's activation report (the quantized model with some entries kept in float, aligned to
 * the float model anew) with its points' entries given as the open pair's: by their float nodes,
 * which are the same model's, so the overlay, the table and the detail panel show it on the graphs
 * drawn. What the what-if's entries name on its quantized side stays in the report as it is.
 */
export function onOpenPair(report: ActivationsReport, mapping: readonly MappingEntry[]): ActivationsReport {
  const entryOfFloat = new Map<string, number>();
  mapping.forEach((m, i) => {
    for (const id of m.float) if (!entryOfFloat.has(id)) entryOfFloat.set(id, i);
  });
  const entriesOf = (floatNodes: string[]) => [...new Set(floatNodes.map((id) => entryOfFloat.get(id)).filter((e): e is number => e !== undefined))];
  return {
    ...report,
    points: report.points.map((p) => ({ ...p, entries: entriesOf(p.float_nodes) })),
    not_observable: report.not_observable.flatMap((u) => entriesOf(u.float_nodes).map((entry) => ({ ...u, entry }))),
  };
}
