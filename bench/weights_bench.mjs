// wasm side of the weights benchmark under Node: what the weight analysis adds to a compare.
//   compare(..., { weights: false })  alignment only (weights sampled, not read whole)
//   compare(..., { weights: true })   the same plus the analysis of every aligned weight pair
// Both from the bytes already in memory, alternated, median of REPEATS each; the difference is the
// analysis' cost, set against the numpy peer by bench/weights_bench.py.
//   node bench/weights_bench.mjs FLOAT QUANT WASM_DIST [REPEATS]
import { readFileSync } from 'node:fs';
import { loadCore, median, time } from './wasm_bench_support.mjs';

const [floatPath, quantPath, dist, repeatsArg] = process.argv.slice(2);
const repeats = Number(repeatsArg ?? 3);
const vq = await loadCore(dist);
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
