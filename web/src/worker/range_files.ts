// External-data files read by range, a weight at a time, when the core reads that weight: never
// whole in the core's memory, which holds 4 GiB at most, so a 13 GB model's data files open as
// easily as a small one's. The reads are synchronous (the core asks for bytes in the middle of its
// work), which a worker may do: FileReaderSync for a File the user gave, a synchronous
// XMLHttpRequest with a Range header for a URL. A server that does not answer ranges has the file
// read whole instead (rangeFileOfUrl gives null). In the VS Code extension host's thread, a local
// file is read with fs.readSync, which that thread installs (diskFiles.open): the page has no disk.
import { RangeFile } from 'visualquant-core';

// A worker's API, which the page's TypeScript library (dom) does not declare.
declare const FileReaderSync: { new (): { readAsArrayBuffer(blob: Blob): ArrayBuffer } };

/** Bytes read by range since the last releaseRangeResponses(). */
let unreleased = 0;
/** How much of them makes releaseRangeResponses() act: a few steps' worth of reads. */
const RELEASE_AFTER_BYTES = 64 * 1024 * 1024;
/** Short-lived objects that fill V8's young generation (16 MB semi-spaces at most) about twice over. */
const YOUNG_GENERATION_FILL = 1_000_000;
/** Where the last fill's chain is kept, so that the loop filling it is not optimised away. */
const fillSink: { chain: unknown } = { chain: null };

/**
 * Lets the responses of the range reads so far go; the worker calls it between the steps of a long
 * job (the alignment's, the weight analysis' slices), before its event loop turns. Each read leaves
 * a dead Blob (the response) or ArrayBuffer behind, whose bytes, up to a weight's size, live outside
 * the JavaScript heap until a garbage collection collects the small object that holds them; a worker
 * busy in the core allocates almost nothing in JavaScript, so no collection came for hundreds of
 * reads. Measured on the 7B pair's alignment in Chromium 156: the page's memory swung between 1.0
 * and 1.6 GB while the 4-bit weights were read, and stayed under 0.95 GB with this (peak 1.14 GB
 * against 1.69-1.77 GB). The page cannot ask for a collection (no gc() outside test flags), but
 * filling the young generation with short-lived objects makes V8 scavenge it, which frees the dead
 * wrappers and their bytes: a few milliseconds per call, and only after reads by range.
 */
export function releaseRangeResponses(): void {
  if (unreleased < RELEASE_AFTER_BYTES) return;
  unreleased = 0;
  let chain: { next: unknown } | null = null;
  for (let i = 0; i < YOUNG_GENERATION_FILL; i++) chain = { next: i % 64 === 0 ? null : chain };
  fillSink.chain = chain;
}

/** A File's (or Blob's) bytes by range: a slice read with FileReaderSync. */
export function rangeFileOfBlob(name: string, blob: Blob): RangeFile {
  const reader = new FileReaderSync();
  return new RangeFile(blob.size, (offset, length, target) => {
    let bytes: ArrayBuffer;
    try {
      bytes = reader.readAsArrayBuffer(blob.slice(offset, offset + length));
    } catch (e) {
      // The browser says "permission problems" when the file changed or went since it was picked.
      throw new Error(`${name} could not be read (${e instanceof Error ? e.message : String(e)}): was it moved, changed or deleted since it was given?`);
    }
    if (bytes.byteLength !== length) throw new Error(`${name} has ${bytes.byteLength} bytes at offset ${offset}, not the ${length} asked for: it changed since it was given`);
    target.set(new Uint8Array(bytes));
    unreleased += length;
  }, blob);
}

/**
 * A URL's bytes by range, when its server answers ranges (a first request of one byte tells, and
 * gives the size); null when it does not.
 */
export async function rangeFileOfUrl(name: string, url: string): Promise<RangeFile | null> {
  const probe = await fetch(url, { headers: { Range: 'bytes=0-0' } });
  const total = /^bytes 0-0\/(\d+)$/.exec(probe.headers.get('content-range') ?? '');
  await probe.body?.cancel();
  if (probe.status !== 206 || !total) {
    if (!probe.ok) throw Object.assign(new Error(`${name}: HTTP ${probe.status} ${probe.statusText}`), { code: 'io' });
    return null;
  }
  // One request object for every read: open() again drops the last response. A new object per read
  // left each response (up to 16 MiB) in the worker's memory until a garbage collection, which a
  // worker busy in one long synchronous call of the core hardly makes: gigabytes on a large pair.
  const request = new XMLHttpRequest();
  const reader = new FileReaderSync();
  return new RangeFile(Number(total[1]), (offset, length, target) => {
    request.open('GET', url, false);  // synchronous: allowed in a worker
    // A Blob read with FileReaderSync, not an 'arraybuffer' response: measured in Chromium 156, 16 MiB
    // ranges arrive at about 90 MB/s this way and 43 MB/s as array buffers (the response is built
    // in the worker piece by piece), which was most of a 4 GB pair's analysis.
    request.responseType = 'blob';
    request.setRequestHeader('Range', `bytes=${offset}-${offset + length - 1}`);
    request.send();
    const blob = request.response as Blob | null;
    if (request.status !== 206 || !blob || blob.size !== length) {
      throw new Error(`${name}: the server answered HTTP ${request.status} with ${blob?.size ?? 0} bytes for bytes ${offset}-${offset + length - 1}`);
    }
    target.set(new Uint8Array(reader.readAsArrayBuffer(blob)));
    unreleased += length;
  }, url);
}

/** How this thread reads a local file by range; set where there is a disk (the extension host's thread). */
export const diskFiles: { open?: (name: string, path: string) => RangeFile } = {};

/** A local file by range, where this thread can read the disk. */
export function rangeFileOfPath(name: string, path: string): RangeFile {
  if (!diskFiles.open) throw Object.assign(new Error(`${name}: this core cannot read files from disk`), { code: 'usage' });
  return diskFiles.open(name, path);
}
