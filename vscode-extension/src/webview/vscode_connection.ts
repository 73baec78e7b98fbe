// The webview's CoreConnection: requests go to the extension host over postMessage, which answers
// them with the core next to the files (host/dispatch.ts). The same messages as the Web Worker's.
import { PendingTable, type CoreConnection, type PendingRequest, type RequestOptions } from '../../../web/src/protocol/connection';
import type { FromCore, Method, Params, Result } from '../../../web/src/protocol/messages';
import { vscodeApi } from './page_host';

export class VsCodeConnection implements CoreConnection {
  private readonly pending = new PendingTable();
  generation = 0;

  constructor() {
    window.addEventListener('message', (event: MessageEvent<FromCore>) => {
      if (event.data && typeof event.data === 'object') this.pending.settle(event.data);
    });
    // A reloaded page starts its ids again from 1: the host must not send it what the last load asked for.
    vscodeApi().postMessage({ type: 'hello' });
  }

  /** Nothing is transferred: the page never sends model bytes (the host reads the files). */
  request<M extends Method>(method: M, params: Params<M>, options: RequestOptions = {}): PendingRequest<Result<M>> {
    const { id, promise } = this.pending.add<Result<M>>(options, method);
    vscodeApi().postMessage({ type: 'request', id, method, params } as FromWebviewRequest);
    return { id, promise };
  }

  cancel(id: number): void {
    if (!this.pending.has(id)) return;
    // The host ends the core when the request was running there (the oldest one): what it held is gone.
    if (id === this.pending.oldest()) this.generation++;
    vscodeApi().postMessage({ type: 'cancel', id });
  }

  dispose(): void {
    this.pending.rejectAll({ code: 'cancelled', message: 'connection closed' });
  }
}

type FromWebviewRequest = Parameters<ReturnType<typeof vscodeApi>['postMessage']>[0];
