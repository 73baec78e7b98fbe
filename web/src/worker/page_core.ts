// The web page's one connection to its core worker. Started by boot.ts, the page's first and
// smallest script, so the worker's script and the wasm compile (core_module.ts) are under way while
// main.js is still loading and running; main.ts takes the same connection. Paths are taken from the
// page's address, not from this module's (esbuild may move it into a shared chunk).
import { sourcesFromQuery } from '../ui/sources';
import { WorkerConnection } from './worker_connection';

let connection: WorkerConnection | null = null;

export function pageCoreConnection(): WorkerConnection {
  if (!connection) {
    connection = new WorkerConnection(new URL('worker.js', document.baseURI));
    // A page opened with a pair's URLs asks for it as soon as the UI's script runs (main.ts).
    const query = sourcesFromQuery(location.search, location.href);
    if (query && typeof query !== 'string') connection.expectRequest();
  }
  return connection;
}
