// wasm compare benchmark under Node: loading both models (inspect of each: copy into the wasm
// heap, load, a small report) against compare() of the pair, in the same run; the difference is
// what the compare job adds.
//   node bench/compare_bench.mjs FLOAT QUANT WASM_DIST [REPEATS]
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [floatPath, quantPath, dist, repeatsArg] = process.argv.slice(2);
const repeats = Number(repeatsArg ?? 3);
const { loadVisualQuant } = await import(pathToFileURL(path.join(dist, 'visualquant.mjs')).href);
const vq = await loadVisualQuant({ wasmBinary: readFileSync(path.join(dist, 'visualquant_core.wasm')) });
const a = readFileSync(floatPath), b = readFileSync(quantPath);
const median = (v) => [...v].sort((x, y) => x - y)[Math.floor(v.length / 2)];
const time = (f) => {
  const t0 = process.hrtime.bigint();
  const r = f();
  return [Number(process.hrtime.bigint() - t0) / 1e9, r];
};
vq.inspect(a, 'warmup.onnx');
const loads = [], compares = [];
let report;
for (let i = 0; i < repeats; i++) {
  loads.push(time(() => { vq.inspect(a, 'float.onnx'); vq.inspect(b, 'quant.onnx'); })[0]);
  const [t, text] = time(() => vq.compare(a, 'float.onnx', b, 'quant.onnx'));
  compares.push(t);
  report = JSON.parse(text);
}
const load = median(loads), compare = median(compares);
console.log(JSON.stringify({
  side: 'wasm', entries: report.summary.entries, mean_confidence: report.summary.mean_confidence,
  load_both_s: load, compare_adds_s: compare - load, compare_over_load: Number(((compare - load) / load).toFixed(3)),
}));
