// One whole comparison of a large pair in the wasm core under Node (the VS Code extension host's
// path): the two .onnx files held whole, every other file of their folders given as a RangeFile
// read with fs.readSync a weight at a time, then the alignment, the weight analysis and the lint.
// Prints one JSON line: seconds, the process' peak RSS, the wasm memory's size at the end, and the
// report's size and digest (the same pair natively gives the same report, byte for byte).
//   node bench/large_wasm_run.mjs DIST FLOAT.onnx QUANT.onnx
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadCore } from './wasm_bench_support.mjs';

const [dist, floatPath, quantPath] = process.argv.slice(2);
const { RangeFile } = await import(pathToFileURL(path.join(dist, 'visualquant.mjs')).href);
const core = await loadCore(dist);

const external = {};
for (const dir of new Set([path.dirname(floatPath), path.dirname(quantPath)])) {
  for (const name of fs.readdirSync(dir)) if (!name.endsWith('.onnx')) external[name] = RangeFile.ofPath(fs, path.join(dir, name), name);
}
const started = process.hrtime.bigint();
const report = core.compare(fs.readFileSync(floatPath), path.basename(floatPath), fs.readFileSync(quantPath), path.basename(quantPath), external);
const seconds = Number(process.hrtime.bigint() - started) / 1e9;
console.log(JSON.stringify({
  seconds, peak_rss_bytes: process.resourceUsage().maxRSS * 1024, wasm_memory_bytes: core.module.HEAPU8.length,
  report_bytes: report.length, report_sha256: createHash('sha256').update(report).digest('hex'),
}));
