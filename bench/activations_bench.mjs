// The activations benchmark (scripts/bench activations): `visualquant activations` against the peer
// bench/activations_peer.mjs (qdq_loss_debug's way: onnxruntime-node runs both models once with every
// tap, statistics in JS), on generated pairs: a 1024x1024 segmentation-sized encoder-decoder (~90
// convolutions, bench/make_compare_pair.py seg1024) and a BERT-base-sized transformer
// (transformer100m). Same inputs (one .npy), same tensors; median of REPEATS runs of each, taken in
// turn; peak memory (max RSS of each process, children included). Target: the CLI within 1.3x the
// peer. The pairs are made in a temporary folder and removed.
//   node bench/activations_bench.mjs CLI [REPEATS]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeInputs, npy } from '../tests/activations/peer_measure.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const [cli, repeatsArg] = process.argv.slice(2);
const repeats = Number(repeatsArg ?? 3);
const dir = mkdtempSync(path.join(tmpdir(), 'vq-act-bench-'));

// Wall time and peak RSS of a command (GNU time's %e and %M, children included).
function timed(command, args) {
  const r = spawnSync('/usr/bin/time', ['-f', '%e %M', command, ...args], { encoding: 'utf8', maxBuffer: 1 << 30 });
  if (r.status !== 0) throw new Error(`${command} failed: ${r.stderr.slice(-2000)}`);
  const [seconds, kb] = r.stderr.trim().split('\n').pop().split(' ').map(Number);
  return { seconds, mb: kb / 1024, stdout: r.stdout };
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

try {
  for (const kind of ['seg1024', 'transformer100m']) {
    const out = path.join(dir, kind);
    const made = spawnSync('/usr/bin/python3', [path.join(here, 'make_compare_pair.py'), kind, out], { encoding: 'utf8' });
    if (made.status !== 0) throw new Error(made.stderr);
    const floatPath = path.join(out, `${kind}_float.onnx`), quantPath = path.join(out, `${kind}_quant.onnx`);
    const [input] = await makeInputs(floatPath);
    const inputPath = path.join(out, 'input.npy');
    writeFileSync(inputPath, npy(input.type, input.dims, input.data));
    const cliArgs = ['activations', floatPath, quantPath, '--input', `input=${inputPath}`];
    // Which tensors the peer pairs: ours (it would pair by names; here both measure the same tensors).
    const report = JSON.parse(spawnSync(cli, [...cliArgs, '--json', '-'], { encoding: 'utf8', maxBuffer: 1 << 30 }).stdout);
    const pointsPath = path.join(out, 'points.json');
    writeFileSync(pointsPath, JSON.stringify(report.points.map((p) => ({
      float_tensor: p.float_tensor, quantized_tensor: p.quantized_tensor, quantizer: p.output_quantizer }))));
    const ours = [], oursNoLocal = [], peer = [];
    for (let i = 0; i < repeats; ++i) {
      ours.push(timed(cli, cliArgs));
      oursNoLocal.push(timed(cli, [...cliArgs, '--local', 'off']));
      peer.push(timed('node', [path.join(here, 'activations_peer.mjs'), floatPath, quantPath, inputPath, pointsPath]));
    }
    const t = (xs) => median(xs.map((x) => x.seconds)), m = (xs) => Math.max(...xs.map((x) => x.mb));
    const line = (name, xs) => `  ${name.padEnd(34)} ${t(xs).toFixed(2).padStart(7)} s  ${(t(xs) / t(peer)).toFixed(2).padStart(5)}x the peer  peak ${m(xs).toFixed(0).padStart(6)} MB`;
    console.log(`${kind}: ${report.points.length} compared tensors, ${report.runtime.runs} runs in ${report.runtime.tap_chunks} chunk(s)`);
    console.log(line('peer (qdq_loss_debug-like, 2 runs)', peer));
    console.log(line('visualquant activations', ours));
    console.log(line('visualquant activations --local off', oursNoLocal));
    if (t(ours) > 1.3 * t(peer)) process.exitCode = 1;
    console.log(`  target: visualquant within 1.3x the peer: ${t(ours) <= 1.3 * t(peer) ? 'met' : 'NOT met'}` +
                ` (--local off: ${t(oursNoLocal) <= 1.3 * t(peer) ? 'met' : 'NOT met'})`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
