// The view state a webview page writes with setState (src/webview/kept_state.ts), with a fake VS Code
// API, window and document: a change the user makes (overlay, view, selection) is written at once,
// even right after a camera write, since VS Code drops a write that comes once it has begun hiding the
// tab; camera moves are coalesced to one write per interval; a waiting camera write goes out with the
// next other change, when its interval ends, when the page loses focus and when it is hidden.
import assert from 'node:assert/strict';
import { beforeEach, mock, test } from 'node:test';
import { CAMERA_WRITE_INTERVAL_MS, keptState } from '../src/webview/kept_state';

interface State {
  overlay: string;
  view: string;
  selected: { side: string; id: string } | null;
  cameras: { float: { scale: number; tx: number; ty: number } } | null;
}

// The page's globals, as a webview has them.
const written: { key: string; state: State }[] = [];
const listeners = new Map<string, (() => void)[]>();
const on = (type: string, listener: () => void) => listeners.set(type, [...(listeners.get(type) ?? []), listener]);
const fire = (type: string) => listeners.get(type)?.forEach((l) => l());
const fakeDocument = { visibilityState: 'visible', addEventListener: on };
Object.assign(globalThis, {
  acquireVsCodeApi: () => ({ postMessage() {}, getState: () => ({ key: 'pair', state: start }), setState: (s: { key: string; state: State }) => written.push(s) }),
  window: { addEventListener: on },
  document: fakeDocument,
});

const start: State = { overlay: 'status', view: 'logical', selected: null, cameras: { float: { scale: 1, tx: 0, ty: 0 } } };
const panned = (s: State, tx: number): State => ({ ...s, cameras: { float: { scale: 1, tx, ty: 0 } } });
const last = () => written.at(-1)?.state;

beforeEach(() => {
  written.length = 0;
  listeners.clear();
  fakeDocument.visibilityState = 'visible';
  mock.timers.reset();
  mock.timers.enable({ apis: ['setTimeout'] });
});

test('the state saved for the same files comes back; another pair\'s does not', () => {
  assert.deepEqual(keptState<State>('pair', ['cameras']).restored, start);
  assert.equal(keptState<State>('another pair', ['cameras']).restored, undefined);
});

test('an overlay change right after a camera write is written at once, not at the end of the interval', () => {
  const kept = keptState<State>('pair', ['cameras']);
  kept.save(panned(start, 10));
  assert.equal(written.length, 1, 'the first change after a quiet spell is written at once');
  const precision = { ...panned(start, 10), overlay: 'precision' };
  kept.save(precision);
  assert.equal(written.length, 2, 'the overlay change is written synchronously');
  assert.deepEqual(last(), precision);
  assert.equal(written[1].key, 'pair');
});

test('a selection or view change is written at once too, with the camera as it is then', () => {
  const kept = keptState<State>('pair', ['cameras']);
  kept.save(panned(start, 1));
  kept.save(panned(start, 2));  // waits
  const selected = { ...panned(start, 3), selected: { side: 'float', id: 'conv1' } };
  kept.save(selected);
  assert.deepEqual(last(), selected);
  const raw = { ...selected, view: 'nodes' };
  kept.save(raw);
  assert.deepEqual(last(), raw);
  assert.equal(written.length, 3);
});

test('camera moves are coalesced: one write per interval, the latest one at its end', () => {
  const kept = keptState<State>('pair', ['cameras']);
  for (let tx = 1; tx <= 30; tx++) kept.save(panned(start, tx));
  assert.equal(written.length, 1);
  mock.timers.tick(CAMERA_WRITE_INTERVAL_MS);
  assert.equal(written.length, 2);
  assert.deepEqual(last(), panned(start, 30));
  mock.timers.tick(CAMERA_WRITE_INTERVAL_MS * 3);
  assert.equal(written.length, 2, 'nothing more to write');
  kept.save(panned(start, 31));
  assert.equal(written.length, 3, 'after a quiet spell a camera move is written at once');
});

test('a waiting camera write goes out when the page loses focus, or is hidden', () => {
  const kept = keptState<State>('pair', ['cameras']);
  kept.save(panned(start, 1));
  kept.save(panned(start, 2));
  fire('blur');
  assert.deepEqual(last(), panned(start, 2));
  kept.save(panned(start, 3));
  fakeDocument.visibilityState = 'hidden';
  fire('visibilitychange');
  assert.deepEqual(last(), panned(start, 3));
  kept.save(panned(start, 4));
  fire('pagehide');
  assert.deepEqual(last(), panned(start, 4));
  assert.equal(written.length, 4);
  fire('blur');
  assert.equal(written.length, 4, 'nothing waiting: nothing written');
});
