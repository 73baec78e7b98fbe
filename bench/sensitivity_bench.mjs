// The sensitivity benchmark (scripts/bench sensitivity): a sweep over N entries of
// `visualquant sensitivity` (every quantized entry kept in float in turn, --split off, no suggestion
// steps) against single runs of the quantized model in the same run: ONNX Runtime (onnxruntime-node,
// graph optimisations off, as the sweep runs it) creating a session for the quantized model from its
// file and running it once on the same .npy, the median of REPEATS. Target: the sweep costs at most
// 1.2 x (N + 1) single runs (the float model is run once, and the model with every entry in float
// once more as the check). On a ResNet-50-sized and a BERT-base-sized generated pair
// (bench/make_compare_pair.py resnet50, transformer100m), made in a temporary folder and removed.
//   node bench/sensitivity_bench.mjs CLI [REPEATS]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeInputs, npy } from '../tests/activations/peer_measure.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const [cli, repeatsArg] = process.argv.slice(2);
const repeats = Number(repeatsArg ?? 3);
const dir = mkdtempSync(path.join(tmpdir(), 'vq-sens-bench-'));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

// One single run, in a process of its own as each of the sweep's sessions is: create, run once.
const singleRun = `
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
const ort = createRequire(process.env.VQ_ROOT + '/package.json')('onnxruntime-node');
const [model, input, name, type, dims] = process.argv.slice(2);
const started = performance.now();
const session = await ort.InferenceSession.create(model, { graphOptimizationLevel: 'disabled', logSeverityLevel: 3 });
const bytes = readFileSync(input);
const offset = 10 + bytes.readUInt16LE(8);  // .npy: magic, version, header length, header
const raw = bytes.buffer.slice(bytes.byteOffset + offset, bytes.byteOffset + bytes.length);
const data = new ({ float32: Float32Array, int64: BigInt64Array, int32: Int32Array })[type](raw);
await session.run({ [session.inputNames[0]]: new ort.Tensor(type, data, JSON.parse(dims)) });
console.log((performance.now() - started) / 1000);
`;

function seconds(command, args) {
  const started = performance.now();
  const r = spawnSync(command, args, { encoding: 'utf8', maxBuffer: 1 << 30, env: { ...process.env, VQ_ROOT: path.join(here, '..') } });
  if (r.status !== 0) throw new Error(`${command} failed: ${r.stderr.slice(-2000)}`);
  return { seconds: (performance.now() - started) / 1000, stdout: r.stdout };
}

let ok = true;
try {
  for (const kind of ['resnet50', 'transformer100m']) {
    const out = path.join(dir, kind);
    const made = spawnSync('/usr/bin/python3', [path.join(here, 'make_compare_pair.py'), kind, out], { encoding: 'utf8' });
    if (made.status !== 0) throw new Error(made.stderr);
    const floatPath = path.join(out, `${kind}_float.onnx`), quantPath = path.join(out, `${kind}_quant.onnx`);
    const [input] = await makeInputs(floatPath);
    const inputPath = path.join(out, 'input.npy');
    writeFileSync(inputPath, npy(input.type, input.dims, input.data));
    const script = path.join(out, 'single_run.mjs');
    writeFileSync(script, singleRun);
    const sweeps = [], singles = [];
    let report = null;
    for (let i = 0; i < repeats; ++i) {
      // In turn, so that the machine's load falls on both alike. The single run is timed inside
      // its process (Node's own start is not a run); the sweep from the command's start to its end.
      for (let k = 0; k < 3; ++k)
        singles.push(Number(seconds('node', [script, quantPath, inputPath, input.name, input.type, JSON.stringify(input.dims)]).stdout));
      const sweep = seconds(cli, ['sensitivity', floatPath, quantPath, '--input', `${input.name}=${inputPath}`, '--split', 'off',
        '--target-sqnr', '-999', '--json', '-']);
      sweeps.push(sweep.seconds);
      report = JSON.parse(sweep.stdout);
    }
    const n = report.entries.filter((e) => e.keep_in_float.both.status === 'measured').length;
    const single = median(singles), sweep = median(sweeps);
    const ratio = sweep / ((n + 1) * single);
    const met = ratio <= 1.2;
    ok = ok && met;
    console.log(`${kind}: sweep over ${n} entries (${report.runtime.runs} runs) ${sweep.toFixed(2)} s; one run of the quantized model ` +
                `(session + run) ${single.toFixed(3)} s; sweep / ((N + 1) runs) = ${ratio.toFixed(2)} (target <= 1.2: ${met ? 'met' : 'MISSED'})`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
process.exit(ok ? 0 : 1);
