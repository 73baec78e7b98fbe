// wasm side of the weights benchmark under Node: what the weight analysis adds to a compare.
//   compare(..., { weights: false })  alignment only (weights sampled, not read whole)
//   compare(..., { weights: true })   the same plus the analysis of every aligned weight pair
// Both from the bytes already in memory, alternated, median of REPEATS each; the difference is the
// analysis' cost, set against the numpy peer by bench/weights_bench.py.
//   node bench/weights_bench.mjs FLOAT QUANT WASM_DIST [REPEATS]
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [floatPath, quantPath, dist, repeatsArg] = process.argv.slice(2);
const repeats = Number(repeatsArg ?? 3);
const { loadVisualQuant } = await import(pathToFileURL(path.join(dist, 'visualquant.mjs')).href);
const vq = await loadVisualQuant({ wasmBinary: readFileSync(path.join(dist, 'visualquant_core.wasm')) });
const median = (v) => [...v].sort((x, y) => x - y)[Math.floor(v.length / 2)];
const time = (f) => {
  const t0 = process.hrtime.bigint();
  const r = f();
  return [Number(process.hrtime.bigint() - t0) / 1e9, r];
};
const a = readFileSync(floatPath), b = readFileSync(quantPath);
vq.compare(a, 'float.onnx', b, 'quant.onnx', {}, { weights: false });  // warm-up: JIT, heap growth
const without = [], withWeights = [];
let layers = 0;
for (let i = 0; i < repeats; i++) {
  without.push(time(() => vq.compare(a, 'float.onnx', b, 'quant.onnx', {}, { weights: false }))[0]);
  const [t, text] = time(() => vq.compare(a, 'float.onnx', b, 'quant.onnx', {}, { weights: true }));
  withWeights.push(t);
  layers = JSON.parse(text).weights.layers.length;
}
const alignment = median(without), full = median(withWeights);
console.log(JSON.stringify({
  side: 'wasm', layers, alignment_s: alignment, with_weights_s: full, weights_adds_s: full - alignment,
}));
