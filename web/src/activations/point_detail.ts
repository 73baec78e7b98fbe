// One compared tensor in words and figures, for the detail panel of a selected op: what was
// compared, the accumulated and local error, the output quantizer's range and how it was used,
// the quantizer's own error, and the verdict. Charts follow (activation_charts.ts, lazily).
import type { ActivationError, ActivationPoint } from '../protocol/messages';
import { el, fmt } from '../ui/dom';

const db = (v: number | null | undefined) => (v === null ? '∞ (no error)' : v === undefined ? '–' : `${v.toFixed(2)} dB`);
const pct = (v: number | undefined) => (v === undefined ? '–' : `${(v * 100).toFixed(2)} %`);

function errorText(e: ActivationError): string {
  return `SQNR ${db(e.sqnr_db)}, cosine ${e.cosine === null ? '–' : e.cosine.toFixed(6)}, max |err| ${fmt(e.max_abs)}` +
    (e.rmse_steps === null ? '' : `, ${fmt(e.rmse_steps)} steps RMS`);
}

export function pointFacts(p: ActivationPoint, synthetic: boolean, samples: number): HTMLElement {
  const rows: Array<[string, string]> = [];
  rows.push(['compared', `${p.float_tensor}  ↔  ${p.quantized_tensor}${p.quantized_read_as === 'values' ? '' : ` (${p.quantized_read_as})`}`]);
  if (p.model_output !== undefined) rows.push(['model output', `output ${p.model_output}`]);
  rows.push(['accumulated', errorText(p.accumulated)]);
  if (p.local) rows.push(['made here (local)', errorText(p.local)]);
  if (p.input_sqnr_db !== null) rows.push(['at its inputs', `${db(p.input_sqnr_db)}${p.sqnr_drop_db === null ? '' : `; ${p.sqnr_drop_db.toFixed(2)} dB lower here`}`]);
  const q = p.output_quantizer;
  if (q) {
    const a = p.accumulated;
    rows.push(['output quantizer', `${q.type}, scale ${fmt(q.scale, 4)}, zero point ${fmt(q.zero_point)}: range ${fmt(q.low, 4)} … ${fmt(q.high, 4)}`]);
    rows.push(['float values beyond it', `${pct(a.clipped_fraction)} (${pct(a.clipped_above_qmax)} above, ${pct(a.clipped_below_qmin)} below), ${pct(a.clipping_error_share)} of the error energy`]);
    rows.push(['codes at the limits', `${pct(a.codes_at_qmin)} at qmin, ${pct(a.codes_at_qmax)} at qmax; ${pct(a.range_unused)} of the range unused`]);
  } else {
    rows.push(['output quantizer', 'none: this output runs in float']);
  }
  if (p.quantizer_error) rows.push(["quantizer's own error", `${errorText(p.quantizer_error)} (its input ${p.quantizer_error.pre_quant_tensor})`]);
  if (samples > 1) rows.push(['per sample', p.per_sample.map((s, i) => `${i}: ${s.computed === false ? 'not computed' : db(s.sqnr_db)}`).join(', ')]);
  const inside = (tap: NonNullable<ActivationPoint['body']>['float']) =>
    tap ? `${tap.graph} of ${tap.node}${tap.loops ? `: ${tap.shape}` : ''}; local error not measured` : 'the main graph';
  if (p.body) {
    const f = inside(p.body.float), q = inside(p.body.quantized);
    if (f === q) rows.push(['inside', f]);
    else rows.push(['inside (float)', f], ['inside (quantized)', q]);
  }
  if (p.channels?.worst) rows.push(['worst channel', `${p.channels.worst.index}: ${db(p.channels.worst.sqnr_db)}`]);
  rows.push(['values', `${p.accumulated.values.toLocaleString('en-US')}${p.accumulated.nonfinite ? `, ${p.accumulated.nonfinite} not finite` : ''}`]);
  const d = el('dl', { class: 'facts' });
  for (const [k, v] of rows) d.append(el('dt', { text: k }), el('dd', { text: v }));
  return el('div', { attrs: { 'data-field': 'activation' } },
    synthetic ? el('p', { class: 'synthetic-note', text: 'Synthetic inputs: every figure is directional only.' }) : null,
    el('p', { class: 'verdict', attrs: { 'data-field': 'verdict' }, text: p.verdict }), d);
}
