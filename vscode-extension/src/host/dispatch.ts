// The protocol's host side: requests from a webview become calls on the core (a worker thread of the
// extension host), and their progress, results and errors go back with the webview's ids. Files named
// by reference are read here, next to the files, and handed to the core as transferred bytes: the
// webview never holds a model. External-data files are read when the core names one it lacks.
// Answers of the open pair or model are kept, so a webview that reloads (its tab hidden and shown
// again) gets them without the core loading anything again. No VS Code API here: the editor's parts
// come in through DispatchDeps, which the unit tests fake.
import { CoreRequestError, type CoreConnection } from '../../../web/src/protocol/connection';
import {
  isReference, type CoreError, type FilePayload, type FileReference, type FileSource, type FromCore, type Method, type Params,
  type ProgressMessage, type RequestMessage, type Result, type ToCore,
} from '../../../web/src/protocol/messages';

/** Files as the host reads them (vscode.workspace.fs in the extension). */
export interface HostFiles {
  /** Changes when the file does (size and modification time): part of the cache key. */
  version(ref: FileReference): Promise<string>;
  read(ref: FileReference, signal: AbortSignal, onProgress: (loaded: number, total: number) => void): Promise<Uint8Array>;
  /**
   * The file `name` (a relative path the core already checked) in the folder of `model`, if it exists.
   * Throws CoreRequestError('unsafe_external_path') when it is, or its path goes through, a symbolic link.
   */
  sibling(model: FileReference, name: string): Promise<FileReference | null>;
  /**
   * The path of a file on this machine's disk, which the core's thread then reads by range (a weight
   * at a time, never whole); null for a file elsewhere (a remote or virtual file system), read whole.
   */
  localPath?(ref: FileReference): string | null;
}

/** A progress notification (with its own Cancel) for the long requests. */
export interface ProgressDisplay {
  report(detail: string, fraction?: number): void;
  done(): void;
}

export interface DispatchDeps {
  core: CoreConnection;
  files: HostFiles;
  /** To the webview. */
  post(message: FromCore): void;
  /** Shows a long request (opening models); `cancel` runs when the user cancels it there. */
  showProgress?(title: string, cancel: () => void): ProgressDisplay;
}

/** Requests that load models: they read files, take long and get a progress notification. */
const LOADS: ReadonlySet<Method> = new Set<Method>(['open', 'openModel']);
/** Answers kept for the open pair or model (weightLayer is quick and asked per click). */
const KEPT: ReadonlySet<Method> = new Set<Method>(['open', 'openModel', 'labels', 'layout', 'layoutModel', 'weights', 'lint']);
const MAX_EXTERNAL_FILES = 64;

interface Running {
  abort: AbortController;
  /** The core's id once the request reached it. */
  coreId?: number;
}

const cancelled = (): CoreError => ({ code: 'cancelled', message: 'cancelled' });
const isCancel = (e: unknown) => e instanceof CoreRequestError && e.code === 'cancelled';

function errorOf(e: unknown): CoreError {
  if (e instanceof CoreRequestError) return { code: e.code, message: e.message, ...(e.restarted ? { restarted: true } : {}) };
  if (e instanceof DOMException && e.name === 'AbortError') return cancelled();
  const code = (e as { code?: unknown })?.code;
  // File system errors (vscode.FileSystemError, Node's ENOENT) are the core's 'io'.
  if (typeof code === 'string' && !/^(cancelled|not_found|no_open_pair|no_open_model)$/.test(code)) return { code: 'io', message: String((e as Error).message ?? e) };
  return { code: 'internal', message: e instanceof Error ? e.message : String(e) };
}

/** The external-data file the core says is missing, from its message. */
export function missingExternalName(error: CoreError): string | null {
  if (error.code !== 'missing_external_file') return null;
  return /external data file '([^']+)' does not exist/.exec(error.message)?.[1] ?? null;
}

export class HostDispatcher {
  private readonly running = new Map<number, Running>();
  private readonly kept = new Map<string, unknown>();
  /** The key of the open pair or model the kept answers belong to, and the core generation they came from. */
  private openKey = '';
  private keptGeneration: number;
  /** Ids for the extension's own requests (exports), below zero so that they never meet a webview's. */
  private nextOwnId = -1;
  /** Which load of the page is listening: answers due to an earlier one are dropped (its ids are reused). */
  private page = 0;

