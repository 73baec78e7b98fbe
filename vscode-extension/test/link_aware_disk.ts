// The disk as external_file.ts sees a file system, for the tests: lstat, so that a link is seen as a
// link (as vscode.workspace.fs.stat sets FileType.SymbolicLink), and stat for what it points to.
import { lstatSync, statSync } from 'node:fs';
import path from 'node:path';
import type { LinkAwareFileSystem } from '../src/host/external_file';

export const linkAwareDisk: LinkAwareFileSystem<string> = {
  child: (folder, name) => path.join(folder, name),
  async stat(file) {
    try {
      const link = lstatSync(file).isSymbolicLink();
      let isFile = false;
      try {
        isFile = statSync(file).isFile();
      } catch {
        // a dangling link
      }
      return { isFile, isSymbolicLink: link };
    } catch {
      return null;
    }
  },
};
