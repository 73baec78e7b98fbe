// Where the two models come from: file inputs, dropped files, or URLs next to the page
// (?float=URL&quant=URL[&data=URL...]). Each is read into an ArrayBuffer with progress. A host page
// (VS Code) names files it reads itself (FileReference): those pass through unread.
import type { FilePayload, FileReference, FileSource } from '../protocol/messages';

export interface ModelSources {
  first: File | URL | FileReference;
  second: File | URL | FileReference;
  /** External-data files, by the name the model uses. */
  external: Array<File | URL>;
}

export type ReadProgress = (loaded: number, total: number) => void;

const isModel = (name: string) => /\.(onnx|onnx\.txt|pb)$/i.test(name);

/** Dropped files: the first two models (float, quantized: the core finds which is which); the rest is external data. */
export function sourcesFromFiles(files: File[]): ModelSources | string {
  const models = files.filter((f) => isModel(f.name));
  if (models.length !== 2) return `Drop exactly two .onnx models (and their external-data files); got ${models.length} model file${models.length === 1 ? '' : 's'}.`;
  return { first: models[0], second: models[1], external: files.filter((f) => !models.includes(f)) };
}

/** ?float=URL&quant=URL&data=URL: same-origin files (the page's CSP allows no other). */
export function sourcesFromQuery(search: string, base: string): ModelSources | null {
  const q = new URLSearchParams(search);
  const f = q.get('float'), s = q.get('quant');
  if (!f || !s) return null;
  return { first: new URL(f, base), second: new URL(s, base), external: q.getAll('data').map((d) => new URL(d, base)) };
}

export function nameOf(source: File | URL | FileReference): string {
  if (!(source instanceof URL) && !(source instanceof File)) return source.name;
  if (source instanceof URL) return decodeURIComponent(source.pathname.split('/').pop() || 'model.onnx');
  return source.webkitRelativePath || source.name;
}

function readFile(file: File, onProgress: ReadProgress, signal: AbortSignal): Promise<ArrayBuffer> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    const abort = () => reader.abort();
    signal.addEventListener('abort', abort, { once: true });
    reader.onprogress = (e) => onProgress(e.loaded, e.total || file.size);
    reader.onload = () => resolve(reader.result as ArrayBuffer);
    reader.onerror = () => reject(new Error(`${file.name}: ${reader.error?.message ?? 'cannot be read'}`));
    reader.onabort = () => reject(new DOMException('cancelled', 'AbortError'));
    reader.readAsArrayBuffer(file);
  });
}

async function fetchUrl(url: URL, onProgress: ReadProgress, signal: AbortSignal): Promise<ArrayBuffer> {
  const response = await fetch(url, { signal });
  if (!response.ok) throw new Error(`${url.pathname}: HTTP ${response.status} ${response.statusText}`);
  const total = Number(response.headers.get('content-length')) || 0;
  if (!response.body) return response.arrayBuffer();
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let loaded = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    loaded += value.byteLength;
    onProgress(loaded, total);
  }
  const out = new Uint8Array(loaded);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out.buffer;
}

/** Reads every source; progress is over all bytes together. */
export async function readSources(sources: ModelSources, onProgress: ReadProgress, signal: AbortSignal) {
  const all = [sources.first, sources.second, ...sources.external];
  const loaded = all.map(() => 0), totals = all.map((s) => (s instanceof File ? s.size : 0));
  const report = () => onProgress(loaded.reduce((a, b) => a + b, 0), totals.reduce((a, b) => a + b, 0));
  const payloads = await Promise.all(all.map(async (s, i): Promise<FileSource> => {
    if (!(s instanceof File) && !(s instanceof URL)) return s;  // a reference: the host reads it
    const track: ReadProgress = (l, t) => {
      loaded[i] = l;
      totals[i] = t;
      report();
    };
    const bytes = s instanceof File ? await readFile(s, track, signal) : await fetchUrl(s, track, signal);
    return { name: nameOf(s), bytes };
  }));
  return { first: payloads[0], second: payloads[1], external: payloads.slice(2) as FilePayload[] };
}
