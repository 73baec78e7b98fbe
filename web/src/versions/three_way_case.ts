// What a three-way comparison says above the graphs and on its panes: which file is the float
// model and which are versions A and B, and, first, when either version is not the float model's
// network (then nothing about it can be trusted).
import { pairNotice, type PairNotice } from '../model/pair_case';
import type { CompareReport } from '../protocol/messages';

/** The banner: a wrong or unknown pair first (naming the version), else what the three panes are. */
export function threeWayNotice(a: CompareReport, b: CompareReport): PairNotice {
  for (const [label, r] of [['A', a], ['B', b]] as const) {
    const notice = pairNotice(r);
    if (notice?.kind === 'wrong' || notice?.kind === 'unknown') return { kind: notice.kind, text: `Version ${label} (${r.quant.file}): ${notice.text}` };
  }
  return {
    kind: 'case',
    text: `Three-way: versions A (${a.quant.file}) and B (${b.quant.file}) of the float model ${a.float.file}, each aligned with the float model. ` +
      'The Versions tab ranks where they differ; a selection in any graph follows in the other two.',
  };
}

/** A version pane's tag: "A · qdq" (the quantization forms the version holds). */
export function versionTag(label: 'A' | 'B', r: CompareReport): string {
  const forms = r.quant.quantization_forms ?? [];
  return forms.length ? `${label} · ${forms.join(', ')}` : label;
}
