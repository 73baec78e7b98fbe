/// <reference path="./bundled_models.d.ts" />
// What the core's worker does before anyone asks it anything, and while a large pair's files arrive
// from URLs (warmWhileReading, at the end). A browser compiles each wasm function
// when it first runs, and compiles the ones that run often again, optimised, on its other threads:
// the first comparison of a large pair pays for both and runs several times slower than the second.
// Comparing a small pair a few times while the user is still choosing files moves that work out of
// their way; so does writing, once, the memory the first real pair will need (resident_memory.ts).
// A warm round takes a few milliseconds and a cold one up to 0.3 s, so the first request waits for
// one round at most; no round runs after it.
import type { OpenComparison, VisualQuant } from 'visualquant-core';
import exampleFloat from '../../../examples/float.onnx';
import exampleQuant from '../../../examples/quant_qdq.onnx';
import { makeMemoryResident } from './resident_memory';

/** Rounds of the whole pipeline: open, labels, layout in both views, weights and lint. */
const ROUNDS = 30;
/** That pipeline after the open, a step at a time: what the drawing asks, then the analysis. */
type Step = (pair: OpenComparison) => unknown;
const DRAWING: Step[] = [
  (pair) => pair.labels(),
  (pair) => pair.layout(),
  (pair) => pair.layout({ view: 'nodes', collapsed: true }),
];
const PIPELINE: Step[] = [...DRAWING, (pair) => pair.weights(0, { detail: false }), (pair) => pair.lint()];
const openExample = (core: VisualQuant) => core.open(exampleFloat, 'float.onnx', exampleQuant, 'quant.onnx');
/**
 * Rounds of those, after the first few, on a larger pair the core makes (VisualQuant.warmUpPair:
 * 40 residual blocks, 161 / 481 nodes). The example pair is too small for the browser to optimise
 * the alignment, layout and report code; on the segmentation pair given to an idle page, those
 * functions' optimising compiles took 0.24 s of the two cores' time during the open and the
 * analysis, and 0.10 s with these rounds. A round takes 10-20 ms once warm, 0.1-0.2 s the first
 * times, which is why the small pair's rounds come first.
 */
const LARGER_ROUNDS = 12, LARGER_AFTER = 5;
const LARGER_PAIR = { blocks: 40, channels: 8 };

/** Parameters per slice in sharedAnalysis: the larger pair's share is one slice, as a real pair's slice is about one large weight. */
const SLICE_PARAMETERS = 1 << 20;

/**
 * The table's analysis shared with a helper core (weights_helper.ts), both sides in this instance:
 * `other` (a second open of the same pair) analyses share 1 of 2 as the helper does, and `pair`
 * leads with share 0, takes the other's results in and does the rest, as the core worker does
 * (sharedRun). Without it the code that only a shared run uses (the results' encoding and decoding)
 * was first optimised during a real pair's analysis: on the segmentation pair given to an idle page,
 * 0.11 s of optimising compiles on the two cores while both analysed, the decoding running
 * unoptimised until then.
 */
function sharedAnalysis(pair: OpenComparison, other: OpenComparison): void {
  other.weightsShare(1, 2);
  while (!other.weightsSlice(SLICE_PARAMETERS).done);
  const results = other.weightsResults();
  pair.weightsShare(0, 2);
  if (pair.weightsAbsorb(results).done) return;
  while (!pair.weightsSlice(SLICE_PARAMETERS).done);
}

/**
 * Runs the bundled example pair through the core, one round per task (and the larger pair the core
 * makes, LARGER_ROUNDS times after the first LARGER_AFTER), then makes its memory
 * resident a piece per task, until `requested()` says a request has come; then stops for good. The
 * real work warms the core from then on, and a round run between two requests (the page parsing
 * one answer before asking the next) would delay the second by a cold round, 0.1 to 0.3 s. Returns
 * what the worker calls as a request arrives, before it runs: the memory held so far is given
 * back then, for the request's work to use. `warmed` runs once the rounds are done and no request
 * has come: the worker starts its helper core's warm-up then, not beside these rounds (on a slow
 * machine both still ran 2 s after the page had loaded, and a small pair given then drew 0.3-0.4 s
 * after its files instead of 0.06-0.19 s).
 */
export function warmUpUntilRequested(core: VisualQuant, requested: () => boolean, warmed: () => void): () => void {
  let memory: { stop(): void } | null = null;
  let larger: { float: Uint8Array; quant: Uint8Array } | null = null;
  const stop = () => memory?.stop();
  const round = (done: number) => {
    if (requested() || core.failed) return;
    if (done >= ROUNDS + LARGER_ROUNDS) {
      warmed();
      memory = makeMemoryResident(core);
      return;
    }
    try {
      const onLarger = done >= LARGER_AFTER && done < LARGER_AFTER + LARGER_ROUNDS;
      if (onLarger) larger ??= core.warmUpPair(LARGER_PAIR.blocks, LARGER_PAIR.channels);
      const open = () => (onLarger && larger ? core.open(larger.float, 'float.onnx', larger.quant, 'quant.onnx') : openExample(core));
      const pair = open();
      try {
        // Every other round of the larger pair shares the analysis (sharedAnalysis), which the
        // summary then reads: not in the first rounds, which run cold and which a request may wait for.
        if (onLarger && done % 2) {
          const other = open();
          try {
            sharedAnalysis(pair, other);
          } finally {
            other.close();
          }
        }
        for (const step of PIPELINE) step(pair);
      } finally {
        pair.close();
      }
    } catch {
      // Only a failed instance fails on the example pair: the warm-up ends, and the worker gives
      // the next load a fresh instance (core.failed).
      return;
    }
    setTimeout(() => round(done + 1), 0);
  };
  setTimeout(() => round(0), 0);
  return stop;
}

/**
 * Pair files at least this large (both together), from URLs, leave the worker waiting on the
 * network long enough for a cold round of the example pair (warmWhileReading).
 */
export const WARM_WHILE_READING_BYTES = 32 * 1024 * 1024;

/**
 * One round of the example pair while a pair's files are still arriving from URLs, a step per task,
 * until `reading()` says they are all in: the worker mostly waits on the network then, and the
 * browser compiles the open's, alignment's and layout's code on first use, which the real pair's
 * open and layout would otherwise pay for once the bytes are in. A step running as the read ends
 * delays the open by that step at most (a cold open of the example pair: tens of milliseconds).
 * Measured from URLs in fresh browsers, alternated with the page without it (two sets of 7 and 8
 * opens, medians): the segmentation pair (120 MB) painted 0.97 -> 0.94 s and 1.02 -> 0.97 s; the
 * ResNet-18 pair (59 MB) no different (0.76 / 0.77 s, 0.79 / 0.78 s). The weights and the lint in
 * the round as well made the segmentation pair no sooner, and the larger warm-up pair (warmUpPair)
 * made both later: its cold open took more than the network left.
 */
export function warmWhileReading(core: VisualQuant, reading: () => boolean): void {
  let pair: OpenComparison | null = null;
  // The drawing's steps only: the weights and lint come after it, with the core warm from the pair.
  const steps = [() => { pair = openExample(core); }, ...DRAWING.map((step) => () => step(pair!))];
  const next = (at: number) => {
    if (at < steps.length && reading() && !core.failed) {
      try {
        steps[at]();
        setTimeout(() => next(at + 1), 0);
        return;
      } catch {
        // Only a failed instance fails on the example pair; the open that follows finds it failed.
      }
    }
    (pair as OpenComparison | null)?.close();
  };
  setTimeout(() => next(0), 0);
}
