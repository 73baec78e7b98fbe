// wasm side of the weights benchmark under Node: what the weight analysis adds to a compare.
//   compare(..., { weights: false })  alignment only (weights sampled, not read whole)
//   compare(..., { weights: true })   the same plus the analysis of every aligned weight pair
// Both from the bytes already in memory, alternated, median of REPEATS each; the difference is the
// analysis' cost, set against the numpy peer by bench/weights_bench.py.
// Then the table's summary as the page makes it, and the full report as its JSON export makes it,
// on the pair already open: by one instance, and by two (a worker thread's instance analysing half, as the page's helper core does: weightsShare,
// weightsResults, weightsAbsorb; each takes the other's pairs from the far end once done with its
// share), each timed from the start of the analysis to the summary's text; the two must give the
// same bytes.
//   node bench/weights_bench.mjs FLOAT QUANT WASM_DIST [REPEATS]
import { readFileSync } from 'node:fs';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { loadCore, median, time } from './wasm_bench_support.mjs';

// Parameters a slice, as the page's workers take them: their own share's, and the other's pairs
// once done with their own.
const SLICE = 4 * 1024 * 1024, SHARED_SLICE = 1024 * 1024;
const nextTask = () => new Promise((resolve) => setImmediate(resolve));

if (!isMainThread) {
  // The helper: opens the pair when asked, then analyses share 1 of 2 when told to start, and the
  // other share's pairs from the far end, until its run is done or it is told to end.
  const vq = await loadCore(workerData.dist);
  const a = readFileSync(workerData.float), b = readFileSync(workerData.quant);
  let pair = null, ended = false;
  parentPort.on('message', async (m) => {
    if (m === 'open') {
      pair?.close();
      pair = vq.open(a, 'float.onnx', b, 'quant.onnx');
      parentPort.postMessage('opened');
      return;
    }
    if (m === 'end') {
      ended = true;
      return;
    }
    ended = false;
    const run = m.run;  // 'start': { run: the summary's or the full report's options }
    pair.weightsShare(1, 2, run);
    let done = false, shareDone = false;
    for (;;) {
      ({ done, shareDone } = pair.weightsSlice(shareDone ? SHARED_SLICE : SLICE, run));
      const results = pair.weightsResults(run);
      parentPort.postMessage(results, [results.buffer]);
      if (done) break;
      await nextTask();  // an 'end' comes between tasks
      if (ended) break;
    }
    parentPort.postMessage('done');
  });
} else {
  const [floatPath, quantPath, dist, repeatsArg] = process.argv.slice(2);
  const repeats = Number(repeatsArg ?? 3);
  const vq = await loadCore(dist);
  const a = readFileSync(floatPath), b = readFileSync(quantPath);
  vq.compare(a, 'float.onnx', b, 'quant.onnx', {}, { weights: false });  // warm-up: JIT, heap growth
  const without = [], withWeights = [];
  let layers = 0;
  for (let i = 0; i < repeats; i++) {
    without.push(time(() => vq.compare(a, 'float.onnx', b, 'quant.onnx', {}, { weights: false }))[0]);
    const [t, text] = time(() => vq.compare(a, 'float.onnx', b, 'quant.onnx', {}, { weights: true }));
    withWeights.push(t);
    layers = JSON.parse(text).weights.layers.length;
  }

  const helper = new Worker(new URL(import.meta.url), { workerData: { dist, float: floatPath, quant: quantPath } });
  const next = () => new Promise((resolve) => helper.once('message', resolve));
  // A report (the table's summary, or the full report as the JSON export makes it) by one instance,
  // then by two sharing it as the page's cores do; the bytes of both, and their times.
  const byOneAndTwo = async (run) => {
    let pair = vq.open(a, 'float.onnx', b, 'quant.onnx');
    const [t1, alone] = time(() => pair.weights(run.bins, { detail: run.detail }));
    pair.close();
    const opened = next();
    helper.postMessage('open');
    pair = vq.open(a, 'float.onnx', b, 'quant.onnx');
    await opened;
    const t0 = process.hrtime.bigint();
    helper.postMessage({ run });
    pair.weightsShare(0, 2, run);
    const arrived = [];
    const helperDone = new Promise((resolve) => {
      const listen = (m) => {
        if (m !== 'done') return arrived.push(m);
        helper.off('message', listen);
        resolve();
      };
      helper.on('message', listen);
    });
    let slice = { done: false, shareDone: false };
    while (!slice.done) {
      for (const results of arrived.splice(0)) slice = pair.weightsAbsorb(results, run);
      if (slice.done) break;
      // Done with its share, this core takes the helper's pairs from the far end, as the page's does.
      slice = pair.weightsSlice(slice.shareDone ? SHARED_SLICE : SLICE, run);
      await nextTask();  // the helper's messages come between tasks
    }
    helper.postMessage('end');
    const shared = pair.weights(run.bins, { detail: run.detail });
    const t2 = Number(process.hrtime.bigint() - t0) / 1e9;
    await helperDone;
    pair.close();
    return { t1, t2, same: shared === alone };
  };
  const timings = {};
  let same = true;
  for (const [name, run] of [['summary', { detail: false, bins: 0 }], ['full', { detail: true, bins: 0 }]]) {
    const one = [], two = [];
    for (let i = 0; i <= repeats; i++) {  // the first round warms both instances up, not counted
      const r = await byOneAndTwo(run);
      same &&= r.same;
      if (i > 0) {
        one.push(r.t1);
        two.push(r.t2);
      }
    }
    timings[name] = { one: median(one), two: median(two) };
  }
  await helper.terminate();
  const alignment = median(without), full = median(withWeights);
  console.log(JSON.stringify({
    side: 'wasm', layers, alignment_s: alignment, with_weights_s: full, weights_adds_s: full - alignment,
    summary_one_instance_s: timings.summary.one, summary_two_instances_s: timings.summary.two,
    full_one_instance_s: timings.full.one, full_two_instances_s: timings.full.two, two_instances_same_bytes: same,
  }));
}
