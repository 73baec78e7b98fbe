// The core's wasm, compiled on the page's thread while the worker's own script is still loading,
// and handed to the worker once (a WebAssembly.Module crosses postMessage without copying or
// compiling again). Without it the worker could only start fetching the 3 MB module after its
// script had loaded and run: on a small pair that wait was a quarter of the time to the first
// drawing. The page's index.html preloads the same URL, so the fetch is under way before main.js
// has even loaded.
// This message is the worker transport's own, not part of the UI protocol (protocol/messages.ts):
// the VS Code extension host runs the same worker script without it (no CORE_MODULE_HASH).

/** On the worker script's URL when the page sends it the module (and only then: it waits for it). */
export const CORE_MODULE_HASH = '#compiled-core';

/** Sent once to each worker, before or after its first request. `module` null: fetch it yourself. */
export interface CoreModuleMessage {
  type: 'core-module';
  module: WebAssembly.Module | null;
  /** Why the page could not compile it, for the worker's own error if its fetch fails too. */
  problem?: string;
}

export const isCoreModuleMessage = (data: unknown): data is CoreModuleMessage => (data as { type?: unknown } | null)?.type === 'core-module';

/** The compiled core by URL: compiled once per page, and reused by every worker restart. */
const compiled = new Map<string, Promise<CoreModuleMessage>>();

export function compileCoreModule(url: URL): Promise<CoreModuleMessage> {
  let message = compiled.get(url.href);
  if (!message) {
    message = compile(url).then(
      (module): CoreModuleMessage => ({ type: 'core-module', module }),
      (e: unknown): CoreModuleMessage => ({ type: 'core-module', module: null, problem: e instanceof Error ? e.message : String(e) }),
    );
    compiled.set(url.href, message);
  }
  return message;
}

async function compile(url: URL): Promise<WebAssembly.Module> {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url.pathname}: HTTP ${response.status}`);
  // Streaming compilation needs the server to say application/wasm; a static host that does not
  // still gets the core, compiled from the whole bytes.
  const streams = typeof WebAssembly.compileStreaming === 'function' && /^application\/wasm\b/i.test(response.headers.get('Content-Type') ?? '');
  return streams ? WebAssembly.compileStreaming(response) : WebAssembly.compile(await response.arrayBuffer());
}
