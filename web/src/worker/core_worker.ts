// The Web Worker that hosts the wasm core. It loads the Emscripten module, answers the protocol's
// requests one at a time, and keeps the open pair between requests (in the core, which holds its
// own copy of the bytes: layouts reuse the alignment, nothing is loaded twice).
// Requests wait in a queue, one per task, so a 'cancel' for one still waiting is seen in time.
// Results go back as the core's JSON text, parsed by the receiver (protocol/connection.ts): a string
// crosses to the page as one copy, where a parsed 20,000-node report is cloned object by object, and
// this thread does not parse it first.
// An activation comparison runs in the background (messages.ts, BACKGROUND): between its model
// runs the other requests are answered, a cancel ends it after the run in progress, and opening
// other models ends it first (it reads the open pair).
// A request on which the wasm instance fails (not with the core's own error: a trap, a stack
// overflow) gets an error with `restarted`, and the instance is replaced (live_core.ts): what it had
// open is dropped, and the next request runs on a fresh one.
import { HeapFile, RangeFile, VisualQuantError, VisualQuantInstanceFailure, type ModelLayoutViews, type OpenComparison, type VisualQuant, type WeightsRunOptions, type WeightsSlice } from 'visualquant-core';
import {
  BACKGROUND, isOnDisk, isPieces, isReference, isStream, type CompareReport, type CoreError, type FileSource, type FromCore, type LayoutView, type Method, type PairName, type Params, type ProgressMessage, type RequestMessage,
  type Result, type ToCore,
} from '../protocol/messages';
import { runActivationJob } from './activation_job';
import { mixedModelOf, runSensitivityJob } from './sensitivity_job';
import { LiveCore } from './live_core';
import { CORE_MODULE_HASH, isCoreModuleMessage, type CoreModuleMessage } from './core_module';
import { resetOrt } from './ort_engine';
import { dropPrefetched, fetchSource, prefetchUrls } from './url_prefetch';
import { heldFileRefusal } from '../protocol/file_limits';
import { nextTask } from './next_task';
import { rangeFileOfBlob, rangeFileOfPath, rangeFileOfUrl, releaseRangeResponses } from './range_files';
import { WARM_WHILE_READING_BYTES, warmUpUntilRequested, warmWhileReading } from './warm_up';
import { HELPER_MAX_BYTES, HELPER_MIN_BYTES, HELPER_NAME, helperThreads, helperWorthIt, isEndShareMessage, isHushMessage, WeightsHelper, type EndShareMessage, type HelperFactory, type HelperFile, type HelperShare, type HushMessage } from './weights_helper';
import { KeptPieces } from './kept_pieces';

interface OpenPair {
  comparison: OpenComparison;
  /** "float.onnx and quant.onnx", for errors. */
  names: string;
  /** The weights summary's JSON text, kept: the table and the heat overlay ask for it again. */
  weights?: string;
  /** Labels JSON text by view: the logical view's is made ahead, right after the open (see open). */
  labels: Partial<Record<LayoutView, string>>;
  /** The last activation comparison of this pair's own models (not a what-if), as JSON text: the three-way table reads it. */
  activations?: string;
  /** The helper core's share of a weight report being made (weights_helper.ts), when one took it. */
  helperShare?: HelperShare | null;
  /** The helper core was given this pair: it can share the full report (the JSON export) too. */
  helperHolds?: boolean;
  /**
   * The files, when the pair is worth a helper: it is given the pair when the summary is asked,
   * after the drawing (planHelper). As the pieces they were read in when those were kept
   * (KeptPieces), else by name (copied out of this core's memory then).
   */
  helperLater?: [HelperFile | string, HelperFile | string] | null;
}

const scope = self as unknown as { postMessage(message: FromCore): void; onmessage: ((e: MessageEvent<ToCore | CoreModuleMessage | HushMessage | EndShareMessage>) => void) | null };
const post = (message: FromCore) => scope.postMessage(message);

let live: LiveCore | null = null;
let pair: OpenPair | null = null;
/** A three-way comparison's second pair: the same float model and version B (pair 'B'). */
let pairB: OpenPair | null = null;
/** The open three-way table's JSON text, once made. */
let threeWay: string | null = null;
/** The single-model viewer's model, loaded once in the core for its layouts and node details. */
let model: { name: string; views: ModelLayoutViews } | null = null;
const queue: RequestMessage[] = [];
let draining = false;
/** The background request running (an activation comparison), if any. */
let background: { id: number; abort: AbortController; done: Promise<void> } | null = null;
/** A request has come: the idle warm-up (warm_up.ts) is over. */
let requested = false;
/** Ends the idle warm-up now, giving back the memory it made resident for the request to use. */
let stopWarmUp: (() => void) | null = null;
/** In a helper: the last share (its request id) whose asking core has its table done (end-share). */
let sharesEndedUpTo = 0;

function progress(id: number, stage: ProgressMessage['stage'], detail: string, fraction?: number) {
  post({ type: 'progress', id, stage, detail, ...(fraction === undefined ? {} : { fraction }) });
}

