// The extension's TypeScript, strict: its host and webview code and these tests, with the web UI's
// modules they import and the wasm wrapper's declarations.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

test('the extension type-checks (strict tsc)', () => {
  let root = path.dirname(fileURLToPath(import.meta.url));
  while (!existsSync(path.join(root, 'vscode-extension/package.json'))) root = path.dirname(root);
  const r = spawnSync(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', path.join(root, 'vscode-extension/tsconfig.json')],
    { encoding: 'utf8' });
  assert.equal(r.status, 0, `${r.stdout}${r.stderr}`);
});