  constructor(private readonly deps: DispatchDeps) {
    this.keptGeneration = deps.core.generation;
  }

  /** A message from the webview. */
  receive(message: ToCore): void {
    if (message.type === 'cancel') return this.cancel(message.id);
    void this.answer(message);
  }

  /** A request from the extension itself (the export commands): kept answers when there are. */
  async call<M extends Method>(method: M, params: Params<M>): Promise<Result<M>> {
    return this.run({ type: 'request', id: this.nextOwnId--, method, params } as RequestMessage, () => undefined) as Promise<Result<M>>;
  }

  /**
   * The page (re)started. What the last load asked for still runs, and its answers are kept, but they
   * are not sent: the new page numbers its requests from 1 again.
   */
  newPage(): void {
    this.page++;
    for (const id of [...this.running.keys()]) if (id > 0) this.running.delete(id);
  }

  cancel(id: number): void {
    const r = this.running.get(id);
    if (r) this.stop(r);
  }

  private stop(r: Running): void {
    r.abort.abort();
    if (r.coreId !== undefined) this.deps.core.cancel(r.coreId);
  }

  dispose(): void {
    for (const r of [...this.running.values()]) this.stop(r);
  }

  private async answer(message: RequestMessage) {
    const page = this.page;
    const post = (m: FromCore) => {
      if (page === this.page) this.deps.post(m);
    };
    try {
      const result = await this.run(message, (p) => post({ ...p, id: message.id }));
      post({ type: 'result', id: message.id, method: message.method, result } as FromCore);
    } catch (e) {
      post({ type: 'error', id: message.id, error: errorOf(e) });
    }
  }

  private async run(message: RequestMessage, onProgress: (p: ProgressMessage) => void): Promise<unknown> {
    const { id, method } = message;
    const running: Running = { abort: new AbortController() };
    this.running.set(id, running);
    let display: ProgressDisplay | undefined;
    try {
      if (this.deps.core.generation !== this.keptGeneration) this.forget();  // the core restarted: nothing is open
      const key = await this.keyOf(message);
      if (key !== null && this.kept.has(key)) return this.kept.get(key);
      if (LOADS.has(method)) {
        display = this.deps.showProgress?.(`Opening ${this.namesOf(message).join(' and ')}`, () => this.stop(running));
        this.forget();
      }
      const progress = (p: ProgressMessage) => {
        onProgress(p);
        display?.report(p.detail, p.fraction);
      };
      const result = await this.withExternalFiles(message, running, progress);
      if (key !== null) {
        if (LOADS.has(method)) this.openKey = key;
        this.kept.set(key, result);
      }
      return result;
    } finally {
      display?.done();
      if (this.running.get(id) === running) this.running.delete(id);
    }
  }

  /**
   * Runs a request on the core. A load by reference gets the files' bytes, transferred (read again if
   * the core then names an external-data file it lacks, which is read from the model's folder too).
   */
  private async withExternalFiles(message: RequestMessage, running: Running, progress: (p: ProgressMessage) => void): Promise<unknown> {
    if (message.method !== 'open' && message.method !== 'openModel') return this.onCore(message.method, message.params, running, progress);
    const models = this.modelsOf(message).filter(isReference);
    const extra: FileReference[] = [];
    for (let attempt = 0; ; attempt++) {
      // External data on the local disk is read by the core's thread by range; the rest is read here.
      const onDisk = new Map(extra.flatMap((f) => {
        const p = this.deps.files.localPath?.(f);
        return p ? [[f, { name: f.name, path: p }] as const] : [];
      }));
      const read = await this.read([...models, ...extra.filter((f) => !onDisk.has(f))], running, progress);
      const resolve = (f: FileSource) => (isReference(f) ? read.get(f)! : f);
      const external = [...message.params.external, ...extra.map((f) => onDisk.get(f) ?? read.get(f)!)];
      const params = message.method === 'open'
        ? {
          first: resolve(message.params.first), second: resolve(message.params.second),
          ...(message.params.third ? { third: resolve(message.params.third) } : {}), external,
        }
        : { file: resolve(message.params.file), external };
      try {
        return await this.onCore(message.method, params, running, progress, [...read.values()].map((p) => p.bytes));
      } catch (e) {
        const name = e instanceof CoreRequestError ? missingExternalName(e) : null;
        if (!name || attempt >= MAX_EXTERNAL_FILES || extra.some((f) => f.name === name)) throw e;
        const file = await this.findSibling(models, name);
        if (!file) throw e;
        extra.push(file);
      }
    }
  }

