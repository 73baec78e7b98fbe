// The activations benchmark (scripts/bench activations): `visualquant activations` against the peer
// bench/activations_peer.mjs (qdq_loss_debug's way: onnxruntime-node runs both models once with every
// tap, statistics in JS), on generated pairs: a 1024x1024 segmentation-sized encoder-decoder (~90
// convolutions, bench/make_compare_pair.py seg1024) and a BERT-base-sized transformer
// (transformer100m). Same inputs (one .npy), same tensors; median of REPEATS runs of each, taken in
// turn; peak memory (max RSS of each process, children included). Then the web page (web/dist, in
// Debian's Chromium through the browser tests' harness) runs the same comparison once on the same
// .npy, from the click on Run to the report: onnxruntime-web in the core's worker, one thread; its
// peak memory is the sampled PSS of every Chromium process. Targets: the CLI within 1.3x the peer,
// the page within 3x, the page's memory under 2 GB. The pairs are made in a temporary folder and removed.
//   node bench/activations_bench.mjs CLI [REPEATS] [--no-page | --page-only] [--pair seg1024|transformer100m]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeInputs, npy } from '../tests/activations/peer_measure.mjs';
import { launchBrowser, newPage, startServer, waitDrawn } from '../tests/browser/harness.mjs';
import { memorySampler } from './chromium_memory.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const [cli, repeatsArg] = process.argv.slice(2).filter((a, i, all) => !a.startsWith('--') && all[i - 1] !== '--pair');
const repeats = Number(repeatsArg ?? 3);
const withPage = !process.argv.includes('--no-page');
// --page-only: the page's run alone (with the CLI's report for its tensor count); --pair NAME: one pair.
const pageOnly = process.argv.includes('--page-only');
const onlyPair = process.argv.includes('--pair') ? process.argv[process.argv.indexOf('--pair') + 1] : null;
const dir = mkdtempSync(path.join(tmpdir(), 'vq-act-bench-'));

// Wall time and peak RSS of a command (GNU time's %e and %M, children included).
function timed(command, args) {
  const r = spawnSync('/usr/bin/time', ['-f', '%e %M', command, ...args], { encoding: 'utf8', maxBuffer: 1 << 30 });
  if (r.status !== 0) throw new Error(`${command} failed: ${r.stderr.slice(-2000)}`);
  const [seconds, kb] = r.stderr.trim().split('\n').pop().split(' ').map(Number);
  return { seconds, mb: kb / 1024, stdout: r.stdout };
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

// The page, in a fresh browser: the pair opened from URLs, the .npy given to the Activations tab,
// timed from the click on Run to the report shown; the browser's peak PSS over the run.
async function inThePage(out, kind, inputPath) {
  const server = await startServer([['/pair/', out]]);
  const browser = await launchBrowser();
  try {
    const page = await newPage(browser.context);
    await page.goto(`${server.url}?float=pair/${kind}_float.onnx&quant=pair/${kind}_quant.onnx`);
    await waitDrawn(page);
    await page.click('#tab-activations');
    await page.waitForFunction(() => /Model inputs: /.test(document.querySelector('[data-field="declared-inputs"]')?.textContent ?? ''));
    await page.setInputFiles('#activation-inputs', inputPath);
    const opened = memorySampler().stop().peakPss;  // the pair open and analysed, before the run
    const memory = memorySampler();
    const started = performance.now();
    await page.click('#activation-run');
    await page.waitForFunction(() => ['done', 'error'].includes(document.querySelector('#activation-status')?.dataset.state ?? ''), null,
      { timeout: 3600000, polling: 250 });
    const seconds = (performance.now() - started) / 1000;
    const { peakPss } = memory.stop();
    const status = await page.$eval('#activation-status', (e) => ({ state: e.dataset.state, text: e.textContent }));
    if (status.state !== 'done') throw new Error(`the page's run failed: ${status.text}`);
    const rows = await page.$$eval('#point-table tbody tr', (trs) => trs.length);
    return { seconds, mb: peakPss / (1 << 20), openedMb: opened / (1 << 20), rows };
  } finally {
    await browser.close();
    await server.stop();
  }
}

try {
  for (const kind of ['seg1024', 'transformer100m'].filter((k) => !onlyPair || k === onlyPair)) {
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
    for (let i = 0; i < (pageOnly ? 0 : repeats); ++i) {
      ours.push(timed(cli, cliArgs));
      oursNoLocal.push(timed(cli, [...cliArgs, '--local', 'off']));
      peer.push(timed('node', [path.join(here, 'activations_peer.mjs'), floatPath, quantPath, inputPath, pointsPath]));
    }
    if (pageOnly) {
      const page = await inThePage(out, kind, inputPath);
      console.log(`${kind}: the page ${page.seconds.toFixed(2)} s, peak ${page.mb.toFixed(0)} MB (PSS; ${page.openedMb.toFixed(0)} MB with the pair open before the run), ` +
                  `${page.rows} tensors (the CLI ${report.points.length})`);
      continue;
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
    if (withPage) {
      const page = await inThePage(out, kind, inputPath);
      if (page.rows !== report.points.length) throw new Error(`the page compared ${page.rows} tensors, the CLI ${report.points.length}`);
      console.log(`  ${'the page (onnxruntime-web, 1 thread)'.padEnd(34)} ${page.seconds.toFixed(2).padStart(7)} s  ${(page.seconds / t(peer)).toFixed(2).padStart(5)}x the peer  ` +
                  `peak ${page.mb.toFixed(0).padStart(6)} MB (PSS of every Chromium process; ${page.openedMb.toFixed(0)} MB before the run)`);
      const met = page.seconds <= 3 * t(peer) && page.mb < 2048;
      if (!met) process.exitCode = 1;
      console.log(`  target: the page within 3x the peer and under 2 GB: ${met ? 'met' : 'NOT met'}`);
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
