// The Web Worker that hosts the wasm core. It loads the Emscripten module, answers the protocol's
// requests one at a time, and keeps the open pair between requests (in the core, which holds its
// own copy of the bytes: layouts reuse the alignment, nothing is loaded twice).
// Requests wait in a queue, one per task, so a 'cancel' for one still waiting is seen in time.
// Results go back as the core's JSON text, parsed by the receiver (protocol/connection.ts): a string
// crosses to the page as one copy, where a parsed 20,000-node report is cloned object by object, and
// this thread does not parse it first.
import { loadVisualQuant, VisualQuantError, type ModelLayoutViews, type OpenComparison, type VisualQuant } from 'visualquant-core';
import {
  isReference, type CoreError, type FileSource, type FromCore, type LayoutView, type Method, type Params, type ProgressMessage, type RequestMessage,
  type Result, type ToCore,
} from '../protocol/messages';
import { warmUpUntilRequested } from './warm_up';

interface OpenPair {
  comparison: OpenComparison;
  /** The weights summary's JSON text, kept: the table and the heat overlay ask for it again. */
  weights?: string;
  /** Labels JSON text by view: the logical view's is made ahead, right after the open (see open). */
  labels: Partial<Record<LayoutView, string>>;
}

const scope = self as unknown as { postMessage(message: FromCore): void; onmessage: ((e: MessageEvent<ToCore>) => void) | null };
const post = (message: FromCore) => scope.postMessage(message);

let core: VisualQuant | null = null;
let pair: OpenPair | null = null;
/** The single-model viewer's model, loaded once in the core for its layouts and node details. */
let model: { name: string; views: ModelLayoutViews } | null = null;
const queue: RequestMessage[] = [];
let draining = false;
/** A request has come: the idle warm-up (warm_up.ts) is over. */
let requested = false;

function progress(id: number, stage: ProgressMessage['stage'], detail: string, fraction?: number) {
  post({ type: 'progress', id, stage, detail, ...(fraction === undefined ? {} : { fraction }) });
}

function errorOf(e: unknown): CoreError {
  if (e instanceof VisualQuantError) return { code: e.code, message: e.message };
  const code = (e as { code?: unknown })?.code;
  if (typeof code === 'string') return { code: code as CoreError['code'], message: String((e as Error).message) };
  if (e instanceof RangeError || /memory/i.test(String(e))) return { code: 'out_of_memory', message: String(e) };
  return { code: 'internal', message: e instanceof Error ? e.message : String(e) };
}

function requirePair(): OpenPair {
  if (!pair) throw Object.assign(new Error('open two models first'), { code: 'no_open_pair' });
  return pair;
}

function requireModel() {
  if (!model) throw Object.assign(new Error('open a model first'), { code: 'no_open_model' });
  return model;
}

function bytesOf(f: FileSource): Uint8Array {
  // References are the host's to read (the VS Code extension host resolves them before they get here).
  if (isReference(f)) throw Object.assign(new Error(`${f.name}: this core cannot read files by reference`), { code: 'usage' });
  return new Uint8Array(f.bytes);
}

function externalOf(external: FileSource[]): Record<string, Uint8Array> {
  const files: Record<string, Uint8Array> = {};
  for (const f of external) files[f.name] = bytesOf(f);
  return files;
}

/** JSON text of a method's result. */
type JsonOf<_R> = string;
type Handler<M extends Method> = (params: Params<M>, id: number) => JsonOf<Result<M>>;