function errorOf(e: unknown): CoreError {
  if (e instanceof VisualQuantError) return { code: e.code, message: e.message };
  const code = (e as { code?: unknown })?.code;
  if (typeof code === 'string') return { code: code as CoreError['code'], message: String((e as Error).message) };
  // This thread's own JavaScript hitting a size limit (a report too long for one string): a failure
  // of the wasm instance is a VisualQuantInstanceFailure, handled apart (failureError).
  if (e instanceof RangeError && !/call stack/i.test(e.message)) return { code: 'out_of_memory', message: String(e) };
  return { code: 'internal', message: e instanceof Error ? e.message : String(e) };
}

/** What a request was doing, with the files it was about: "loading a.onnx and b.onnx". */
function activityOf(message: RequestMessage): string {
  if (message.method === 'open') return `loading ${namesOf([message.params.first, message.params.second, ...(message.params.third ? [message.params.third] : [])])}`;
  if (message.method === 'openModel') return `loading ${message.params.file.name}`;
  const ofModel = message.method === 'layoutModel' || (message.method === 'node' && !message.params.side);
  const subject = ofModel ? model?.name : pair?.names;
  return `answering '${message.method}'${subject ? ` for ${subject}` : ''}`;
}

/**
 * The error for a request on which the instance failed: memory that ran out is 'out_of_memory', any
 * other failure 'core_failed'; either way the instance is being replaced (`restarted`).
 */
function failureError(failure: VisualQuantInstanceFailure, message: RequestMessage): CoreError {
  const cause = failure.cause instanceof Error ? `${failure.cause.name}: ${failure.cause.message}` : String(failure.cause);
  const text = `${cause}, while ${activityOf(message)}`;
  return failure.outOfMemory
    ? { code: 'out_of_memory', message: `${text}; the core has been restarted`, restarted: true }
    : { code: 'core_failed', message: text, restarted: true };
}

/**
 * The instance failed: nothing it opened is used again (not even to close it: its memory is corrupt),
 * and a fresh one starts; requests wait for it in the queue.
 */
function replaceCore() {
  pair = null;
  pairB = null;
  threeWay = null;
  model = null;
  live!.start().catch(coreDidNotStart);
}

function requirePair(name: PairName = 'A'): OpenPair {
  const p = name === 'B' ? pairB : pair;
  if (!p) throw Object.assign(new Error(name === 'B' ? 'open three models first' : 'open two models first'), { code: 'no_open_pair' });
  return p;
}

/** "a.onnx, b.onnx and c.onnx". */
function namesOf(files: Array<{ name: string }>): string {
  const names = files.map((f) => f.name);
  return names.length < 2 ? names.join('') : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
}

/**
 * The helper core (weights_helper.ts): started while the page is idle; a helper never starts one
 * of its own.
 */
const isHelper = (self as unknown as { name?: string }).name === HELPER_NAME;
function browserHelper(): ReturnType<HelperFactory> {
  return new Worker(new URL(CORE_MODULE_HASH, self.location.href), { type: 'module', name: HELPER_NAME }) as unknown as ReturnType<HelperFactory>;
}
// The browser's nested workers; the VS Code extension host's core thread (no Worker there) sets a
// factory of nested worker threads (helperThreads).
const helperFactory: HelperFactory | null = isHelper ? null : typeof Worker === 'function' ? browserHelper : helperThreads.make;
// The module message is read when the helper starts (coreModule is set further down).
const helper = helperFactory ? new WeightsHelper(helperFactory, async () => {
  const given = await coreModule;
  return given.module || !ownModule ? given : { type: 'core-module', module: ownModule };
}) : null;

/**
 * Whether a pair just opened is worth the helper. When it is, the helper is given the pair once the
 * graphs are drawn, when the summary is asked (lateHelper), however early it started: giving it
 * the pair here copies the files out of this core's memory before the open's answer goes, and the
 * helper's own open then competes with the layout and the drawing for the two cores. The
 * segmentation pair given to a page idle for 2 s (the helper warm), alternated, 8 opens each: painted
 * 261-317 -> 187-229 ms after the file came, weights and lint as soon (median 635 / 647 ms). From
 * URLs, giving it the pair at the open made the drawing 0.1 s later. Otherwise a helper holding an
 * earlier pair is ended (its copy of the models goes), and so is an idle one when this pair is large.
 */
function planHelper(opened: OpenPair, first: FileSource, second: FileSource, external: FileSource[], kept: KeptPieces | null): void {
  if (!helper) return;
  const [a, b] = opened.comparison.givenFiles();
  const size = a.byteLength + b.byteLength;
  if (helperWorthIt(size, external.length)) {
    const pieces = kept?.take([first.name, second.name]);
    opened.helperLater = pieces ? [pieces[0], pieces[1]] : [first.name, second.name];
    return;
  }
  kept?.decide(false);
  if (helper.holdsPair || external.length || size > HELPER_MAX_BYTES) helper.stop();
}

/**
 * The helper given the pair's files: the pieces kept as they were read, or copies from this core's
 * memory. Null when it is not running.
 */
function startHelper(opened: OpenPair, files: [HelperFile | string, HelperFile | string]): HelperShare | null {
  const given = opened.comparison.givenFiles();
  const [first, second] = files.map((f, i) => (typeof f === 'string' ? { name: f, bytes: given[i].slice().buffer } : f));
  const share = helper?.start(first, second) ?? null;
  opened.helperHolds = share !== null;
  return share;
}

/**
 * The helper for a pair worth one (helperLater), given the pair now: warm when it started while the
 * page was idle or while the files came, else started now, cold. Its start and open take a fraction
 * of the summary's time on such a pair, and neither core waits for the other (each takes the
 * other's pairs once done with its own share).
 */
