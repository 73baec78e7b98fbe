// CoreConnection over a Node worker thread running the core (core_worker_node.ts), as the web page's
// WorkerConnection is over a Web Worker. Cancelling the request the core is running ends the thread
// (a wasm call cannot be interrupted) and starts a fresh one: `generation` goes up, the open pair is gone.
// The same happens, inside the thread, when its wasm instance fails (an error with `restarted`).
import { Worker } from 'node:worker_threads';
import { PendingTable, type CoreConnection, type PendingRequest, type RequestOptions } from '../../../web/src/protocol/connection';
import type { FromCore, Method, Params, Result, ToCore } from '../../../web/src/protocol/messages';

export class NodeCoreConnection implements CoreConnection {
  private worker!: Worker;
  private readonly pending = new PendingTable();
  private disposed = false;
  generation = 0;
  version = '';

  constructor(private readonly script: string) {
    this.start();
  }

  private start() {
    const worker = new Worker(this.script, { name: 'visualquant-core' });
    worker.on('message', (message: FromCore) => this.receive(message));
    worker.on('error', (e) => this.pending.rejectAll({ code: 'transport', message: `the core failed: ${e.message}` }));
    worker.on('exit', (code) => {
      if (this.disposed || worker !== this.worker) return;
      // Stopped by itself (out of memory, a crash): what it held is gone; the next request starts another.
      this.generation++;
      this.pending.rejectAll({ code: 'transport', message: `the core stopped (exit code ${code})` });
      this.start();
    });
    this.worker = worker;
  }

  private receive(message: FromCore) {
    if (message.type === 'ready') {
      this.version = message.version;
      return;
    }
    if (message.type === 'error' && message.error.restarted) this.generation++;
    this.pending.settle(message);
  }

  request<M extends Method>(method: M, params: Params<M>, options: RequestOptions = {}): PendingRequest<Result<M>> {
    const { id, promise } = this.pending.add<Result<M>>(options, method);
    this.worker.postMessage({ type: 'request', id, method, params } as ToCore, options.transfer ?? []);
    return { id, promise };
  }

  cancel(id: number): void {
    // As the web page's WorkerConnection: one waiting is dropped by the core, the running one ends the thread.
    this.pending.cancelInOrder(id, () => this.worker.postMessage({ type: 'cancel', id } satisfies ToCore), () => {
      const old = this.worker;
      this.generation++;
      this.start();
      void old.terminate();
    });
  }

  dispose(): void {
    this.disposed = true;
    void this.worker.terminate();
    this.pending.rejectAll({ code: 'cancelled', message: 'connection closed' });
  }
}
