// Where the models come from: file inputs, dropped files, or URLs next to the page
// (?float=URL&quant=URL[&quant=URL][&data=URL...]): two models, or three for a three-way comparison
// (one float model and two quantized versions of it, in any order: the core tells which is float). None is read here: the core's worker reads each one straight
// into the core's memory (FileStream). A host page (VS Code) names files it reads itself
// (FileReference): those pass through unread.
import type { FileReference, FileSource } from '../protocol/messages';

export interface ModelSources {
  first: File | URL | FileReference;
  second: File | URL | FileReference;
  /** A three-way comparison's third model. */
  third?: File | URL | FileReference;
  /** External-data files, by the name the model uses. */
  external: Array<File | URL>;
}

const isModel = (name: string) => /\.(onnx|onnx\.txt|pb)$/i.test(name);

/**
 * Dropped files: two models (float and quantized: the core finds which is which) or three (a float
 * model and two versions of it); the rest is external data.
 */
export function sourcesFromFiles(files: File[]): ModelSources | string {
  const models = files.filter((f) => isModel(f.name));
  if (models.length !== 2 && models.length !== 3) {
    return `Drop two .onnx models, or three (a float model and two quantized versions of it), with their external-data files; got ${models.length} model file${models.length === 1 ? '' : 's'}.`;
  }
  return { first: models[0], second: models[1], ...(models[2] ? { third: models[2] } : {}), external: files.filter((f) => !models.includes(f)) };
}

/**
 * ?float=URL&quant=URL&data=URL: same-origin files (the page's CSP allows no other). Null when the
 * address names no pair; what is wrong, in words, when one of its values is not a URL.
 */
export function sourcesFromQuery(search: string, base: string): ModelSources | string | null {
  const q = new URLSearchParams(search);
  const f = q.get('float'), [s, t] = q.getAll('quant');
  if (!f || !s) return null;
  const parses = (v: string) => {
    try {
      return Boolean(new URL(v, base));
    } catch {
      return false;
    }
  };
  const bad = [['float', f], ['quant', s], ...(t ? [['quant', t]] : []), ...q.getAll('data').map((d) => ['data', d])].find(([, v]) => !parses(v));
  // The value as JSON: a string, quoted and escaped, shown as text.
  if (bad) return `The page's address gives ${bad[0]}=${JSON.stringify(bad[1])}, which is not a URL.`;
  return { first: new URL(f, base), second: new URL(s, base), ...(t ? { third: new URL(t, base) } : {}), external: q.getAll('data').map((d) => new URL(d, base)) };
}

export function nameOf(source: File | URL | FileReference): string {
  if (!(source instanceof URL) && !(source instanceof File)) return source.name;
  if (source instanceof URL) return decodeURIComponent(source.pathname.split('/').pop() || 'model.onnx');
  return source.webkitRelativePath || source.name;
}

/**
 * The sources as the core's worker reads them itself (FileStream): Files and URLs are handed over,
 * not read here; references stay references.
 */
export function streamSources(sources: ModelSources): { first: FileSource; second: FileSource; third?: FileSource; external: FileSource[] } {
  const stream = (s: File | URL | FileReference): FileSource =>
    s instanceof File ? { name: nameOf(s), blob: s } : s instanceof URL ? { name: nameOf(s), url: s.href } : s;
  return {
    first: stream(sources.first), second: stream(sources.second), ...(sources.third ? { third: stream(sources.third) } : {}), external: sources.external.map(stream),
  };
}