function lateHelper(p: OpenPair): HelperShare | null {
  const files = p.helperLater;
  p.helperLater = null;
  if (!files || !helper) return null;
  helper.prepare();
  return startHelper(p, files);
}

/** The pair is read from URLs (the page was opened with ?float=&quant=). */
const fromUrls = (first: FileSource, second: FileSource) => [first, second].some((f) => isStream(f) && f.url !== undefined);

/** A model file's size when it is known before reading it (given bytes, a picked file), else 0. */
function sizeKnown(f: FileSource): number {
  if (isStream(f)) return f.blob?.size ?? 0;
  return 'bytes' in f && f.bytes instanceof ArrayBuffer ? f.bytes.byteLength : 0;
}

/**
 * A helper's results taken into the pair's run; on bytes it refuses (a helper gone wrong),
 * the helper is ended and this core analyses the rest itself (null).
 */
function absorbHelperResults(p: OpenPair, results: Uint8Array, run: WeightsRunOptions): WeightsSlice | null {
  try {
    return p.comparison.weightsAbsorb(results, run);
  } catch (e) {
    if (!(e instanceof VisualQuantError)) throw e;
    helper?.stop();
    p.helperShare = null;
    p.helperHolds = false;
    return null;
  }
}

/**
 * A weight report made a slice at a time (the table's summary, or the full report), with this
 * thread's event loop between slices: the range reads' responses of the weights done are given back
 * there, not held to the end of one call (gigabytes on a 4 GB pair). Requests wait meanwhile (drain
 * runs one at a time), so the pair stays open. Each slice goes to `show` as it is found (the table
 * fills while the rest are analysed). With a helper core's share, this core leads with its own share
 * and takes the helper's results in as they come; done with its share, it takes the helper's pairs
 * from the far end in small slices (the two meet with little analysed twice), and if the helper
 * fails, it does the rest. Once done, the helper is told the report is made.
 */
async function sharedRun(p: OpenPair, run: WeightsRunOptions, onProgress: ReturnType<typeof weightsProgress>, show: (slice: WeightsSlice) => void) {
  const share = p.helperShare;
  if (share) p.comparison.weightsShare(0, 2, run);
  let done = false, shareDone = false;
  while (!done) {
    for (const results of p.helperShare?.take() ?? []) {
      const slice = absorbHelperResults(p, results, run);
      if (!slice) break;
      ({ done, shareDone } = slice);
      show(slice);
    }
    if (done) break;
    const slice = p.comparison.weightsSlice(share && shareDone ? WEIGHTS_SHARED_SLICE_PARAMETERS : WEIGHTS_SLICE_PARAMETERS, { ...run, onProgress });
    ({ done, shareDone } = slice);
    show(slice);
    await betweenSteps();
  }
  if (share && p.helperShare === share) helper?.endShare();
  p.helperShare = null;
}

/** Closes what is open: a comparison's pairs and its three-way table. */
function closePairs() {
  pair?.comparison.close();
  pairB?.comparison.close();
  pair = pairB = null;
  threeWay = null;
}

/** Told when the files' sizes are known (onSizes: loadAll), and when they are all read (or failed). */
interface Reading {
  onSizes(bytes: number): void;
  onRead(): void;
}

/** Loads two models and aligns them: an open pair (not yet the worker's own). */
async function openPair(vq: VisualQuant, first: FileSource, second: FileSource, external: FileSource[], id: number, reading?: Reading, kept?: KeptPieces): Promise<OpenPair> {
  const { models: [a, b], external: rest } = await loadAll(vq, [first, second], id, external, reading?.onSizes, kept).finally(() => reading?.onRead());
  const names = `${first.name} and ${second.name}`;
  progress(id, 'aligning', `loading and aligning ${names}`);
  let comparison;
  try {
    // In steps, the event loop running between them: the range reads of a large pair's weights
    // give their responses back only then (a 7B pair held 2.4 GB of them in one call).
    comparison = await vq.openInSteps(a, first.name, b, second.name, externalOf(external, rest), {
      stepBytes: ALIGN_STEP_BYTES,
      between: async ({ ops, digested }) => {
        progress(id, 'aligning', `sampling the weights of ${names}: ${digested} of ${ops} operators`, digested / ops);
        await betweenSteps();
      },
    });
  } finally {
    for (const l of [a, b, ...rest]) if (l instanceof HeapFile) l.free();  // what open() did not take
  }
  return { comparison, names: `${first.name} and ${second.name}`, labels: {} };
}

const usage = (message: string) => Object.assign(new Error(message), { code: 'usage' });

/**
 * A three-way comparison of three models in any order: the float one is the hub, found by the
 * core's reading of their content (the first two aligned tell which of them is float, or that both
 * are quantized, when the third must be). Each pair loads the float model again: a comparison owns
 * its models. Sets `pair` (float, A) and `pairB` (float, B); versions A and B keep the order given.
 */
