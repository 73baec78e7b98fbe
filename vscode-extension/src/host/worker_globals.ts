// The few browser globals the core's Web Worker script uses, given to it in a Node worker thread:
// `self` (postMessage and onmessage over the parent port, location next to this script) and fetch,
// for the wasm file beside it. The core reads nothing else: any other URL is refused. And the disk
// reads of external-data files by range (diskFiles), which the host names by path once it has
// checked them (files.ts): a weight at a time, with fs.readSync at its offset.
import * as fs from 'node:fs';
import { readFile } from 'node:fs/promises';
import { RangeFile } from 'visualquant-core';
import { diskFiles } from '../../../web/src/worker/range_files';
import { parentPort } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';

const port = parentPort;
if (!port) throw new Error('the core runs in a worker thread');
let onmessage: ((event: { data: unknown }) => void) | null = null;
port.on('message', (data: unknown) => onmessage?.({ data }));
const here = new URL('.', import.meta.url);

Object.assign(globalThis, {
  self: {
    location: { href: here.href },
    postMessage: (message: unknown) => port.postMessage(message),
    get onmessage() {
      return onmessage;
    },
    set onmessage(handler: typeof onmessage) {
      onmessage = handler;
    },
  },
  fetch: async (input: string | URL) => {
    const url = new URL(String(input), here);
    if (url.protocol !== 'file:' || !url.href.startsWith(here.href)) throw new Error(`the core only reads its own files, not ${url.href}`);
    return new Response(await readFile(fileURLToPath(url)));
  },
});

diskFiles.open = (name, path) => RangeFile.ofPath(fs, path, name);
