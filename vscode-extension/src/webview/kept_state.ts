// The view state a webview page keeps with VS Code's setState while its tab is hidden (the page is
// reloaded when the tab is shown again). VS Code drops a write that arrives once it has begun hiding
// the tab, and the user can switch tabs right after any change, so every change the user makes (an
// overlay, the view, a selection) is written at once. Only what changes continuously, the camera
// during a pan or a zoom (a change on every frame), may wait: at most one write per 200 ms, and a
// waiting one goes out with the next other change, or as soon as the page loses focus or is hidden.
import { paced } from '../../../web/src/ui/paced';
import { vscodeApi } from './page_host';

/** A continuous change waits at most this long. */
export const CAMERA_WRITE_INTERVAL_MS = 200;

/**
 * The page's saved state when it belongs to `key` (the files shown), and a saver for it. `continuous`
 * names the fields that change on every frame (the cameras): a change in them alone may wait.
 */
export function keptState<S extends object>(key: string, continuous: readonly (keyof S)[]): { restored: S | undefined; save(state: S): void } {
  const saved = vscodeApi().getState() as { key?: string; state?: S } | undefined;
  const writer = stateWriter<S>((state) => vscodeApi().setState({ key, state }), continuous);
  // A click elsewhere in VS Code blurs the page before its tab is hidden; a hidden page is gone with
  // whatever it had not written.
  window.addEventListener('blur', writer.flush);
  window.addEventListener('pagehide', writer.flush);
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'hidden') writer.flush();
  });
  return { restored: saved?.key === key ? saved.state : undefined, save: writer.save };
}

/** Writes states through `write`: changes in anything but `continuous` at once, the others coalesced. */
export function stateWriter<S extends object>(write: (state: S) => void, continuous: readonly (keyof S)[]): { save(state: S): void; flush(): void } {
  let written: S | undefined;
  let latest: S | undefined;
  const pace = paced(CAMERA_WRITE_INTERVAL_MS, () => {
    written = latest;
    write(latest!);
  });
  return {
    save(state) {
      latest = state;
      // Nothing but the continuous fields changed since the last write: it may wait for the interval's end.
      if (written !== undefined && sameExcept(written, state, continuous)) pace.request();
      else pace.now();
    },
    flush: pace.flush,
  };
}

function sameExcept<S extends object>(a: S, b: S, skipped: readonly (keyof S)[]): boolean {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)] as (keyof S)[]);
  for (const k of keys) if (!skipped.includes(k) && JSON.stringify(a[k]) !== JSON.stringify(b[k])) return false;
  return true;
}