async function openThreeWay(vq: VisualQuant, files: [FileSource, FileSource, FileSource], external: FileSource[], id: number) {
  const caseOf = (p: OpenPair) => JSON.parse(p.comparison.report) as Pick<CompareReport, 'case' | 'float' | 'argument_order_swapped'>;
  const all = namesOf(files);
  const refuse = (why: string) => usage(`a three-way comparison takes one float model and two quantized versions of it: ${why}`);
  let a = await openPair(vq, files[0], files[1], external, id);
  try {
    let hub: FileSource, versionA: FileSource, versionB: FileSource;
    const first = caseOf(a);
    if (first.case === 'float_vs_quantized') {
      [hub, versionA] = first.argument_order_swapped ? [files[1], files[0]] : [files[0], files[1]];
      versionB = files[2];
    } else if (first.case === 'quantized_vs_quantized') {
      a.comparison.close();
      [hub, versionA, versionB] = [files[2], files[0], files[1]];
      a = await openPair(vq, hub, versionA, external, id);
      const again = caseOf(a);
      if (again.case !== 'float_vs_quantized' || again.argument_order_swapped) throw refuse(`none of ${all} is float`);
    } else {
      throw refuse(`${files[0].name} and ${files[1].name} are both float`);
    }
    const b = await openPair(vq, hub, versionB, external, id);
    const third = caseOf(b);
    if (third.case !== 'float_vs_quantized' || third.argument_order_swapped) {
      b.comparison.close();
      throw refuse(third.case === 'float_vs_float' ? `${versionB.name} is float too` : `${hub.name} and ${versionB.name} are not a float model and its quantized version`);
    }
    pair = a;
    pairB = b;
    return { hub, versionA, versionB };
  } catch (e) {
    if (pair !== a) a.comparison.close();
    throw e;
  }
}


function requireModel() {
  if (!model) throw Object.assign(new Error('open a model first'), { code: 'no_open_model' });
  return model;
}

/** A model file, held whole in the core's memory. */
type Held = Uint8Array | HeapFile;
/** Any file: external data may be read by range. */
type Loaded = Held | RangeFile;

/**
 * A file's bytes for the core: given (FilePayload), or read here chunk by chunk straight into its
 * memory (FileStream: a picked File, a same-origin URL), with the bytes read so far as progress.
 */
async function load(vq: VisualQuant, f: FileSource, onRead: (bytes: number, total: number) => void, external = false, onSize?: (total: number) => void,
  keep?: (piece: Uint8Array | ArrayBuffer) => void): Promise<Loaded> {
  // References are the host's to read (the VS Code extension host resolves them before they get here).
  if (isReference(f)) throw Object.assign(new Error(`${f.name}: this core cannot read files by reference`), { code: 'usage' });
  if (isOnDisk(f)) {
    if (!external) throw Object.assign(new Error(`${f.name}: a model file is given by its bytes, only external data by its path`), { code: 'usage' });
    return rangeFileOf(f.name, () => rangeFileOfPath(f.name, f.path));
  }
  if (isPieces(f)) {
    const total = f.pieces.reduce((n, p) => n + p.byteLength, 0);
    refuseTooLargeToHold(f.name, total);
    onSize?.(total);
    const file = vq.heapFile(total);
    try {
      for (const piece of f.pieces) file.write(new Uint8Array(piece));
    } catch (e) {
      file.free();
      throw e;
    }
    return file;
  }
  if (!isStream(f)) {
    onSize?.(f.bytes.byteLength);
    keep?.(f.bytes);
    return new Uint8Array(f.bytes);
  }
  // External data is read by range, a weight at a time, when the core reads it (range_files.ts).
  if (external && f.blob) return rangeFileOf(f.name, () => rangeFileOfBlob(f.name, f.blob!));
  if (external) {
    const ranged = await rangeFileOf(f.name, () => rangeFileOfUrl(f.name, f.url!));
    if (ranged) return ranged;
  }
  let stream: ReadableStream<Uint8Array>, total: number;
  if (f.blob) {
    stream = f.blob.stream();
    total = f.blob.size;
  } else {
    const response = await fetchSource(f).catch((e: unknown) => {
      throw Object.assign(new Error(`${f.name}: ${e instanceof Error ? e.message : String(e)}`), { code: 'io' });
    });
    if (!response.ok || !response.body) throw Object.assign(new Error(`${f.name}: HTTP ${response.status} ${response.statusText}`), { code: 'io' });
    stream = response.body;
    total = Number(response.headers.get('content-length')) || 0;  // a hint: compressed bodies are longer
  }
  try {
    refuseTooLargeToHold(f.name, total);
  } catch (e) {
    await stream.cancel();
    throw e;
  }
  onSize?.(total);
  const file = vq.heapFile(total);
  try {
    const reader = stream.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      file.write(value);
      keep?.(value);
      onRead(value.byteLength, total);
    }
    return file;
  } catch (e) {
    file.free();
    if (e instanceof VisualQuantError) throw e;
    // A browser says "permission problems" (NotReadableError) when a picked file changed or went.
    const why = e instanceof DOMException && e.name === 'NotReadableError' ? 'it could not be read: was it moved, changed or deleted since it was given?'
      : e instanceof Error ? e.message : String(e);
    throw Object.assign(new Error(`${f.name}: ${why}`), { code: 'io' });
  }
}

/** A range reader made by `make`, its failure an 'io' error that names the file. */
async function rangeFileOf<T>(name: string, make: () => T | Promise<T>): Promise<T> {
  try {
    return await make();
  } catch (e) {
    if (typeof (e as { code?: unknown })?.code === 'string') throw e;
    throw Object.assign(new Error(`${name}: ${e instanceof Error ? e.message : String(e)}`), { code: 'io' });
  }
}

