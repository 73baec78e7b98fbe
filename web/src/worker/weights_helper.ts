// A second core for the table's weight analysis, on the machine's other core. The wasm core has no
// threads (one instance runs on one core), while the native CLI analyses one weight per core; on
// the segmentation pair the page's analysis took twice the native time for that reason alone. The
// helper is this same worker script in a nested worker (a worker thread in the VS Code extension
// host): the core worker gives it the pair's files once it has opened them, and it analyses its
// share of the summary (OpenComparison.weightsShare) at once, while this worker lays the graphs out
// and the page draws them; its results come back a slice at a time, and this worker's own run absorbs them
// (the same report bytes: a pair is analysed the same way in either instance).
// Worth it only for pairs whose weights take a while: below HELPER_MIN_BYTES a second open costs
// more than it saves, and above HELPER_MAX_BYTES a second copy of the models costs too much memory.
// Neither core waits for the other: each, done with its own share, takes the other's pairs from
// the far end (its smallest, which the other reaches last), and this worker skips what the
// helper's results have settled. So the two meet wherever the work splits best (this worker also
// lays the graphs out), and a helper that fails or goes silent costs nothing: this worker analyses
// what is left itself. Once the table is done, the helper is told to end its share.
import { isPieces, type FilePayload, type FilePieces, type FromCore, type ProgressMessage, type ToCore } from '../protocol/messages';
import type { CoreModuleMessage } from './core_module';

/** The helper worker's name (`self.name`): a helper never starts a helper of its own. */
export const HELPER_NAME = 'visualquant-weights-helper';

/**
 * Both model files together at least this large. Measured in the page, files given (median of 3):
 * the segmentation pair (119 MB) was analysed 0.36 s sooner with a helper; the ResNet-18 pair
 * (59 MB, about 0.25 s of analysis) no sooner, and drawn 0.05 s later, the helper's open competing
 * with the drawing.
 */
export const HELPER_MIN_BYTES = 96 * 1024 * 1024;
/** ... and at most this: the helper holds its own copy of both. */
export const HELPER_MAX_BYTES = 512 * 1024 * 1024;

/** What the core worker needs of a worker: the browser's Worker, or the extension host's adapter of a worker thread. */
export interface HelperWorker {
  postMessage(message: unknown, transfer?: Transferable[]): void;
  onmessage: ((event: { data: unknown }) => void) | null;
  onerror: ((event: { message?: string; preventDefault?(): void }) => void) | null;
  terminate(): void;
}

/**
 * Sent to the helper when this worker gets a request: its idle warm-up ends at once, so that it does
 * not compete with the request for the cores (a core worker's own transport message, like the
 * compiled module's). The page sends it to its core worker too, first of all, when a request is
 * coming at once (WorkerConnection.expectRequest): no idle warm-up starts.
 */
export interface HushMessage {
  type: 'hush';
}
export const isHushMessage = (data: unknown): data is HushMessage => (data as { type?: unknown } | null)?.type === 'hush';

/**
 * Sent to the helper when the table it shares is done: it stops taking this worker's pairs (a
 * request waiting would end the share too, but none may come for a while).
 */
export interface EndShareMessage {
  type: 'end-share';
  /** The weightsShare request's id: the share ends even if this comes before it starts. */
  id: number;
}
export const isEndShareMessage = (data: unknown): data is EndShareMessage => (data as { type?: unknown } | null)?.type === 'end-share';

/** One of the pair's files as the helper is given it (transferred). */
export type HelperFile = FilePayload | FilePieces;

/** Starts a helper worker running this script. */
export type HelperFactory = () => HelperWorker;

/**
 * How a host without Web Workers starts a helper: the VS Code extension host's core thread (a Node
 * worker thread) sets a factory of nested worker threads here before the core's script runs
 * (vscode-extension/src/host/worker_globals.ts).
 */
export const helperThreads: { make: HelperFactory | null } = { make: null };

/** Whether a pair is worth a helper's open: `size` is both model files' bytes. */
export function helperWorthIt(size: number, external: number): boolean {
  if (external) return false;  // a large model's external data: read by range, not twice
  return size >= HELPER_MIN_BYTES && size <= HELPER_MAX_BYTES;
}

/** One pair's share analysed by the helper: its results as they come, and how it ended. */
export class HelperShare {
  private results: Uint8Array[] = [];
  /** The helper answered its share (or failed): no more results will come. */
  ended = false;

  /** `openId`: the helper's open of the pair just before, when there was one (its error ends the share too). */
  constructor(readonly id: number, private readonly openId: number | null = null) {}

