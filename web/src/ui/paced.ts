// A write or repaint asked for often, run at most once per interval: a request when none ran within
// the interval runs at once, and the latest of those that come within it runs at its end. Used for
// the weight analysis' progress, reported after every pair and every slice (painting each one, the
// table re-sorted and redrawn, kept the page's main thread busy for a fifth of the analysis, time
// taken from the two cores that run it), and for the camera state the VS Code webview keeps while
// a pan or a zoom goes on (vscode-extension/src/webview/kept_state.ts).
// The interval is a timer started by each run, not a clock read: code under mocked timers sees the
// same behaviour.
export interface Paced {
  /** Asks for a run: now, or at the end of the current interval. */
  request(): void;
  /** Runs now, whatever is pending, and starts a new interval. */
  now(): void;
  /** A run that is pending runs now (the last progress is shown before what follows it). */
  flush(): void;
}

export function paced(intervalMs: number, run: () => void): Paced {
  let interval: ReturnType<typeof setTimeout> | undefined;
  let pending = false;
  const fire = () => {
    pending = false;
    run();
    if (interval !== undefined) clearTimeout(interval);
    interval = setTimeout(() => {
      interval = undefined;
      if (pending) fire();
    }, intervalMs);
  };
  return {
    request() {
      if (interval === undefined) fire();
      else pending = true;
    },
    now: fire,
    flush() {
      if (pending) fire();
    },
  };
}
