// Checks `visualquant activations` on any pair against the independent measurement the tests use
// (tests/activations/peer_measure.mjs: onnxruntime-node run here with its own taps, statistics in
// JS), on the same seeded input: how many compared tensors agree within 0.1 dB, whole and cut into
// segments. For models no test has seen (the held-out check):
//   node tests/activations/check_pair.mjs FLOAT QUANT [--tap-budget SIZE]
// The input .npy files go to a private temporary folder, removed at the end.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { cli } from '../node/paths.mjs';
import { makeInputs, measure, npy } from './peer_measure.mjs';

const [floatPath, quantPath, ...rest] = process.argv.slice(2);
if (!floatPath || !quantPath) {
  console.error('usage: node tests/activations/check_pair.mjs FLOAT QUANT [--tap-budget SIZE]');
  process.exit(2);
}
const dir = mkdtempSync(path.join(tmpdir(), 'vq-check-'));
try {
  const inputs = await makeInputs(floatPath);
  const args = ['activations', floatPath, quantPath, '--json', '-', ...rest];
  inputs.forEach((input, i) => {
    const file = path.join(dir, `input_${i}.npy`);
    writeFileSync(file, npy(input.type, input.dims, input.data));
    args.push('--input', `${input.name}=${file}`);
  });
  const r = spawnSync(cli, args, { encoding: 'utf8', maxBuffer: 1 << 30 });
  if (r.status !== 0) {
    console.error(r.stderr);
    process.exit(r.status ?? 1);
  }
  const report = JSON.parse(r.stdout);
  const points = report.points.map((p) => ({ float_tensor: p.float_tensor, quantized_tensor: p.quantized_tensor, quantizer: p.output_quantizer }));
  const peer = await measure(floatPath, quantPath, inputs, points);
  let within = 0, worst = 0;
  report.points.forEach((p, i) => {
    const a = p.accumulated.sqnr_db, b = peer[i].sqnr_db;
    const d = a === null || b === null ? (a === b ? 0 : Infinity) : Math.abs(a - b);
    if (d <= 0.1) within++;
    worst = Math.max(worst, d);
  });
  console.log(`${report.points.length} compared, ${report.summary.not_observable} not observable, ${report.runtime.tap_chunks} chunk(s); ` +
              `tapping changed: ${report.tapping.changed_outputs.join(', ') || 'nothing'}`);
  console.log(`SQNR within 0.1 dB of the independent measurement: ${within} of ${report.points.length} (worst difference ${worst.toFixed(4)} dB)`);
  process.exitCode = within === report.points.length ? 0 : 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
