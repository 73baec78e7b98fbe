// The Web Worker transport of CoreConnection. Cancelling a request that the worker is running ends
// the worker (wasm calls cannot be interrupted) and starts a fresh one; the open pair is then lost
// and `generation` goes up. It goes up too when the worker replaced its failed wasm instance (an
// error with `restarted`).
import { PendingTable, type CoreConnection, type PendingRequest, type RequestOptions } from '../protocol/connection';
import type { FromCore, Method, Params, Result, ToCore } from '../protocol/messages';
import { CORE_MODULE_HASH, compileCoreModule } from './core_module';
import type { HushMessage } from './weights_helper';

export class WorkerConnection implements CoreConnection {
  private worker!: Worker;
  private pending = new PendingTable();
  generation = 0;
  version = '';

  /** The worker's script, and the core's wasm beside it (compiled here: core_module.ts). */
  constructor(private readonly scriptUrl: URL, private readonly wasmUrl = new URL('visualquant_core.wasm', scriptUrl)) {
    this.startWorker();
  }

  private startWorker() {
    performance.mark('vq:core-starting');
    // The hash tells the worker that its wasm comes compiled from here (core_module.ts); other
    // hosts of the same script (the VS Code extension host's thread) fetch it themselves.
    const worker = new Worker(new URL(CORE_MODULE_HASH, this.scriptUrl), { type: 'module', name: 'visualquant-core' });
    this.worker = worker;
    void compileCoreModule(this.wasmUrl).then((message) => {
      try {
        worker.postMessage(message);
      } catch (e) {
        // A module that cannot cross (a browser that does not clone them): the worker fetches it.
        worker.postMessage({ type: 'core-module', module: null, problem: e instanceof Error ? e.message : String(e) });
      }
    });
    this.worker.onmessage = (event: MessageEvent<FromCore>) => this.receive(event.data);
    this.worker.onerror = (event) => {
      event.preventDefault();
      this.pending.rejectAll({ code: 'transport', message: event.message || 'the core worker failed' });
    };
  }

  private receive(message: FromCore) {
    if (message.type === 'ready') {
      this.version = message.version;
      performance.mark('vq:core-ready');  // for the page benchmark's stages (main.ts marks the rest)
      return;
    }
    if (message.type === 'error' && message.error.restarted) this.generation++;
    this.pending.settle(message);
  }

  /**
   * The page asks at once (it was opened with ?float=&quant=): the worker starts no idle warm-up and
   * no helper core. Sent before anything else, so it is seen before the core is up. Without it the
   * core could come up before the page's first request (the UI's script still loading on a busy
   * machine), take the page for idle, and start a warm-up round (0.1-0.3 s cold) and a helper core
   * beside the open and the drawing.
   */
  expectRequest(): void {
    this.worker.postMessage({ type: 'hush' } satisfies HushMessage);
  }

  request<M extends Method>(method: M, params: Params<M>, options: RequestOptions = {}): PendingRequest<Result<M>> {
    const { id, promise } = this.pending.add<Result<M>>(options, method);
    const message = { type: 'request', id, method, params } as ToCore;
    this.worker.postMessage(message, options.transfer ?? []);
    return { id, promise };
  }

  cancel(id: number): void {
    // The worker answers in order, so the oldest pending request is the one running (or about to).
    // One still waiting is dropped by the worker; the running one can only be ended with the worker.
    const restarted = this.pending.cancelInOrder(id, () => this.worker.postMessage({ type: 'cancel', id } satisfies ToCore), () => {
      this.worker.terminate();
      this.startWorker();
    });
    if (restarted) this.generation++;
  }

  dispose(): void {
    this.worker.terminate();
    this.pending.rejectAll({ code: 'cancelled', message: 'connection closed' });
  }
}
