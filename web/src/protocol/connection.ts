// What the UI knows of the core: a CoreConnection. The Web Worker transport implements it here; the
// VS Code extension host will implement it over its webview messages.
import { BACKGROUND, type CoreError, type FromCore, type Method, type Params, type ProgressMessage, type Result } from './messages';

export interface RequestOptions {
  onProgress?: (progress: ProgressMessage) => void;
  /** ArrayBuffers among the params to transfer (they become unusable by the caller). */
  transfer?: ArrayBuffer[];
}

export interface PendingRequest<T> {
  id: number;
  promise: Promise<T>;
}

export interface CoreConnection {
  /** Sends a request; the promise rejects with a CoreRequestError. */
  request<M extends Method>(method: M, params: Params<M>, options?: RequestOptions): PendingRequest<Result<M>>;
  /**
   * Cancels a request: it rejects with code 'cancelled'. Cancelling a running request may reset the
   * core (open pair lost), except a BACKGROUND one, which ends after its current step.
   */
  cancel(id: number): void;
  /** Goes up when the core was reset (a running request cancelled, or its instance failed): models must be opened again. */
  readonly generation: number;
  dispose(): void;
}

export class CoreRequestError extends Error implements CoreError {
  /** The core was restarted by this failure (CoreError.restarted): what was open is gone. */
  readonly restarted: boolean;

  constructor(readonly code: CoreError['code'], message: string, restarted = false) {
    super(message);
    this.name = 'CoreRequestError';
    this.restarted = restarted;
  }
}

/** Book-keeping shared by transports: ids, pending promises, progress callbacks. */
export class PendingTable {
  private nextId = 1;
  private readonly pending = new Map<number, {
    resolve: (v: unknown) => void; reject: (e: CoreRequestError) => void; options: RequestOptions; background: boolean;
  }>();

  add<T>(options: RequestOptions, method?: Method): { id: number; promise: Promise<T> } {
    const id = this.nextId++;
    const background = method !== undefined && BACKGROUND.has(method);
    const promise = new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject, options, background });
    });
    return { id, promise };
  }

  has(id: number): boolean {
    return this.pending.has(id);
  }

  /** The id of the oldest request still pending that is not a BACKGROUND one (Maps keep insertion order). */
  oldest(): number | undefined {
    for (const [id, p] of this.pending) if (!p.background) return id;
    return undefined;
  }

  progress(message: ProgressMessage): void {
    this.pending.get(message.id)?.options.onProgress?.(message);
  }

  resolve(id: number, value: unknown): void {
    const p = this.pending.get(id);
    if (!p) return;
    this.pending.delete(id);
    p.resolve(value);
  }

  reject(id: number, error: CoreError): void {
    const p = this.pending.get(id);
    if (!p) return;
    this.pending.delete(id);
    p.reject(new CoreRequestError(error.code, error.message, error.restarted ?? false));
  }

  /** Settles what a message from the core answers: progress, a result or an error ('ready' is the transport's). */
  settle(message: FromCore): void {
    if (message.type === 'progress') this.progress(message);
    else if (message.type === 'result') this.resolve(message.id, message.result);
    else if (message.type === 'json-result') this.resolve(message.id, JSON.parse(message.json));
    else if (message.type === 'error') this.reject(message.id, message.error);
  }

  /**
   * Cancels a request of a core that answers in order: one still waiting, or a BACKGROUND one, is
   * dropped or ended by the core (`drop`); the running one, the oldest of the others, can only be
   * ended with the core (`restart`), which fails every pending request. True when the core was restarted.
   */
  cancelInOrder(id: number, drop: () => void, restart: () => void): boolean {
    if (!this.has(id)) return false;
    // A background request, running or waiting, ends when the core is told: never by a restart.
    if (this.pending.get(id)!.background || id !== this.oldest()) {
      drop();
      return false;
    }
    restart();
    this.rejectAll({ code: 'cancelled', message: 'cancelled' });
    return true;
  }

  rejectAll(error: CoreError): void {
    for (const id of [...this.pending.keys()]) this.reject(id, error);
  }
}
