// Whether a partial result is worth painting while a long job runs, from how far the job is: the
// layer table's rows as the weight analysis finds them are repainted whole (sorted, styled, laid
// out), 64 ms of the page's main thread on the segmentation pair's 50 rows. Painted 70 ms before
// the ranked table replaced them, that was time taken from the two cores that ran the analysis for
// rows nobody could read. A job's time left is forecast from its progress so far, at the rate it has
// gone; a partial result expected to stand for less than `minimumMs` is not painted (the status
// line, which costs nothing, still is).

/**
 * The time left of a job `fraction` done after `elapsedMs`, at the rate it has gone so far;
 * Infinity before any progress.
 */
export function forecastRemainingMs(elapsedMs: number, fraction: number): number {
  if (!(fraction > 0)) return Infinity;
  if (fraction >= 1) return 0;
  return (elapsedMs * (1 - fraction)) / fraction;
}

/** Whether a partial result would stand for at least `minimumMs` before the job ends (forecastRemainingMs). */
export function worthPaintingPartial(elapsedMs: number, fraction: number, minimumMs: number): boolean {
  return forecastRemainingMs(elapsedMs, fraction) >= minimumMs;
}
