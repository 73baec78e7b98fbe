// The web page's one connection to its core worker. Started by boot.ts, the page's first and
// smallest script, so the worker's script and the wasm compile (core_module.ts) are under way while
// main.js is still loading and running; main.ts takes the same connection. Paths are taken from the
// page's address, not from this module's (esbuild may move it into a shared chunk).
import { WorkerConnection } from './worker_connection';

let connection: WorkerConnection | null = null;

export function pageCoreConnection(): WorkerConnection {
  connection ??= new WorkerConnection(new URL('worker.js', document.baseURI));
  return connection;
}
