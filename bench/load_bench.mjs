// wasm load benchmark under Node: inspect() of a model (copy into the wasm heap, load, report)
// against a plain copy of the same bytes (TypedArray.set into a warm buffer) in the same run.
//   node bench/load_bench.mjs MODEL WASM_DIST [REPEATS] [WARMUP_MODEL]
// The engine is warmed up on a small model first, so that compiling and tiering up the wasm code
// (a fixed cost, tens of MB in V8) is not counted as memory the load of this model needs.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [model, dist, repeatsArg, warmupModel] = process.argv.slice(2);
const repeats = Number(repeatsArg ?? 5);
const { loadVisualQuant } = await import(pathToFileURL(path.join(dist, 'visualquant.mjs')).href);
const vq = await loadVisualQuant({ wasmBinary: readFileSync(path.join(dist, 'visualquant_core.wasm')) });
const bytes = readFileSync(model);
if (warmupModel) {
  const small = readFileSync(warmupModel);
  for (let i = 0; i < 50; i++) vq.inspect(small, 'warmup.onnx');
}

const median = (v) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];
const time = (f) => {
  const t0 = process.hrtime.bigint();
  f();
  return Number(process.hrtime.bigint() - t0) / 1e9;
};

const rssBefore = process.resourceUsage().maxRSS * 1024;
let nodes = 0;
const loads = [];
for (let i = 0; i < repeats; i++) loads.push(time(() => { nodes = JSON.parse(vq.inspect(bytes, 'model.onnx')).graph.nodes; }));
const rssAfter = process.resourceUsage().maxRSS * 1024;

const destination = new Uint8Array(bytes.length).fill(1);
const copies = [];
for (let i = 0; i < repeats; i++) copies.push(time(() => destination.set(bytes)));
// The part of a load that is only the copy into wasm memory (wasm cannot read JavaScript memory).
const heapCopies = [];
const pointer = vq.module._malloc(bytes.length);
for (let i = 0; i < repeats; i++) heapCopies.push(time(() => vq.module.HEAPU8.set(bytes, pointer)));
vq.module._free(pointer);

const load = median(loads), copy = median(copies), heapCopy = median(heapCopies);
// The wasm heap holds one copy of the input (it must: wasm cannot see JavaScript memory); that copy
// is the input buffer of the wasm side, so it is not counted as extra.
const extra = rssAfter - rssBefore - bytes.length;
console.log(JSON.stringify({
  side: 'wasm', file_bytes: bytes.length, nodes, load_s: load, memcpy_s: copy, load_over_memcpy: Number((load / copy).toFixed(3)),
  heap_copy_s: heapCopy, load_without_heap_copy_over_memcpy: Number(((load - heapCopy) / copy).toFixed(3)),
  extra_peak_bytes: extra, extra_peak_over_file: Number((extra / bytes.length).toFixed(4)),
}));
