// An activation comparison's report, indexed for the views: which compared point (or which reason
// for not comparing) belongs to each mapping entry, the graph overlay and the node detail read it.
import type { ActivationPoint, ActivationsReport } from '../protocol/messages';

export class ActivationIndex {
  private readonly byEntry = new Map<number, ActivationPoint>();
  private readonly reasonByEntry = new Map<number, string>();
  /** Points in the quantized model's order (the report's): the depth the chart plots along. */
  readonly points: ActivationPoint[];

  constructor(readonly report: ActivationsReport) {
    this.points = report.points;
    // A fused group's entries share the one point compared after its last op.
    for (const p of report.points) for (const e of p.entries) if (!this.byEntry.has(e)) this.byEntry.set(e, p);
    for (const u of report.not_observable) this.reasonByEntry.set(u.entry, u.reason);
    for (const f of report.failed) {
      const p = report.points.find((x) => x.point === f.point);
      for (const e of p?.entries ?? []) this.reasonByEntry.set(e, `not measured: ${f.reason}`);
    }
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
