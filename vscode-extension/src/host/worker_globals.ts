// The few browser globals the core's Web Worker script uses, given to it in a Node worker thread:
// `self` (postMessage and onmessage over the parent port, location next to this script) and fetch,
// for the wasm file beside it. The core reads nothing else: any other URL is refused. And the disk
// reads of external-data files by range (diskFiles), which the host names by path once it has
// checked them (files.ts): a weight at a time, with fs.readSync at its offset.
import * as fs from 'node:fs';
import { readFile } from 'node:fs/promises';
import { RangeFile } from 'visualquant-core';
import { diskFiles } from '../../../web/src/worker/range_files';
import { HELPER_NAME, helperThreads, type HelperWorker } from '../../../web/src/worker/weights_helper';
import { parentPort, Worker, workerData } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';

const port = parentPort;
if (!port) throw new Error('the core runs in a worker thread');
let onmessage: ((event: { data: unknown }) => void) | null = null;
port.on('message', (data: unknown) => onmessage?.({ data }));
const here = new URL('.', import.meta.url);

Object.assign(globalThis, {
  self: {
    // A helper thread is named as the page's helper worker is (the core's script then starts none).
    name: (workerData as { name?: string } | null)?.name ?? '',
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

// The core's helper for the weight analysis (web/src/worker/weights_helper.ts): this same script in a
// nested worker thread, adapted to the Web Worker's shape the core worker uses. It is given the
// module the core compiled (core_worker.ts, coreWasm), so both run the same code; it starts while the
// core opens a pair, and is ended with the core's thread.
helperThreads.make = (): HelperWorker => {
  const thread = new Worker(fileURLToPath(import.meta.url), { name: HELPER_NAME, workerData: { name: HELPER_NAME } });
  const helper: HelperWorker = {
    onmessage: null,
    onerror: null,
    postMessage: (message, transfer) => thread.postMessage(message, (transfer ?? []) as ArrayBuffer[]),
    terminate: () => void thread.terminate(),
  };
  thread.on('message', (data: unknown) => helper.onmessage?.({ data }));
  thread.on('error', (e: Error) => helper.onerror?.({ message: e.message }));
  return helper;
};
