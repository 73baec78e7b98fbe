// Where an external-data file the core names is found: in the model's folder, by the relative path the
// core already checked lexically (no absolute path, no '..'). A symbolic link there could show any file
// as the model's weights. The CLI follows links and refuses a file that resolves outside the model's
// folder (unsafe_external_path, core/model/external_data.cc); the extension host reads through
// vscode.workspace.fs, which tells a link apart but not where it leads (on a remote or virtual file
// system there is nothing to resolve it against), so it refuses every link on the way: the file
// itself, or a folder the path goes through. No vscode import here: the unit tests give it a disk.
import { CoreRequestError } from '../../../web/src/protocol/connection';

/** What the lookup needs of a file system: a stat that says "link" for a link (not only for what it points to). */
export interface LinkAwareFileSystem<L> {
  /** `name` inside the folder `parent`. */
  child(parent: L, name: string): L;
  /** null when nothing is there. */
  stat(location: L): Promise<{ isFile: boolean; isSymbolicLink: boolean } | null>;
}

/**
 * The file `name` (a relative path, '/'-separated) inside `folder`, or null when there is no such file.
 * Throws CoreRequestError('unsafe_external_path') when the file, or a folder on its path, is a link.
 */
export async function externalFileIn<L>(fs: LinkAwareFileSystem<L>, folder: L, name: string): Promise<L | null> {
  const parts = name.split('/');
  if (name.startsWith('/') || parts.some((p) => p === '..' || p === '' || p.includes('\\'))) return null;
  let location = folder;
  for (let i = 0; i < parts.length; i++) {
    location = fs.child(location, parts[i]);
    const s = await fs.stat(location);
    if (!s) return null;
    if (s.isSymbolicLink) throw refused(name, i === parts.length - 1 ? 'it' : `'${parts.slice(0, i + 1).join('/')}'`);
    if (i === parts.length - 1) return s.isFile ? location : null;
  }
  return null;
}

/** Worded as the CLI's refusals of a path that leaves the model's folder. */
function refused(name: string, link: string): CoreRequestError {
  return new CoreRequestError('unsafe_external_path', `external data file '${name}' is refused: ${link} is a symbolic link, `
    + 'which may resolve outside the model\'s folder (a model may only refer to files inside its own folder)');
}
