// Which input each picked file feeds, decided as the command line's NAME=FILE would be written:
// a model with one input takes every file as one sample of it; a model with several takes a file
// named after an input (NAME.npy, NAME.pb, or NAME_3.npy for a later sample). The core then checks
// each file's type and shape against the model (core/inputs/input_binding.h) and says what is wrong.
import type { InspectValue } from '../protocol/messages';

export interface Binding {
  name: string;
  file: string;
}

export interface BoundInputs {
  bindings: Binding[];
  /** Files no input could be found for, with the reason (shown; the run waits until they are removed). */
  problems: string[];
}

const EXTENSION = /\.(npy|pb)$/i;

/** The input a file is named after: its name without the extension, or without a trailing _N / -N sample number. */
function inputNamed(file: string, inputs: InspectValue[]): string | null {
  const stem = file.replace(EXTENSION, '');
  const names = new Set(inputs.map((i) => i.name));
  if (names.has(stem)) return stem;
  const numbered = /^(.*?)[_-]\d+$/.exec(stem);
  return numbered && names.has(numbered[1]) ? numbered[1] : null;
}

export function bindInputFiles(inputs: InspectValue[], files: string[]): BoundInputs {
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const f of files) {
    if (seen.has(f)) problems.push(`${f} is picked twice: file names must differ`);
    seen.add(f);
    if (!EXTENSION.test(f)) problems.push(`${f} is not a .npy or .pb file`);
  }
  // Samples in the files' natural order (x_2 before x_10), whatever order the picker gave them in.
  const ordered = [...files].sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
  if (inputs.length === 1) return { bindings: ordered.map((file) => ({ name: '', file })), problems };
  const bindings: Binding[] = [];
  for (const file of ordered) {
    const name = inputNamed(file, inputs);
    if (name === null) problems.push(`${file} is not named after an input (${inputs.map((i) => `${i.name}.npy`).join(', ')})`);
    else bindings.push({ name, file });
  }
  return { bindings, problems };
}

/** The symbolic (or unknown) dimensions of the inputs: each needs a value, as the command line's --dim. */
export function symbolicDims(inputs: InspectValue[]): { key: string; label: string }[] {
  const out: { key: string; label: string }[] = [];
  const seen = new Set<string>();
  for (const input of inputs) {
    (input.shape ?? []).forEach((d, position) => {
      if (typeof d === 'number') return;
      const key = typeof d === 'string' && d !== '' ? d : `${input.name}:${position}`;
      if (seen.has(key)) return;
      seen.add(key);
      out.push({ key, label: typeof d === 'string' && d !== '' ? d : `${input.name} dim ${position}` });
    });
  }
  return out;
}

/** An input as the model declares it: "x: float32[batch,3,224,224]". */
export function declaredText(input: InspectValue): string {
  const dims = input.shape === null ? ' (no declared shape)' : `[${input.shape.map((d) => (d === null ? '?' : String(d))).join(',')}]`;
  return `${input.name}: ${input.element_type ?? 'unknown type'}${dims}`;
}
