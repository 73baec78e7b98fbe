// File pairing: which of two models is probably the quantized one, judged by their names, and which
// files are probably a model's counterpart. The core decides float and quantized by the models'
// content; it only falls back to the order it is given when both are quantized alike (two float
// models, say), and this name guess decides that order.

/** Words of a file name that say "quantized" (or a derived, lower-precision model). */
const QUANT_WORDS = /^(q|qdq|qop|qoperator|quant|quantized|quantised|quantize|qat|ptq|int8|uint8|int4|uint4|int16|i8|u8|i4|s8|8bit|4bit|nbits|w8a8|w8a16|w4a16|w4a8|a8w8|awq|gptq|fp8|dynamic|dyn|static|compressed|fp16|f16|half|bf16|optimized|opt)$/;
/** Words that say "the original float model". */
const FLOAT_WORDS = /^(float|float32|fp32|f32|full|orig|original|base|baseline|ref|reference|unquantized|master)$/;

/** The name's words: lower case, split at anything but letters and digits, extension dropped. */
export function nameWords(path: string): string[] {
  const base = path.split(/[\\/]/).pop() ?? path;
  return base.replace(/\.onnx$/i, '').toLowerCase().split(/[^a-z0-9]+/).filter(Boolean);
}

/** > 0: the name says quantized; < 0: float; 0: it does not say. */
export function quantHint(path: string): number {
  let score = 0;
  for (const w of nameWords(path)) {
    if (QUANT_WORDS.test(w) || /^(u?int\d+|w\d+a\d+|q\d+)$/.test(w)) score += 1;
    else if (FLOAT_WORDS.test(w)) score -= 1;
  }
  return score;
}

/**
 * Two models in the order to give the core: the one whose name says float first. Names that do not
 * tell keep the order given (the Explorer's selection order).
 */
export function guessOrder<T extends { path: string }>(a: T, b: T): [T, T] {
  return quantHint(a.path) > quantHint(b.path) ? [b, a] : [a, b];
}

/** The name without the words that say float or quantized: what a model and its counterpart share. */
export function stem(path: string): string {
  return nameWords(path).filter((w) => !QUANT_WORDS.test(w) && !FLOAT_WORDS.test(w) && !/^(u?int\d+|w\d+a\d+|q\d+|model)$/.test(w)).join('-');
}

const folderOf = (path: string) => path.replace(/[\\/][^\\/]*$/, '');

function commonPrefix(a: string, b: string): number {
  let n = 0;
  while (n < a.length && n < b.length && a[n] === b[n]) n++;
  return n;
}

/**
 * Candidates for `model`'s counterpart, most likely first: the same stem in the same folder, then the
 * same folder, then names that share most of their stem. `model` itself is left out.
 */
export function rankCounterparts(model: string, candidates: string[]): string[] {
  const s = stem(model), folder = folderOf(model), hint = quantHint(model);
  const score = (c: string) => {
    const cs = stem(c);
    let v = 0;
    if (cs === s) v += 100;
    else v += (40 * commonPrefix(cs, s)) / Math.max(cs.length, s.length, 1);
    if (folderOf(c) === folder) v += 30;
    // The counterpart of a quantized-looking name looks float, and the reverse.
    if (hint !== 0 && Math.sign(quantHint(c)) === -Math.sign(hint)) v += 10;
    return v;
  };
  return candidates.filter((c) => c !== model)
    .map((c, i) => ({ c, i, v: score(c) }))
    .sort((x, y) => y.v - x.v || x.i - y.i)
    .map((x) => x.c);
}
