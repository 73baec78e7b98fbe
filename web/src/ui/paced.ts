// A repaint asked for often, run at most once per interval: the first request at once, the latest
// of those that come within the interval at its end. The weight analysis reports progress after
// every pair and every slice; painting each one (the status line, the table re-sorted and redrawn)
// kept the page's main thread busy for a fifth of the analysis, time taken from the two cores that
// run it.
export interface Paced {
  /** Asks for a run: now, or at the end of the current interval. */
  request(): void;
  /** A run that is pending runs now (the last progress is shown before what follows it). */
  flush(): void;
}

export function paced(intervalMs: number, run: () => void): Paced {
  let last = -Infinity;
  let timer: ReturnType<typeof setTimeout> | null = null;
  const fire = () => {
    timer = null;
    last = performance.now();
    run();
  };
  return {
    request() {
      if (timer !== null) return;
      const wait = last + intervalMs - performance.now();
      if (wait <= 0) fire();
      else timer = setTimeout(fire, wait);
    },
    flush() {
      if (timer === null) return;
      clearTimeout(timer);
      fire();
    },
  };
}
