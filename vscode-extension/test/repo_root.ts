// The repository's root, for the unit tests that read its files (templates, fixtures, the built
// worker): the nearest folder up from the running test that holds vscode-extension/package.json.
// The tests run bundled (build/vscode/unit-tests/), so the walk starts from wherever the bundle is.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export function repoRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!existsSync(path.join(dir, 'vscode-extension/package.json'))) {
    const up = path.dirname(dir);
    if (up === dir) throw new Error('repository root not found');
    dir = up;
  }
  return dir;
}
