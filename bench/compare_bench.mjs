// wasm compare benchmark under Node, in the same run:
//   load:    what loading both models costs, as natively: read each file, copy it into the wasm
//            heap, load it, write a small report (inspect);
//   parse:   the same without reading the files (bytes already in memory), the strictest baseline;
//   compare: compare() of the pair from the bytes in memory, alignment only (the weight analysis
//            reads every weight whole and has its own benchmark).
// compare - parse is what the compare job adds; it is reported against both baselines.
//   node bench/compare_bench.mjs FLOAT QUANT WASM_DIST [REPEATS]
import { readFileSync } from 'node:fs';
import { loadCore, median, time } from './wasm_bench_support.mjs';

const [floatPath, quantPath, dist, repeatsArg] = process.argv.slice(2);
const repeats = Number(repeatsArg ?? 3);
const vq = await loadCore(dist);
const a = readFileSync(floatPath), b = readFileSync(quantPath);
vq.inspect(a, 'warmup.onnx');
const loads = [], parses = [], compares = [];
let report;
for (let i = 0; i < repeats; i++) {
  loads.push(time(() => {
    vq.inspect(readFileSync(floatPath), 'float.onnx');
    vq.inspect(readFileSync(quantPath), 'quant.onnx');
  })[0]);
  parses.push(time(() => { vq.inspect(a, 'float.onnx'); vq.inspect(b, 'quant.onnx'); })[0]);
  const [t, text] = time(() => vq.compare(a, 'float.onnx', b, 'quant.onnx', {}, { weights: false }));
  compares.push(t);
  report = JSON.parse(text);
}
const load = median(loads), parse = median(parses), adds = median(compares) - parse;
console.log(JSON.stringify({
  side: 'wasm', entries: report.summary.entries, mean_confidence: report.summary.mean_confidence,
  load_both_s: load, parse_both_s: parse, compare_adds_s: adds,
  compare_over_load: Number((adds / load).toFixed(3)), compare_over_parse: Number((adds / parse).toFixed(3)),
}));