  /** A message of the helper's, if it is about this share. */
  receive(message: FromCore): void {
    if (message.type === 'ready') return;
    // This share's messages, or an error of the open before it (the share then fails too).
    if (message.id !== this.id && !(message.type === 'error' && message.id === this.openId)) return;
    if (message.type === 'progress') {
      const results = (message as ProgressMessage).results;
      if (results) this.results.push(results);
    } else {
      this.ended = true;  // its result, or an error of the open or of the share
    }
  }

  /** The helper is gone: nothing more comes. */
  end(): void {
    this.ended = true;
  }

  /** The results received since the last call. */
  take(): Uint8Array[] {
    return this.results.splice(0);
  }
}

/**
 * The helper worker, started while the page is idle (its instance warms up as this worker's does)
 * and kept for later pairs; ended when it fails or a pair is too large for it. Not started while a
 * pair waits: a cold helper's start made the segmentation pair's drawing from URLs 0.1 s later, for
 * 0.1 s of analysis saved.
 */
export class WeightsHelper {
  private worker: HelperWorker | null = null;
  private nextId = 1;
  private share: HelperShare | null = null;
  /** The helper was given a pair (it holds a copy of its models until ended). */
  holdsPair = false;

  constructor(private readonly make: HelperFactory, private readonly coreModule: () => Promise<CoreModuleMessage>) {}

  /** Starts the helper's worker now (while nobody waits), so that its instance is warm for a pair. */
  warm(): void {
    if (this.worker) return;
    this.launch();
  }

  private launch(): void {
    let worker: HelperWorker;
    try {
      worker = this.make();
    } catch {
      return;  // no nested workers here: this worker analyses every weight itself
    }
    this.worker = worker;
    void this.coreModule().then((message) => {
      if (this.worker !== worker) return;
      try {
        worker.postMessage(message);
      } catch {
        worker.postMessage({ type: 'core-module', module: null } satisfies CoreModuleMessage);
      }
    });
    worker.onmessage = (event) => {
      if (this.worker === worker) this.share?.receive(event.data as FromCore);
    };
    worker.onerror = (event) => {
      event.preventDefault?.();
      if (this.worker === worker) this.stop();
    };
  }

  /**
   * Starts the helper's worker for a pair this worker is about to read (from URLs: its instance
   * starts while the files come, network time with a core to spare) or has just been given with no
   * helper running, without warm-up rounds (hushed at once); it is given the pair once the graphs
   * are drawn.
   */
  prepare(): void {
    if (this.worker) return;
    this.launch();
    this.hush();
  }

  /**
   * Gives the helper the pair this worker has opened, in the order given (the pieces this worker
   * read them in, or copies from its core: the files are read once), transferred, and has it
   * analyse share 1 of 2 of the summary right after its own open. Returns the share, or null when
   * no helper could take it.
   */
  start(first: HelperFile, second: HelperFile): HelperShare | null {
    this.share?.end();
    this.share = null;
    if (!this.worker) return null;
    const open = this.nextId++;
    this.holdsPair = true;
    const transfer = [first, second].flatMap((f) => (isPieces(f) ? f.pieces : [f.bytes]));
    this.worker.postMessage({ type: 'request', id: open, method: 'open', params: { first, second, external: [] } } satisfies ToCore, transfer);
    return this.share = this.ask({ part: 1, parts: 2 }, open);
  }

  /**
   * Has the helper, which holds the pair already (start), analyse share 1 of 2 of another report of
   * it: the full report with `bins` (the JSON export). Null when it holds no pair.
   */
  shareReport(run: { detail: boolean; bins: number }): HelperShare | null {
    this.share?.end();
    this.share = null;
    if (!this.worker || !this.holdsPair) return null;
    return this.share = this.ask({ part: 1, parts: 2, ...run }, null);
  }

  private ask(params: { part: number; parts: number; detail?: boolean; bins?: number }, openId: number | null): HelperShare {
    const id = this.nextId++;
    this.worker!.postMessage({ type: 'request', id, method: 'weightsShare', params } satisfies ToCore);
    return new HelperShare(id, openId);
  }

  /** The table the helper shares is done: it stops analysing (its pair stays open). */
  endShare(): void {
    if (!this.share) return;
    this.share.end();
    this.worker?.postMessage({ type: 'end-share', id: this.share.id } satisfies EndShareMessage);
    this.share = null;
  }

  /** This worker has work: the helper stops warming up (its instance and written memory stay). */
  hush(): void {
    this.worker?.postMessage({ type: 'hush' } satisfies HushMessage);
  }

  /** Ends the helper (a failure, or a pair too large for two copies): the next pair starts a fresh one. */
  stop(): void {
    this.share?.end();
    this.share = null;
    this.worker?.terminate();
    this.worker = null;
    this.holdsPair = false;
  }
}
