// What the open pair is, in the words every view uses: each side named by what it is (a float
// model and its quantized version: "Float" / "Quantized"; two quantized or two float models: "A" /
// "B" in the order the files were given, with what each is), the notice a pair that is not one
// network must carry, and what the weight figures measure. No view names a side on its own.
import type { CompareReport, CompareSide, WeightsReport } from '../protocol/messages';
import type { Side } from './comparison';

const FORM_WORDS: Record<string, string> = { qdq: 'QDQ', qoperator: 'QOperator', integer_ops: 'integer ops', weight_only: 'weight-only' };

/** "QDQ, QOperator": the side's quantized forms. */
export function formsOf(s: CompareSide): string {
  return s.quantization_forms.map((f) => FORM_WORDS[f] ?? f).join(', ');
}

/** The side's short name: "Float", "Quantized", "A" or "B". */
export function sideName(r: CompareReport, side: Side): string {
  return labelTitle(r[side].label);
}

/** The side's name with what it is: "Float", "Quantized · QDQ", "A · quantized, QDQ", "B · float". */
export function sideTitle(r: CompareReport, side: Side): string {
  const s = r[side], forms = formsOf(s);
  if (s.label === 'float' || s.label === 'quantized') return s.role === 'quantized' && forms ? `${sideName(r, side)} · ${forms}` : sideName(r, side);
  return `${s.label} · ${s.role}${forms ? `, ${forms}` : ''}`;
}

/** One letter for lists: F / Q, or A / B. */
export function sideLetter(r: CompareReport, side: Side): string {
  const label = r[side].label;
  return label === 'float' ? 'F' : label === 'quantized' ? 'Q' : label;
}

export interface PairNotice {
  /** 'wrong': not one network; 'unknown': the weights could not say; 'case': what the figures mean for this kind of pair. */
  kind: 'wrong' | 'unknown' | 'case';
  text: string;
}

/** What must be said above the graphs before anything else is read; null for an ordinary float/quantized pair. */
export function pairNotice(r: CompareReport): PairNotice | null {
  const verdict = r.summary.same_network, why = r.summary.same_network_evidence.reason;
  if (verdict === false)
    return { kind: 'wrong', text: `Not the same network: ${why}. Ops are matched by structure only, and no weights are compared.` };
  const names = `${sideName(r, r.float.argument === 1 ? 'float' : 'quant')} and ${sideName(r, r.float.argument === 1 ? 'quant' : 'float')}`;
  if (r.case === 'quantized_vs_quantized')
    return { kind: 'case', text: `Two quantized models, no float model: ${names} are compared with each other, so weight figures are differences between their dequantised weights, not errors.${verdict === null ? ` Whether they are one network is unknown (${why}).` : ''}` };
  if (r.case === 'float_vs_float')
    return { kind: 'case', text: `Two float models: ${names} are compared with each other, so weight figures are changes between them, not quantization error.${verdict === null ? ` Whether they are one network is unknown (${why}).` : ''}` };
  if (verdict === null) return { kind: 'unknown', text: `Whether these are one network is unknown: ${why}.` };
  return null;
}

/** The weights tab's title, by what its figures measure. */
export function weightsTitle(w: Pick<WeightsReport, 'measures'> | null, r: CompareReport | null): string {
  const measures = w?.measures ?? (r?.case === 'float_vs_float' ? 'weight_change' : r?.case === 'quantized_vs_quantized' ? 'dequantized_difference' : 'quantization_error');
  if (measures === 'weight_change') return 'Weight changes, largest first';
  if (measures === 'dequantized_difference') return 'Weight differences, largest first';
  if (measures === 'not_comparable') return 'Weights';
  return 'Quantized weights, lowest SQNR first';
}

/** A side label as a column or list heading reads it: "Float", "Quantized", "A", "B". */
export function labelTitle(label: string): string {
  return label === 'float' ? 'Float' : label === 'quantized' ? 'Quantized' : label;
}

/** Whether the weight figures are changes between two versions (not a float weight against its quantized self). */
export function isDifference(w: Pick<WeightsReport, 'measures'> | null): boolean {
  return w?.measures === 'weight_change' || w?.measures === 'dequantized_difference';
}
