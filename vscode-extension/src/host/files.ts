// HostFiles over vscode.workspace.fs: the models are read where they are (local, SSH, containers,
// virtual file systems), by the extension host. A page reads only the files the extension gave it
// (and external-data files next to them, never through a symbolic link): any other reference is refused.
import * as vscode from 'vscode';
import type { FileReference } from '../../../web/src/protocol/messages';
import { CoreRequestError } from '../../../web/src/protocol/connection';
import { heldFileRefusal } from '../../../web/src/protocol/file_limits';
import type { HostFiles } from './dispatch';
import { externalFileIn, type LinkAwareFileSystem } from './external_file';

export const referenceTo = (uri: vscode.Uri): FileReference => ({ name: baseName(uri), ref: uri.toString() });

export function baseName(uri: vscode.Uri): string {
  return uri.path.split('/').pop() || uri.path;
}

export class WorkspaceFiles implements HostFiles {
  private readonly allowed: Set<string>;

  constructor(files: vscode.Uri[]) {
    this.allowed = new Set(files.map((u) => u.toString()));
  }

  allow(files: vscode.Uri[]): void {
    for (const f of files) this.allowed.add(f.toString());
  }

  private uriOf(ref: FileReference): vscode.Uri {
    if (!this.allowed.has(ref.ref)) throw Object.assign(new Error(`${ref.name}: not a file this editor opened`), { code: 'io' });
    return vscode.Uri.parse(ref.ref, true);
  }

  async version(ref: FileReference): Promise<string> {
    const s = await vscode.workspace.fs.stat(this.uriOf(ref));
    return `${s.size}:${s.mtime}`;
  }

  async read(ref: FileReference, signal: AbortSignal, onProgress: (loaded: number, total: number) => void): Promise<Uint8Array> {
    const uri = this.uriOf(ref);
    const size = (await vscode.workspace.fs.stat(uri)).size;
    // Refused before it is read: workspace.fs reads a file whole, and the core could not hold it.
    const refusal = heldFileRefusal(ref.name, size);
    if (refusal) throw new CoreRequestError('out_of_memory', refusal);
    onProgress(0, size);
    // workspace.fs reads a file whole: a cancel answers at once, and the read's bytes are dropped.
    const aborted = new Promise<never>((_, reject) => {
      const stop = () => reject(new DOMException('cancelled', 'AbortError'));
      if (signal.aborted) stop();
      signal.addEventListener('abort', stop, { once: true });
    });
    const bytes = await Promise.race([vscode.workspace.fs.readFile(uri), aborted]);
    onProgress(bytes.byteLength, size);
    return bytes;
  }

  localPath(ref: FileReference): string | null {
    const uri = this.uriOf(ref);
    return uri.scheme === 'file' ? uri.fsPath : null;
  }

  /** Throws unsafe_external_path for a symbolic link (external_file.ts). */
  async sibling(model: FileReference, name: string): Promise<FileReference | null> {
    const uri = await externalFileIn(workspaceFs, vscode.Uri.joinPath(this.uriOf(model), '..'), name);
    if (!uri) return null;
    this.allowed.add(uri.toString());
    return { name, ref: uri.toString() };
  }
}

/** vscode.workspace.fs as external_file.ts sees it: its stat sets FileType.SymbolicLink on a link. */
const workspaceFs: LinkAwareFileSystem<vscode.Uri> = {
  child: (folder, name) => vscode.Uri.joinPath(folder, name),
  async stat(uri) {
    try {
      const { type } = await vscode.workspace.fs.stat(uri);
      return { isFile: (type & vscode.FileType.File) !== 0, isSymbolicLink: (type & vscode.FileType.SymbolicLink) !== 0 };
    } catch {
      return null;  // no such file
    }
  },
};
