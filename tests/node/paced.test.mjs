// The pacing of the weight analysis' progress paints (web/src/ui/paced.ts), under mocked timers: a
// request runs at once when none ran within the interval, the latest of those within it runs at its
// end, and flush runs a pending one now (the last progress is shown before what follows it).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { importTs } from './ts_module.mjs';

test('paced runs at once, then the latest request at the interval\'s end; flush runs it now', async (t) => {
  const { paced } = await importTs('web/src/ui/paced.ts');
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const runs = [];
  let shown = 0;
  const p = paced(250, () => runs.push(shown));

  shown = 1;
  p.request();
  assert.deepEqual(runs, [1], 'the first request runs at once');
  shown = 2;
  p.request();
  shown = 3;
  p.request();
  assert.deepEqual(runs, [1], 'requests within the interval wait');
  t.mock.timers.tick(250);
  assert.deepEqual(runs, [1, 3], 'the latest runs at the interval\'s end, once');

  shown = 4;
  p.request();
  p.flush();
  assert.deepEqual(runs, [1, 3, 4], 'flush runs the pending one now');
  p.flush();
  assert.deepEqual(runs, [1, 3, 4], 'and nothing when none is pending');

  t.mock.timers.tick(1000);
  shown = 5;
  p.request();
  assert.deepEqual(runs, [1, 3, 4, 5], 'after a quiet interval a request runs at once again');
});