/** `{"<key>": <the core's JSON text>, "version": "<version>"}` without parsing the text. */
const withVersion = (key: string, text: string, version: string) => `{"${key}":${text.trimEnd()},"version":${JSON.stringify(version)}}`;
const handlers: { [M in Method]: Handler<M> } = {
  open({ first, second, external }, id) {
    const vq = core!;
    pair?.comparison.close();
    pair = null;
    const externalFiles = externalOf(external);
    progress(id, 'aligning', `loading and aligning ${first.name} and ${second.name}`);
    const comparison = vq.open(bytesOf(first), first.name, bytesOf(second), second.name, externalFiles);
    const opened: OpenPair = { comparison, labels: {} };
    pair = opened;
    // The page's next request is the labels of its view (the logical one unless the user chose the
    // raw graph): made while the page parses this report, unless another request waits.
    setTimeout(() => {
      if (pair === opened && !draining && queue.length === 0) opened.labels.logical ??= comparison.labels({ view: 'logical' });
    }, 0);
    return withVersion('report', comparison.report, vq.version);
  },
  layout(params, id) {
    const p = requirePair();
    progress(id, 'layout', `laying out both graphs (${params.view === 'nodes' ? 'every node' : 'Q/DQ folded'})`);
    return p.comparison.layout(params);
  },
  labels({ view }) {
    const p = requirePair();
    return (p.labels[view] ??= p.comparison.labels({ view }));
  },
  weights({ bins, detail }, id) {
    const p = requirePair();
    progress(id, 'weights', 'analysing every quantized weight');
    // The table's fields only, kept: one layer's histograms and series come with weightLayer(). The
    // full report (the JSON export) is made when asked.
    if (detail || bins !== undefined) return p.comparison.weights(bins ?? 0, { detail: detail ?? false });
    p.weights ??= p.comparison.weights(0, { detail: false });
    return p.weights;
  },
  weightLayer({ nodeId, bins }) {
    return requirePair().comparison.weightLayer(nodeId, bins ?? 0);
  },
  lint(_params, id) {
    progress(id, 'lint', 'checking quantization parameters');
    return requirePair().comparison.lint();
  },
  openModel({ file, external }, id) {
    model?.views.close();
    model = null;
    progress(id, 'loading', `loading ${file.name}`);
    model = { name: file.name, views: core!.openLayout(bytesOf(file), file.name, externalOf(external)) };
    return withVersion('inspect', model.views.inspect(), core!.version);
  },
  layoutModel({ view }, id) {
    const m = requireModel();
    progress(id, 'layout', `laying out ${m.name} (${view === 'nodes' ? 'every node' : 'Q/DQ folded'})`);
    return m.views.view({ view });
  },
  node({ nodeId, side }) {
    return side ? requirePair().comparison.node(side, nodeId) : requireModel().views.node(nodeId);
  },
};

function run(message: RequestMessage) {
  try {
    const handler = handlers[message.method] as Handler<Method>;
    const json = handler(message.params, message.id);
    post({ type: 'json-result', id: message.id, method: message.method, json });
  } catch (e) {
    post({ type: 'error', id: message.id, error: errorOf(e) });
  }
}

function drain() {
  if (draining || !core) return;
  const next = queue.shift();
  if (!next) return;
  draining = true;
  // One request per task: messages (cancels) that arrived meanwhile are handled before the next one.
  setTimeout(() => {
    run(next);
    draining = false;
    drain();
  }, 0);
}

scope.onmessage = (event) => {
  const message = event.data;
  if (message.type === 'cancel') {
    const at = queue.findIndex((m) => m.id === message.id);
    if (at >= 0) {
      queue.splice(at, 1);
      post({ type: 'error', id: message.id, error: { code: 'cancelled', message: 'cancelled before it started' } });
    }
    return;
  }
  requested = true;
  queue.push(message);
  drain();
};

async function start() {
  const wasmUrl = new URL('visualquant_core.wasm', self.location.href);
  const response = await fetch(wasmUrl);
  if (!response.ok) throw new Error(`cannot load the core (${wasmUrl.pathname}: HTTP ${response.status})`);
  core = await loadVisualQuant({ wasmBinary: new Uint8Array(await response.arrayBuffer()) });
  // Before any request: the user is still choosing files, and the first comparison need not wait
  // for the operator schemas.
  core.warmUp();
  post({ type: 'ready', version: core.version });
  drain();
  warmUpUntilRequested(core, () => requested);
}

start().catch((e) => {
  // Nothing can be answered without the core: fail every request, now and later.
  const error = { code: 'internal' as const, message: `the core did not start: ${e instanceof Error ? e.message : String(e)}` };
  for (const m of queue.splice(0)) post({ type: 'error', id: m.id, error });
  scope.onmessage = (event) => {
    if (event.data.type === 'request') post({ type: 'error', id: event.data.id, error });
  };
});