/** A model file too large to hold whole is refused before any of it is read (protocol/file_limits.ts). */
function refuseTooLargeToHold(name: string, size: number) {
  const refusal = heldFileRefusal(name, size);
  if (refusal) throw Object.assign(new Error(refusal), { code: 'out_of_memory' });
}

/**
 * Every file loaded, with one progress line over all of them; on a failure, what was read is freed.
 * The files are read at the same time: one after the other, the second URL's body waited behind
 * the first (the network holds little of a body nobody reads), and two 80 and 40 MB models took
 * the sum of their times rather than about the longer one's. The model files (`files`) are read
 * whole; `external` data becomes range readers where it can (load).
 */
/**
 * `onSizes`: told once, with the model files' bytes together, when every one's size is known (a URL's
 * from its response's length, 0 when it has none), before their bodies are read. `kept`: the model
 * files' pieces as read, for the helper core (KeptPieces, in the order of `files`).
 */
async function loadAll(vq: VisualQuant, files: FileSource[], id: number, external: FileSource[], onSizes?: (bytes: number) => void,
  kept?: KeptPieces): Promise<{ models: Held[]; external: Loaded[] }> {
  // Each file read whole, once its first bytes come: its name, bytes read and size once known (a
  // URL's length is a hint). Files read by range never come: they are read with the weights.
  const reads: Array<{ name: string; read: number; total: number; done: boolean }> = [];
  let shown = 0;
  const show = () => {
    const now = performance.now();
    if (now - shown < 100) return;
    shown = now;
    const read = reads.reduce((n, r) => n + r.read, 0), total = reads.every((r) => r.total > 0) ? reads.reduce((n, r) => n + r.total, 0) : 0;
    const reading = reads.filter((r) => !r.done).map((r) => `${r.name} ${mb(r.read)}${r.total ? ` of ${mb(r.total)}` : ''}`);
    progress(id, 'reading', `reading ${reading.join(', ') || mb(read)}`, total ? Math.min(1, read / total) : undefined);
  };
  const sizes: number[] = [];
  const sized = (total: number) => {
    sizes.push(total);
    if (sizes.length === files.length) onSizes?.(sizes.includes(0) ? 0 : sizes.reduce((a, b) => a + b, 0));
  };
  const track = (f: FileSource, external: boolean, index: number) => {
    const entry = { name: f.name, read: 0, total: 0, done: false };
    const keep = kept && !external ? (piece: Uint8Array | ArrayBuffer) => kept.add(index, piece) : undefined;
    return load(vq, f, (bytes, total) => {
      if (!reads.includes(entry)) reads.push(entry);
      entry.read += bytes;
      entry.total = total;
      show();
    }, external, external ? undefined : sized, keep).finally(() => {
      entry.done = true;
    });
  };
  const settled = await Promise.allSettled([...files.map((f, i) => track(f, false, i)), ...external.map((f, i) => track(f, true, i))]);
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (!failed) {
    const loaded = settled.map((s) => (s as PromiseFulfilledResult<Loaded>).value);
    return { models: loaded.slice(0, files.length) as Held[], external: loaded.slice(files.length) };
  }
  for (const s of settled) if (s.status === 'fulfilled' && s.value instanceof HeapFile) s.value.free();
  throw failed.reason;
}

/**
 * The weight analysis' progress callback: layer by layer, at most ten messages a second, as
 * "<what>: 12 of 50 layers" with the parameters done as the fraction (the page shows how far it is).
 */
function weightsProgress(id: number, stage: ProgressMessage['stage'], what: string) {
  let shown = 0;
  return (done: number, layers: number, parametersDone: number, parameters: number) => {
    const now = performance.now();
    if (now - shown < 100 && done < layers) return;
    shown = now;
    progress(id, stage, `${what}: ${done} of ${layers} layers`, parameters ? parametersDone / parameters : done / Math.max(layers, 1));
  };
}

/**
 * Parameters of weights analysed per slice of the table's weight analysis: about 20 MB of float32
 * and int8 reads, tens of milliseconds. A model of up to this many parameters (ResNet-18's 11 M
 * less than three slices) yields a couple of times at most; a 4 GB pair about two hundred times, at
 * a few milliseconds each. A larger slice (16 M) gave the same peak memory on that pair: the peak
 * is now its largest single weights (the 262 MB embedding), read in one call.
 */
const WEIGHTS_SLICE_PARAMETERS = 4 * 1024 * 1024;
/**
 * The same for a core sharing the table (weights_helper.ts) once its own share is done and it takes
 * the other's pairs: smaller, so that each learns sooner what the other has settled and the two
 * analyse little twice where they meet.
 */
const WEIGHTS_SHARED_SLICE_PARAMETERS = 1024 * 1024;
/** Stored weight bytes digested per step of the alignment (openInSteps); a small pair takes one step. */
const ALIGN_STEP_BYTES = 32 * 1024 * 1024;

/** Between two steps of a long job: the range reads' responses let go, then a later task. */
const betweenSteps = () => {
  releaseRangeResponses();
  return nextTask();
};

const mb = (bytes: number) => `${(bytes / 1e6).toFixed(bytes < 1e7 ? 1 : 0)} MB`;