  private async onCore(method: Method, params: unknown, running: Running, progress: (p: ProgressMessage) => void, transfer: ArrayBuffer[] = []) {
    if (running.abort.signal.aborted) throw new CoreRequestError('cancelled', 'cancelled');
    const request = this.deps.core.request(method, params as Params<Method>, { onProgress: progress, transfer });
    running.coreId = request.id;
    try {
      return await request.promise;
    } catch (e) {
      // The core was ended (cancelled) or replaced its failed instance: nothing is open there now.
      if (isCancel(e) || (e instanceof CoreRequestError && e.restarted)) this.forget();
      throw e;
    }
  }

  /** Reads files by reference (all together), with progress over their bytes. */
  private async read(refs: FileReference[], running: Running, progress: (p: ProgressMessage) => void): Promise<Map<FileReference, FilePayload>> {
    const loaded = refs.map(() => 0), totals = refs.map(() => 0);
    const names = refs.map((r) => r.name).join(' and ');
    const report = () => {
      const total = totals.reduce((a, b) => a + b, 0), done = loaded.reduce((a, b) => a + b, 0);
      progress({ type: 'progress', id: 0, stage: 'reading', detail: `reading ${names} (${mb(done)}${total ? ` of ${mb(total)}` : ''})`, ...(total ? { fraction: done / total } : {}) });
    };
    report();
    const out = new Map<FileReference, FilePayload>();
    await Promise.all(refs.map(async (ref, i) => {
      const bytes = await this.deps.files.read(ref, running.abort.signal, (l, t) => {
        loaded[i] = l;
        totals[i] = t;
        report();
      });
      out.set(ref, { name: ref.name, bytes: ownBuffer(bytes) });
    }));
    if (running.abort.signal.aborted) throw new CoreRequestError('cancelled', 'cancelled');
    return out;
  }

  private async findSibling(models: FileReference[], name: string): Promise<FileReference | null> {
    for (const m of models) {
      const f = await this.deps.files.sibling(m, name);
      if (f) return f;
    }
    return null;
  }

  private modelsOf(message: RequestMessage): FileSource[] {
    if (message.method === 'open') return [message.params.first, message.params.second, ...(message.params.third ? [message.params.third] : [])];
    if (message.method === 'openModel') return [message.params.file];
    return [];
  }

  private namesOf(message: RequestMessage): string[] {
    return this.modelsOf(message).map((f) => f.name);
  }

  /** The cache key of a request, or null when its answer is not kept. */
  private async keyOf(message: RequestMessage): Promise<string | null> {
    if (!KEPT.has(message.method)) return null;
    if (LOADS.has(message.method)) {
      const models = this.modelsOf(message);
      // Only loads by reference with no bytes given are kept (bytes from the page are the page's own).
      if (!models.every(isReference) || ('external' in message.params && message.params.external.length)) return null;
      const versions = await Promise.all(models.map((m) => this.deps.files.version(m as FileReference)));
      return `${message.method} ${JSON.stringify(models.map((m, i) => [(m as FileReference).ref, versions[i]]))}`;
    }
    if (!this.openKey) return null;
    return `${this.openKey} ${message.method} ${JSON.stringify(message.params)}`;
  }

  private forget() {
    this.kept.clear();
    this.openKey = '';
    this.keptGeneration = this.deps.core.generation;
  }
}

/** The bytes as an ArrayBuffer of their own (a Uint8Array may be a view into a larger one). */
function ownBuffer(bytes: Uint8Array): ArrayBuffer {
  if (bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && bytes.buffer instanceof ArrayBuffer) return bytes.buffer;
  return bytes.slice().buffer as ArrayBuffer;
}

function mb(bytes: number): string {
  return bytes >= 1 << 20 ? `${(bytes / (1 << 20)).toFixed(1)} MB` : `${Math.ceil(bytes / 1024)} KB`;
}
