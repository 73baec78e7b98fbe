// One whole comparison of a large pair in the wasm core under Node: the two .onnx files held whole,
// every other file of their folders given as a RangeFile read with fs.readSync a weight at a time.
// Two modes, each in a process of its own (the benchmark runs both):
//   host    what the VS Code extension host's worker does (web/src/worker/core_worker.ts): the pair
//           opened in steps (openInSteps), the table's weight analysis a slice at a time
//           (weightsSlice), then the lint. Its memory is the one the targets are about.
//   report  the CLI's bytes: compare() with the weight analysis in detail and the lint, the report
//           returned whole (hundreds of MB of JSON on the 7B pair, built in wasm memory); its
//           digest is checked against the native report's.
// Prints one JSON line: the mode, seconds, the process' peak RSS, the wasm memory's size at the
// end, and the report's (or the table's summary and lint's) size and digest.
//   node bench/large_wasm_run.mjs DIST FLOAT.onnx QUANT.onnx [host|report]   (default host)
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadCore } from './wasm_bench_support.mjs';

const [dist, floatPath, quantPath, mode = 'host'] = process.argv.slice(2);
if (!['host', 'report'].includes(mode)) throw new Error(`mode: host or report, not ${mode}`);
const { RangeFile } = await import(pathToFileURL(path.join(dist, 'visualquant.mjs')).href);
const core = await loadCore(dist);

const external = {};
for (const dir of new Set([path.dirname(floatPath), path.dirname(quantPath)])) {
  for (const name of fs.readdirSync(dir)) if (!name.endsWith('.onnx')) external[name] = RangeFile.ofPath(fs, path.join(dir, name), name);
}
// The worker's own sizes (core_worker.ts): 32 MB of stored weights per alignment step, 4 M
// parameters per slice of the analysis.
const ALIGN_STEP_BYTES = 32 * 1024 * 1024, WEIGHTS_SLICE_PARAMETERS = 4 * 1024 * 1024;
const nextTask = () => new Promise((resolve) => setTimeout(resolve, 0));

const started = process.hrtime.bigint();
let text;
const [floatBytes, quantBytes] = [fs.readFileSync(floatPath), fs.readFileSync(quantPath)];
if (mode === 'report') {
  text = core.compare(floatBytes, path.basename(floatPath), quantBytes, path.basename(quantPath), external);
} else {
  const open = await core.openInSteps(floatBytes, path.basename(floatPath), quantBytes, path.basename(quantPath), external,
    { stepBytes: ALIGN_STEP_BYTES, between: nextTask });
  try {
    while (!open.weightsSlice(WEIGHTS_SLICE_PARAMETERS).done) await nextTask();
    text = open.weights(0, { detail: false }) + open.lint();
  } finally {
    open.close();
  }
}
const seconds = Number(process.hrtime.bigint() - started) / 1e9;
console.log(JSON.stringify({
  mode, seconds, peak_rss_bytes: process.resourceUsage().maxRSS * 1024, wasm_memory_bytes: core.module.HEAPU8.length,
  report_bytes: text.length, report_sha256: createHash('sha256').update(text).digest('hex'),
}));