function externalOf(external: FileSource[], loaded: Loaded[]): Record<string, Loaded> {
  const files: Record<string, Loaded> = {};
  external.forEach((f, i) => { files[f.name] = loaded[i]; });
  return files;
}

/** JSON text of a method's result. */
type JsonOf<_R> = string;
type Handler<M extends Method> = (params: Params<M>, id: number, signal: AbortSignal) => JsonOf<Result<M>> | Promise<JsonOf<Result<M>>>;

/** `{"<key>": <the core's JSON text>, "version": "<version>"}` without parsing the text. */
const withVersion = (key: string, text: string, version: string) => `{"${key}":${text.trimEnd()},"version":${JSON.stringify(version)}}`;
const handlers: { [M in Method]: Handler<M> } = {
  async open({ first, second, third, external }, id) {
    const vq = live!.current!;
    closePairs();
    // A pair no helper takes, known before reading it: an idle helper's memory goes before this
    // core's open needs it (the 7B pair's open peaked within 0.03 GB of the page's limit without one).
    if (external.length || [first, second, ...(third ? [third] : [])].some((f) => sizeKnown(f) > HELPER_MAX_BYTES)) helper?.stop();
    if (third) {
      await openThreeWay(vq, [first, second, third], external, id);
      const [a, b] = [pair!, pairB!];
      return `{"report":${a.comparison.report.trimEnd()},"versionB":${b.comparison.report.trimEnd()},"version":${JSON.stringify(vq.version)}}`;
    }
    // A pair worth a helper, and none running: its instance starts now, for the table later; from
    // URLs once the responses say how large the files are, while their bodies come (a size not
    // said counts as worth it). A small pair's helper only competed with its open and drawing for
    // the two cores: on a fixture pair from URLs its start (script, instance) fell during the
    // alignment.
    const prepareIfWorthIt = (bytes: number) => {
      if (helperWorthIt(bytes, external.length)) helper?.prepare();
    };
    // The files' pieces kept for the helper as they are read (KeptPieces), when the pair is worth
    // one: known now when the sizes are, from URLs once the responses say (an unknown size: not).
    const kept = helper ? new KeptPieces(2) : null;
    const keepIfWorthIt = (bytes: number) => kept?.decide(bytes > 0 && helperWorthIt(bytes, external.length));
    const urls = fromUrls(first, second);
    if (!urls) {
      const given = sizeKnown(first) + sizeKnown(second);
      prepareIfWorthIt(given);
      keepIfWorthIt(given);
    }
    // From URLs, a large pair's bytes take a while: the core warms up meanwhile (warm_up.ts).
    let read = false;
    const reading: Reading = {
      onSizes: (bytes) => {
        prepareIfWorthIt(bytes || HELPER_MIN_BYTES);
        keepIfWorthIt(bytes);
        if (!bytes || bytes >= WARM_WHILE_READING_BYTES) warmWhileReading(vq, () => !read);
      },
      onRead: () => { read = true; },
    };
    const opened = await openPair(vq, first, second, external, id, urls ? reading : undefined, kept ?? undefined);
    // The helper gets the pair once it is drawn (planHelper). (Given the files with this core's, it
    // made the segmentation pair's drawing 0.06 s later: both read them through the browser at once.)
    planHelper(opened, first, second, external, kept);
    pair = opened;
    const comparison = opened.comparison;
    // The page's next request is the labels of its view (the logical one unless the user chose the
    // raw graph): made while the page parses this report, unless another request waits. If the
    // instance fails here, the page's labels request reports it: it finds the instance failed.
    setTimeout(() => {
      if (pair !== opened || draining || queue.length !== 0) return;
      try {
        opened.labels.logical ??= comparison.labels({ view: 'logical' });
      } catch {
        // Nothing kept: the page's own labels request asks again.
      }
    }, 0);
    return withVersion('report', comparison.report, vq.version);
  },
  layout({ pair: name, ...params }, id) {
    const p = requirePair(name);
    progress(id, 'layout', `laying out ${p.names} (${params.view === 'nodes' ? 'every node' : 'Q/DQ folded'})`);
    return p.comparison.layout(params);
  },
  labels({ view, pair: name }) {
    const p = requirePair(name);
    return (p.labels[view] ??= p.comparison.labels({ view }));
  },
  threeWay({ activations }, id) {
    const a = requirePair(), b = requirePair('B');
    const onProgress = weightsProgress(id, 'versions', 'analysing weights for the versions table');
    if (!activations) return (threeWay ??= a.comparison.threeWay(b.comparison, { onProgress }));
    if (!a.activations || !b.activations) throw usage('run the activation comparison of both versions first');
    return a.comparison.threeWay(b.comparison, { onProgress, activations: [a.activations, b.activations] });
  },
  async weights({ bins, detail }, id) {
    const p = requirePair();
    progress(id, 'weights', 'analysing every quantized weight');
    const summary = !detail && bins === undefined;
    if (summary && p.weights !== undefined) return p.weights;
    if (summary) p.helperShare ??= lateHelper(p);
    // The full report (the JSON export), made when asked: on two cores too when the helper holds
    // this pair (it was given it for the table). Other bins without detail: one go, as the CLI's.
    if (detail && !p.helperShare && p.helperHolds && helper?.holdsPair) p.helperShare = helper.shareReport({ detail: true, bins: bins ?? 0 });
    if (!summary && !detail) return p.comparison.weights(bins ?? 0, { detail: false, onProgress: weightsProgress(id, 'weights', 'analysing weights') });
    // "on two cores" when the helper core takes its share (the page's status line says so).
    const onProgress = weightsProgress(id, 'weights', p.helperShare ? 'analysing weights on two cores' : 'analysing weights');
    const run = { detail: !summary, bins: bins ?? 0 };
    await sharedRun(p, run, onProgress, (slice) => {
      // A slice's layers, unless it was the last: those come ranked with the table itself.
      if (summary && !slice.done && slice.layers.length) {
        const { measures, reference, compared, layers } = slice;
        post({ type: 'progress', id, stage: 'weights', detail: 'analysing weights', slice: { measures, reference, compared, layers } });
      }
    });
    // The table's fields only, kept: one layer's histograms and series come with weightLayer().
    if (summary) return (p.weights = p.comparison.weights(0, { detail: false }));
    return p.comparison.weights(run.bins, { detail: true });
  },
  async weightsShare({ part, parts, detail, bins }, id) {
    // The helper's side: its share, then the asking core's pairs from the far end, a slice at a
    // time, each slice's results sent as they are made, until every pair is done here or the asking
    // core says its table is done (end-share). A request waiting (the asking core opened another
    // pair) ends it too: those results are not wanted.
    const p = requirePair();
    if (sharesEndedUpTo >= id) return JSON.stringify({ complete: false });  // ended before it began
    const run = { detail: detail ?? false, bins: bins ?? 0 };
    p.comparison.weightsShare(part, parts, run);
    let done = false, shareDone = false;
    for (;;) {
      ({ done, shareDone } = p.comparison.weightsSlice(shareDone ? WEIGHTS_SHARED_SLICE_PARAMETERS : WEIGHTS_SLICE_PARAMETERS, run));
      post({ type: 'progress', id, stage: 'weights', detail: 'analysing a share of the weights', results: p.comparison.weightsResults(run) });
      if (done) return JSON.stringify({ complete: true });
      await nextTask();
      if (queue.length || sharesEndedUpTo >= id) return JSON.stringify({ complete: false });
    }
  },
  weightLayer({ nodeId, bins }) {
    return requirePair().comparison.weightLayer(nodeId, bins ?? 0);
  },
  lint(_params, id) {
    progress(id, 'lint', 'checking quantization parameters');
    return requirePair().comparison.lint();
  },
  async openModel({ file, external }, id) {
    model?.views.close();
    model = null;
    const vq = live!.current!;
    const { models: [bytes], external: rest } = await loadAll(vq, [file], id, external);
    progress(id, 'loading', `loading ${file.name}`);
    try {
      model = { name: file.name, views: vq.openLayout(bytes, file.name, externalOf(external, rest)) };
    } finally {
      for (const l of [bytes, ...rest]) if (l instanceof HeapFile) l.free();
    }
    return withVersion('inspect', model.views.inspect(), vq.version);
  },
  layoutModel({ view }, id) {
    const m = requireModel();
    progress(id, 'layout', `laying out ${m.name} (${view === 'nodes' ? 'every node' : 'Q/DQ folded'})`);
    return m.views.view({ view });
  },
  node({ nodeId, side, pair: name }) {
    return side ? requirePair(name).comparison.node(side, nodeId) : requireModel().views.node(nodeId);
  },
  activationInputs() {
    return requirePair().comparison.activationInputs();
  },
  async activations({ pair: name, ...params }, id, signal) {
    const p = requirePair(name);
    const text = await runActivationJob(p.comparison, params, signal, (detail, fraction) => progress(id, 'activations', detail, fraction));
    if (!params.keepInFloat?.length) p.activations = text;
    return JSON.stringify({ text });  // kept as written: the page saves these bytes
  },
  async sensitivity(params, id, signal) {
    const text = await runSensitivityJob(requirePair().comparison, params, signal, (detail, fraction) => progress(id, 'sensitivity', detail, fraction));
    return JSON.stringify({ text });
  },
  mixedModel({ entries }) {
    const bytes = mixedModelOf(requirePair().comparison, entries);
    // As base64 in the JSON result: the one text copy the protocol carries (and what a VS Code save takes).
    let binary = '';
    for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
    return JSON.stringify({ base64: btoa(binary), bytes: bytes.length });
  },
  exclusionSnippet({ entries, format }) {
    return JSON.stringify({ text: requirePair().comparison.exclusionSnippet(entries, format) });
  },
};

