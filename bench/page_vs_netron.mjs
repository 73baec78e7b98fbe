// The page against Netron 9.2.1 on the same models, in one run (bench/netron_peer.mjs): for each
// pair, our page drawing both models aligned (from `?float=&quant=` URLs) against Netron drawing the
// larger of the two alone (by node count, `?url=`), each open in a fresh browser, median of --runs.
// Target (the issue "The page draws a pair faster than Netron"): at most 0.8x Netron's time.
// Without ../shared/peers/netron it says so and measures only the page.
//   node bench/page_vs_netron.mjs CLI [--runs 3] [--pairs a,b] [--blocks 1250,5000] [--timeout S]
//     pairs: fixture pairs of tests/fixtures/pairs (default: all); blocks: also the generated
//     decoder-like pairs of tests/browser/make_large_pair.py with that many blocks.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { generatePair, median, startServer } from '../tests/browser/harness.mjs';
import { netronDrawn, netronSource, pageDrawn, startStatic } from './netron_peer.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const option = (name, fallback) => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : fallback);
const cli = args[0];
const runs = Number(option('runs', '3'));
const timeoutMs = Number(option('timeout', '120')) * 1000;
const pairsDir = path.resolve(here, '../tests/fixtures/pairs');
const fixturePairs = option('pairs', readdirSync(pairsDir).filter((p) => existsSync(path.join(pairsDir, p, 'float.onnx'))).join(','))
  .split(',').filter(Boolean);
const blockCounts = option('blocks', '').split(',').filter(Boolean).map(Number);

function nodes(file) {
  const r = spawnSync(cli, ['inspect', file, '--json'], { encoding: 'utf8', maxBuffer: 1 << 28 });
  if (r.status !== 0) return null;
  const g = JSON.parse(r.stdout).graph;
  return g.nodes + g.nodes_in_subgraphs;
}

const netron = netronSource();
if (!netron) console.log('Netron is not in ../shared/peers/netron: the page alone is measured.');
const rows = [];
async function measure(name, dir) {
  const files = { float: path.join(dir, 'float.onnx'), quant: path.join(dir, 'quant.onnx') };
  const count = { float: nodes(files.float), quant: nodes(files.quant) };
  const larger = (count.quant ?? 0) >= (count.float ?? 0) ? 'quant' : 'float';
  const page = await startServer([['/pair/', dir]]);
  const peer = netron ? await startStatic(netron, [['/pair/', dir]]) : null;
  try {
    const ours = [], theirs = [];
    for (let i = 0; i < runs; i++) {
      ours.push(await pageDrawn(page, 'pair/float.onnx', 'pair/quant.onnx', { timeoutMs }));
      if (peer) theirs.push(await netronDrawn(peer, `pair/${larger}.onnx`, { timeoutMs }));
    }
    const m = (xs) => (xs.length && xs.every((x) => x !== null) ? median(xs) : null);
    rows.push({ name, count, larger, ours: m(ours), theirs: peer ? m(theirs) : undefined, oursRuns: ours, theirsRuns: theirs });
    console.error(`${name}: page ${ours.map((t) => (t === null ? '-' : t.toFixed(2))).join(', ')} s; Netron (${larger}) ${theirs.map((t) => (t === null ? '-' : t.toFixed(2))).join(', ')} s`);
  } finally {
    await page.stop();
    await peer?.stop();
  }
}

for (const pair of fixturePairs) await measure(pair, path.join(pairsDir, pair));
for (const blocks of blockCounts) {
  const dir = generatePair('make_large_pair.py', 'vq-page-netron-', blocks);
  try {
    await measure(`decoder-like, ${blocks} blocks`, dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const s = (t) => (t === null ? 'not drawn' : `${t.toFixed(2)} s`);
console.log(`\nDrawn, from navigation to the second frame after the page says so (median of ${runs}, each in a fresh browser):\n`);
console.log('| pair | nodes (float / quantized) | our page, both models | Netron, the larger model alone | ratio (target <= 0.8) |');
console.log('| --- | ---: | ---: | ---: | ---: |');
let met = 0, compared = 0;
for (const r of rows) {
  const ratio = r.ours !== null && r.theirs ? r.ours / r.theirs : null;
  if (ratio !== null) {
    compared++;
    if (ratio <= 0.8) met++;
  }
  console.log(`| ${r.name} | ${r.count.float} / ${r.count.quant} | ${s(r.ours)} | ${r.theirs === undefined ? '(no peer)' : `${s(r.theirs)} (${r.larger})`} | ` +
    `${ratio === null ? '–' : `${ratio.toFixed(2)}×`} |`);
}
if (netron) console.log(`\ntarget met on ${met} of ${compared} pairs`);
const drawnAll = rows.every((r) => r.ours !== null);
if (!drawnAll) console.log('the page did not draw every pair');
process.exit(drawnAll ? 0 : 1);
