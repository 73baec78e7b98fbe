// The wasm wrapper's TypeScript declarations compile under strict settings against real usage.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { root } from './paths.mjs';

test('visualquant.d.mts type-checks a strict caller', () => {
  const tsc = path.join(root, 'node_modules/typescript/bin/tsc');
  const r = spawnSync(process.execPath, [tsc, '--noEmit', '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext',
    '--target', 'es2022', path.join(root, 'tests/node/wrapper_usage.mts')], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stdout + r.stderr);
});