async function run(message: RequestMessage, signal: AbortSignal = new AbortController().signal) {
  try {
    const handler = handlers[message.method] as Handler<Method>;
    const json = await handler(message.params, message.id, signal);
    post({ type: 'json-result', id: message.id, method: message.method, json });
  } catch (e) {
    if (!(e instanceof VisualQuantInstanceFailure)) {
      const error = errorOf(e);
      // ONNX Runtime's own wasm instance may be what failed: the next comparison gets a fresh one.
      if (error.code === 'runtime_failure') resetOrt();
      post({ type: 'error', id: message.id, error });
      return;
    }
    post({ type: 'error', id: message.id, error: failureError(e, message) });
    replaceCore();
  }
}

/** Starts a background request: drain goes on with the others meanwhile. */
function startBackground(message: RequestMessage) {
  if (background) {
    post({ type: 'error', id: message.id, error: { code: 'usage', message: 'an activation comparison or a sensitivity sweep is already running: cancel it first' } });
    return;
  }
  const abort = new AbortController();
  const job = { id: message.id, abort, done: Promise.resolve() };
  background = job;
  job.done = run(message, abort.signal).finally(() => {
    if (background === job) background = null;
    drain();
  });
}

function drain() {
  const core = live?.current;
  if (draining || !core || queue.length === 0) return;
  // A task of this worker's own (the warm-up, the labels made ahead) failed the instance: a load
  // gets a fresh one (drain runs again once it is up); a question about what was open reports the failure.
  if (core.failed && (queue[0].method === 'open' || queue[0].method === 'openModel')) {
    replaceCore();
    return;
  }
  if (background && (queue[0].method === 'open' || queue[0].method === 'openModel')) {
    // The running comparison reads the open pair: it ends (after its current run) before the pair is replaced.
    background.abort.abort();
    draining = true;
    void background.done.then(() => {
      draining = false;
      drain();
    });
    return;
  }
  const next = queue.shift()!;
  draining = true;
  // One request per task: messages (cancels) that arrived meanwhile are handled before the next one.
  setTimeout(() => {
    if (BACKGROUND.has(next.method)) {
      startBackground(next);
      draining = false;
      drain();
      return;
    }
    void run(next).finally(() => {
      draining = false;
      drain();
    });
  }, 0);
}

/** The page's compiled core (core_module.ts): its one message comes before or after the first request. */
let receiveCoreModule: (message: CoreModuleMessage) => void = () => {};
const coreModule = self.location.hash === CORE_MODULE_HASH
  ? new Promise<CoreModuleMessage>((resolve) => { receiveCoreModule = resolve; })
  : Promise.resolve<CoreModuleMessage>({ type: 'core-module', module: null });

scope.onmessage = (event) => {
  const message = event.data;
  if (isCoreModuleMessage(message)) {
    receiveCoreModule(message);
    return;
  }
  if (isEndShareMessage(message)) {
    sharesEndedUpTo = Math.max(sharesEndedUpTo, message.id);  // the asking core's table is done: its share ends
    return;
  }
  if (isHushMessage(message)) {
    // A helper whose core worker has work, or a core worker whose page asks at once: no more
    // warm-up, and none started (it waits for the requests).
    requested = true;
    stopWarmUp?.();
    stopWarmUp = null;
    return;
  }
  if (message.type === 'cancel') {
    if (background?.id === message.id) {
      background.abort.abort();  // it ends with 'cancelled' after the run in progress
      return;
    }
    const at = queue.findIndex((m) => m.id === message.id);
    if (at >= 0) {
      dropPrefetched(queue.splice(at, 1)[0]);
      post({ type: 'error', id: message.id, error: { code: 'cancelled', message: 'cancelled before it started' } });
    }
    return;
  }
  requested = true;
  stopWarmUp?.();
  stopWarmUp = null;
  helper?.hush();
  prefetchUrls(message);
  queue.push(message);
  drain();
};

async function start() {
  const wasm = await coreWasm();
  let first = true;
  // Each instance makes the operator schemas' table (LiveCore) before any request: the user is still
  // choosing files, and the first comparison need not wait for them. A replacement instance takes
  // the requests that waited for it.
  live = new LiveCore(wasm, (core) => {
    if (first) {
      first = false;
      post({ type: 'ready', version: core.version });
      if (!requested) {
        // No request yet: the helper starts and warms up too, for a pair given later, once this
        // core's own rounds are done. A request hushes both (onmessage): a page opened with URLs,
        // asking a moment later, does not wait.
        stopWarmUp = warmUpUntilRequested(core, () => requested, () => helper?.warm());
      }
    }
    drain();
  });
  await live.start();
}

/** The module the page compiled, or, when it could not, the bytes fetched here. */
async function coreWasm(): Promise<WebAssembly.Module | Uint8Array> {
  const given = await coreModule;
  if (given.module) return given.module;
  const wasmUrl = new URL('visualquant_core.wasm', self.location.href);
  const response = await fetch(wasmUrl);
  if (!response.ok) throw new Error(`cannot load the core (${wasmUrl.pathname}: HTTP ${response.status}${given.problem ? `; the page: ${given.problem}` : ''})`);
  const bytes = new Uint8Array(await response.arrayBuffer());
  // Compiled here once, for this core and its helper: the helper then runs the same code, optimised
  // as it gets hot in either (a helper compiling its own copy ran the analysis cold).
  try {
    ownModule = await WebAssembly.compile(bytes);
    return ownModule;
  } catch {
    return bytes;  // the instance's own compile says what is wrong with them
  }
}
/** The module this worker compiled itself (coreWasm), given to its helper. */
let ownModule: WebAssembly.Module | null = null;

/** Nothing can be answered without the core: fail every request, now and later. */
function coreDidNotStart(e: unknown) {
  const error = { code: 'internal' as const, message: `the core did not start: ${e instanceof Error ? e.message : String(e)}` };
  for (const m of queue.splice(0)) post({ type: 'error', id: m.id, error });
  scope.onmessage = (event) => {
    if (event.data.type === 'request') post({ type: 'error', id: event.data.id, error });
  };
}

start().catch(coreDidNotStart);
