// The typed JavaScript face of the wasm core (see visualquant.d.mts). Used by the Node tests, the
// web page's worker and the VS Code extension host alike.
import createVisualQuantModule from './visualquant_core.mjs';

export class VisualQuantError extends Error {
  constructor(code, message) {
    super(message);
    this.name = 'VisualQuantError';
    this.code = code;
  }
}

/**
 * The wasm instance failed in a way the core did not catch: a trap ("unreachable", "memory access out
 * of bounds"), a stack overflow (a RangeError), an abort, a C++ exception that escaped. C++ unwinding
 * did not run, so its memory and its stack pointer may be corrupt: the instance must not be used
 * again (every later call on it, and on what it opened, throws this at once). Load a fresh one, or
 * use VisualQuantInstances, which does.
 */
export class VisualQuantInstanceFailure extends Error {
  constructor(cause) {
    super(`the core failed (${describeCause(cause)}); this instance cannot be used again`, { cause });
    this.name = 'VisualQuantInstanceFailure';
    this.outOfMemory = isOutOfMemory(cause);
  }
}

function describeCause(cause) {
  if (cause instanceof Error) return `${cause.name}: ${cause.message}`;
  // A C++ exception that escaped the bindings is a WebAssembly.Exception, without a message.
  if (typeof WebAssembly.Exception === 'function' && cause instanceof WebAssembly.Exception) return 'an uncaught C++ exception';
  return String(cause);
}

// Memory that ran out, as opposed to memory gone wrong: "memory access out of bounds" is a corrupt
// pointer, and a call stack too deep is a RangeError but no lack of memory.
function isOutOfMemory(cause) {
  const text = cause instanceof Error ? cause.message : String(cause);
  return /out of memory|allocation failed|cannot enlarge memory|maximum memory size exceeded|bad_alloc/i.test(text);
}

// Runs work(), then release() (frees what it put in wasm memory), unless work failed with something
// other than the core's own error: the instance is then corrupt, and touching its memory again could
// fail again and hide the first failure.
function thenRelease(work, release) {
  let result;
  try {
    result = work();
  } catch (e) {
    if (e instanceof VisualQuantError) release();
    throw e;
  }
  release();
  return result;
}

function unwrap(result) {
  if (!result.ok) throw new VisualQuantError(result.errorCode, result.errorMessage);
  return result.json;
}

// The most wasm memory the core's module may grow to (MAXIMUM_MEMORY in wasm/CMakeLists.txt).
export const WASM_MEMORY_LIMIT = 4 * 1024 ** 3;

const gib = (bytes) => `${(bytes / 1024 ** 3).toFixed(2)} GiB`;

// `size` bytes of wasm memory, or a VisualQuantError that names the size and the limit. The address
// is read as unsigned: past 2 GiB the export's i32 result is negative, and a negative address made
// HEAPU8.set fail with a bare "offset is out of bounds".
function heapAlloc(module, size) {
  // A size of 4 GiB or more would reach malloc modulo 2^32 (its size_t is 32 bits): 4 GiB became 0.
  const pointer = size < WASM_MEMORY_LIMIT ? module._malloc(Math.max(size, 1)) >>> 0 : 0;
  if (!pointer) {
    throw new VisualQuantError('out_of_memory', `cannot hold ${size} bytes (${gib(size)}) in wasm memory: it is ${gib(module.HEAPU8.length)} now, `
      + `grows to ${gib(WASM_MEMORY_LIMIT)} at most, and has no free block that large; a file is held there whole unless it is `
      + 'external data read by range');
  }
  return pointer;
}

/**
 * An external-data file the core reads by range, when a weight in it is read, instead of holding it
 * whole in wasm memory (which holds 4 GiB at most): a multi-gigabyte model's data files cost the
 * memory of the weight being read. `read(offset, length, target)` fills `target` (a Uint8Array of
 * `length` bytes) with the file's bytes from `offset`, synchronously: from a File's slices with
 * FileReaderSync in a worker, a URL's byte ranges, fs.readSync under Node. `source` is what the file
 * came from (a Blob, a URL, a path), for callers that hand it on (a runtime's external data).
 */
export class RangeFile {
  constructor(size, read, source = null) {
    if (!Number.isSafeInteger(size) || size < 0) throw new VisualQuantError('usage', `a RangeFile's size must be a whole number of bytes, not ${size}`);
    this.byteLength = size;
    this.read = read;
    this.source = source;
  }

  /**
   * A file on disk read by range under Node, opened anew for each read: a file removed or cut since
   * it was sized is an error naming it, never stale bytes. `fs` is Node's node:fs (openSync,
   * fstatSync, readSync, closeSync), passed in so that this module stays free of Node imports for
   * the browser. `onRead(offset, length)`, if given, sees each read before it is made.
   */
  static ofPath(fs, path, name = path, onRead = null) {
    const withFile = (use) => {
      const fd = fs.openSync(path, 'r');
      try {
        return use(fd);
      } finally {
        fs.closeSync(fd);
      }
    };
    const size = withFile((fd) => fs.fstatSync(fd).size);
    return new RangeFile(size, (offset, length, target) => {
      onRead?.(offset, length);
      withFile((fd) => {
        for (let done = 0; done < length;) {
          const n = fs.readSync(fd, target, done, length - done, offset + done);
          if (n === 0) throw new Error(`${name} ends before byte ${offset + length}: it changed since it was opened`);
          done += n;
        }
      });
    }, path);
  }

  /** The whole file as a new Uint8Array. */
  readAll() {
    const out = new Uint8Array(this.byteLength);
    this.read(0, this.byteLength, out);
    return out;
  }
}

// onnxruntime-web's wasm memory is 32-bit too: weights past 4 GiB cannot be given to it at all.
const RUNTIME_EXTERNAL_LIMIT = 4 * 1024 ** 3;

// A RangeFile as onnxruntime-web's externalData takes it: a URL it fetches itself where the file
// has one (a Blob gets an object URL, made once), so that the file is not copied here first; else
// its bytes.
function runtimeDataOf(file) {
  if (typeof Blob !== 'undefined' && file.source instanceof Blob && typeof URL.createObjectURL === 'function') {
    return (file.objectUrl ??= URL.createObjectURL(file.source));
  }
  if (typeof file.source === 'string' && /^(https?|blob):/.test(file.source)) return file.source;
  return file.readAll();
}

// A RangeFile's reader as the core calls it: (offset, length, pointer) -> '' or why it failed. The
// target is taken from the heap at each call (the memory may have grown since the last one), and an
// exception never crosses the core's frames.
function heapReader(module, file) {
  return (offset, length, pointer) => {
    try {
      file.read(offset, length, module.HEAPU8.subarray(pointer, pointer + length));
      return '';
    } catch (e) {
      return e instanceof Error ? e.message : String(e);
    }
  };
}

// Gives a session (or layout views) one external-data file: bytes (copied into wasm memory with
// toHeap) or a RangeFile (read by range). Returns where the core holds it: {name, pointer, size} or
// {name, file, size}.
function addExternal(target, module, toHeap, name, data) {
  if (data instanceof RangeFile) {
    unwrap(target.addExternalReader(name, data.byteLength, heapReader(module, data)));
    return { name, file: data, size: data.byteLength };
  }
  const pointer = toHeap(data);
  unwrap(target.addExternalFile(name, pointer, data.byteLength));
  return { name, pointer, size: data.byteLength };
}

const RESULT_ARRAYS = ['ref', 'x', 'y', 'w', 'h', 'layer', 'from', 'to', 'firstEdge', 'count', 'flags', 'pointBegin', 'points',
  'group', 'groupX', 'groupY', 'groupW', 'groupH'];

/** Edge flags of a graph layout (LayoutResult.flags). */
export const EdgeFlags = Object.freeze({ reversed: 1, stub: 2, selfLoop: 4, aggregate: 8 });

function bytesOf(array) {
  return new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
}

// Layout options as the core reads them: JSON for the flags, measured node sizes as a flat array.
// A paired layout's options as the core reads them: measured sizes per side.
function pairLayoutOptions({ floatNodeSizes, floatGroupSizes, quantNodeSizes, quantGroupSizes, ...rest }) {
  const sizes = { float_node_sizes: floatNodeSizes, float_group_sizes: floatGroupSizes,
    quant_node_sizes: quantNodeSizes, quant_group_sizes: quantGroupSizes };
  const json = { ...rest };
  for (const [key, value] of Object.entries(sizes)) if (value) json[key] = Array.from(value);
  return JSON.stringify(json);
}

function layoutOptions({ nodeSizes, groupSizes, ...rest }) {
  return {
    json: JSON.stringify(groupSizes ? { ...rest, group_sizes: Array.from(groupSizes) } : rest),
    sizes: Float64Array.from(nodeSizes ?? []),
  };
}

// Pairs two arrays into one typed array [a0, b0, a1, b1, ...].
function interleave(Type, a, b) {
  const out = new Type(2 * a.length);
  for (let i = 0; i < a.length; i++) {
    out[2 * i] = a[i];
    out[2 * i + 1] = b[i];
  }
  return out;
}

export class VisualQuant {
  constructor(module) {
    this.module = module;
    /** The VisualQuantInstanceFailure that ended this instance, or null while it works. */
    this.failure = null;
  }

  /** True once a call failed with something other than a VisualQuantError: see VisualQuantInstanceFailure. */
  get failed() {
    return this.failure !== null;
  }

  // Every call into the module goes through here. The core's own errors (VisualQuantError) leave the
  // instance as it was; anything else ends it, and it is never entered again.
  guarded(work) {
    if (this.failure) throw this.failure;
    try {
      return work();
    } catch (e) {
      if (e instanceof VisualQuantError) throw e;
      this.failure ??= e instanceof VisualQuantInstanceFailure ? e : new VisualQuantInstanceFailure(e);
      this.module = null;  // nothing reaches the corrupt instance any more, and its memory can go
      this.graphLayout = null;
      throw this.failure;
    }
  }

  get version() {
    return this.guarded(() => this.module.version());
  }

  /** Builds what the first model would otherwise wait for (the onnx operator schemas): call it
   *  while the user is still choosing files. */
  warmUp() {
    this.guarded(() => this.module.warmUp());
  }

  /** A float model and its QDQ version with `blocks` residual blocks of `channels` channels, made
   *  by the core (warm_up_pair.h): work for the idle warm-up that makes the browser optimise the
   *  code a real pair runs. */
  warmUpPair(blocks = 40, channels = 4) {
    return this.guarded(() => {
      const views = this.module.warmUpPair(blocks, channels);
      return { float: views.float.slice(), quant: views.quant.slice() };
    });
  }

  // toHeap(bytes) for the calls below: copies bytes into the wasm heap with one HEAPU8.set (fast)
  // and returns their address, which it adds to `held` for the caller to free.
  /**
   * Room in wasm memory for a file that arrives in chunks (a stream): write() each chunk, then give
   * the HeapFile to open() or openLayout() in place of its bytes. The file is so never held whole
   * outside wasm memory. It grows when more comes than `size` said; free() it if it is not used.
   */
  heapFile(size = 0) {
    return new HeapFile(this, size);
  }

  /**
   * `size` bytes of wasm memory, to be made resident a piece at a time (ResidentMemory.touch) while
   * the core is idle, and given back (free) before the work that will use them: the first open
   * of a pair then finds its memory already in place. See ResidentMemory for why.
   */
  residentMemory(size) {
    return new ResidentMemory(this, size);
  }

  heapWriter(held) {
    const m = this.module;
    return (bytes) => {
      if (bytes instanceof HeapFile) {
        const pointer = bytes.take();  // already in wasm memory: now the session's
        held.push(pointer);
        return pointer;
      }
      const pointer = heapAlloc(m, bytes.byteLength);
      held.push(pointer);
      m.HEAPU8.set(bytes, pointer);
      return pointer;
    };
  }

  // Runs fn(session, toHeap) with a core session that knows the external files; toHeap copies bytes
  // into the wasm heap with one HEAPU8.set (fast) and returns their address. Everything is freed
  // afterwards.
  withSession(externalFiles, fn) {
    return this.guarded(() => {
      const m = this.module;
      const session = new m.Session();
      const held = [];
      const toHeap = this.heapWriter(held);
      return thenRelease(() => {
        for (const [name, data] of Object.entries(externalFiles)) addExternal(session, m, toHeap, name, data);
        return fn(session, toHeap);
      }, () => {
        session.delete();
        for (const p of held) m._free(p);
      });
    });
  }

  /**
   * Summary report of one model, as JSON text (byte-identical to `visualquant inspect --json`).
   * externalFiles maps names relative to the model (as written in the model) to their bytes.
   */
  inspect(bytes, fileName, externalFiles = {}) {
    return this.withSession(externalFiles, (session, toHeap) =>
      unwrap(session.inspect(toHeap(bytes), bytes.byteLength, fileName)));
  }

  /**
   * Compare report of two models, as JSON text (byte-identical to `visualquant compare A B --json -`).
   * The order does not matter: the quantized one is detected. `options.weights` (default true)
   * includes the weight analysis of every aligned pair, as the CLI's JSON does; without it only the
   * alignment is computed (weights are sampled, not read whole).
   */
  compare(firstBytes, firstName, secondBytes, secondName, externalFiles = {}, options = {}) {
    const withWeights = options.weights ?? true;
    return this.withSession(externalFiles, (session, toHeap) =>
      unwrap(session.compare(toHeap(firstBytes), firstBytes.byteLength, firstName, toHeap(secondBytes), secondBytes.byteLength,
                             secondName, withWeights)));
  }

  /**
   * Layout of one model as JSON text (byte-identical to `visualquant layout MODEL --json -` with the
   * same options). options: { view: 'logical'|'nodes', collapsed, expanded: [group names],
   * stubs, nodeSizes: (width, height) pairs, groupSizes: pairs }.
   */
  layout(bytes, fileName, options = {}, externalFiles = {}) {
    const { json, sizes } = layoutOptions(options);
    return this.withSession(externalFiles, (session, toHeap) =>
      unwrap(session.layout(toHeap(bytes), bytes.byteLength, fileName, json, toHeap(bytesOf(sizes)), sizes.length)));
  }

  /**
   * Opens a model for many layouts (the UI expanding and collapsing groups): it is loaded once, each
   * view lays out only what it shows, and recent views are cached. view(options) returns the same
   * text as layout(bytes, fileName, options); close() frees the model.
   */
  openLayout(bytes, fileName, externalFiles = {}) {
    const views = this.guarded(() => {
      const m = this.module;
      const layouts = new m.ModelLayouts();
      const held = [];
      const toHeap = this.heapWriter(held);
      const release = () => {
        layouts.delete();
        for (const p of held) m._free(p);
      };
      try {
        for (const [name, data] of Object.entries(externalFiles)) addExternal(layouts, m, toHeap, name, data);
        unwrap(layouts.open(toHeap(bytes), bytes.byteLength, fileName));
      } catch (e) {
        if (e instanceof VisualQuantError) release();
        throw e;
      }
      return { m, layouts, release };
    });
    // Null once closed. Calls on a failed instance throw its failure; close() then frees nothing.
    let open = views;
    const call = (work) => this.guarded(() => {
      if (!open) throw new VisualQuantError('usage', 'this model was closed');
      return work(open);
    });
    return {
      view: (options = {}) => call(({ m, layouts }) => {
        const { json, sizes } = layoutOptions(options);
        const scratch = [];
        return thenRelease(() => unwrap(layouts.view(json, this.heapWriter(scratch)(bytesOf(sizes)), sizes.length)),
          () => { for (const p of scratch) m._free(p); });
      }),
      /** The model's inspect report (JSON text), as VisualQuant.inspect gives, from the model already loaded. */
      inspect: () => call(({ layouts }) => unwrap(layouts.inspect())),
      /** One node's detail (JSON text), as OpenComparison.node for this model. */
      node: (nodeName) => call(({ layouts }) => unwrap(layouts.node(nodeName))),
      close: () => {
        const closing = open;
        open = null;
        if (closing && !this.failed) this.guarded(closing.release);
      },
    };
  }

  /**
   * The float model and its quantized version side by side, matched ops in the same rows, as JSON
   * text (byte-identical to `visualquant layout FIRST SECOND --json -`); either order. options: as
   * for layout, without sizes.
   */
  layoutPair(firstBytes, firstName, secondBytes, secondName, options = {}, externalFiles = {}) {
    return this.withSession(externalFiles, (session, toHeap) =>
      unwrap(session.layoutPair(toHeap(firstBytes), firstBytes.byteLength, firstName, toHeap(secondBytes), secondBytes.byteLength,
        secondName, JSON.stringify(options))));
  }

  /**
   * The layout engine on a plain graph (flat arrays in, typed arrays out): see LayoutGraph and
   * LayoutResult in visualquant.d.mts.
   */
  layoutGraph(graph, options = {}) {
    const n = graph.width.length, edges = graph.from.length, groups = graph.groupParent ? graph.groupParent.length : 0;
    // The core reads exactly n, edges and groups entries from each array: check before it does.
    const sameLength = (array, length, what) => {
      if (array && array.length !== length) throw new VisualQuantError('usage', `layout: ${what} must have ${length} entries`);
    };
    sameLength(graph.height, n, 'height');
    sameLength(graph.to, edges, 'to');
    sameLength(graph.nodeGroup, n, 'nodeGroup');
    sameLength(graph.groupWidth, groups, 'groupWidth');
    sameLength(graph.groupHeight, groups, 'groupHeight');
    if (options.collapsed && options.collapsed !== 'firstView') sameLength(options.collapsed, groups, 'collapsed');
    return this.guarded(() => {
      const m = this.module;
      const held = [];
      const write = this.heapWriter(held);
      const toHeap = (array) => (array ? write(bytesOf(array)) : 0);
      const { collapsed, ...engine } = options;
      // One engine per module, kept: its level cache makes a second call that expands a group lay out
      // only that group's interior and the levels around it.
      this.graphLayout ??= new m.GraphLayout();
      const runner = this.graphLayout;
      return thenRelease(() => {
        const groupSizes = graph.groupWidth && graph.groupHeight ? interleave(Float64Array, graph.groupWidth, graph.groupHeight) : null;
        const collapsedFlags = collapsed && collapsed !== 'firstView' ? Uint8Array.from(collapsed) : null;
        if (collapsed === 'firstView') engine.firstView = true;
        const stats = JSON.parse(unwrap(runner.run(
          toHeap(interleave(Float64Array, graph.width, graph.height)), n,
          toHeap(interleave(Int32Array, graph.from, graph.to)), edges,
          toHeap(graph.nodeGroup ? Int32Array.from(graph.nodeGroup) : null),
          toHeap(groups ? Int32Array.from(graph.groupParent) : null), groups,
          toHeap(groupSizes), toHeap(collapsedFlags), JSON.stringify(engine))));
        const result = { ...stats };
        for (const name of RESULT_ARRAYS) result[name] = runner.array(name).slice();
        return result;
      }, () => { for (const p of held) m._free(p); });
    });
  }
}

/**
 * A comparison kept open in the core for lazy questions: the alignment report now, one layer's
 * weight analysis or the lint when asked. Holds both models in wasm memory until close(). Once its
 * instance has failed, every call throws that VisualQuantInstanceFailure.
 */
export class OpenComparison {
  constructor(core, session, held) {
    this.core = core;
    this.session = session;
    this.held = held;
    /** Where the two files' bytes lie in wasm memory (in the order given), and the external-data files'. */
    this.files = null;
    this.external = [];
  }

  // A copy of bytes the core holds, out of wasm memory.
  heapCopy({ pointer, size }) {
    return this.core.guarded(() => {
      if (!this.session) throw new VisualQuantError('usage', 'this comparison was closed');
      return this.core.module.HEAPU8.slice(pointer, pointer + size);
    });
  }

  /**
   * Both model files where the core holds them, in the order given (Uint8Array views of wasm memory,
   * valid until the memory grows or the comparison is closed: copy them at once).
   */
  givenFiles() {
    return this.core.guarded(() => {
      if (!this.session) throw new VisualQuantError('usage', 'this comparison was closed');
      const heap = this.core.module.HEAPU8;
      return [this.files.first, this.files.second].map(({ pointer, size }) => heap.subarray(pointer, pointer + size));
    });
  }

  // One side's file in wasm memory ({pointer, size}). Which file is which side is the alignment's
  // finding (the files may come in either order).
  fileOf(side) {
    this.swapped ??= JSON.parse(this.reportText).argument_order_swapped === true;
    return (side === 'float') !== this.swapped ? this.files.first : this.files.second;
  }

  /**
   * A copy of one side's model file ('float' or 'quantized'), as it was given, with `suffix`
   * appended when given: the runtime bridge loads it, so that the page does not keep a second copy
   * of every model next to the core's.
   */
  fileBytes(side, suffix = null) {
    const file = this.fileOf(side);
    if (!suffix?.byteLength) return this.heapCopy(file);
    // With bytes appended (a tapped model's extra graph record): one copy, not a copy and a join.
    return this.core.guarded(() => {
      if (!this.session) throw new VisualQuantError('usage', 'this comparison was closed');
      const out = new Uint8Array(file.size + suffix.byteLength);
      out.set(this.core.module.HEAPU8.subarray(file.pointer, file.pointer + file.size), 0);
      out.set(suffix, file.size);
      return out;
    });
  }

  /**
   * One side's model file as a view into wasm memory, not a copy: what a runtime is given as the
   * external data of a weights-referenced model (activation options' weights_by_reference). Valid
   * until the core's memory grows (then its length is 0): take it right before use.
   */
  fileView(side) {
    const file = this.fileOf(side);
    return this.core.guarded(() => {
      if (!this.session) throw new VisualQuantError('usage', 'this comparison was closed');
      return this.core.module.HEAPU8.subarray(file.pointer, file.pointer + file.size);
    });
  }

  /** Copies of the external-data files given with the models: [{path, data}], as onnxruntime-web's externalData takes them. */
  externalData() {
    const total = this.external.reduce((n, f) => n + f.size, 0);
    if (total > RUNTIME_EXTERNAL_LIMIT) {
      throw new VisualQuantError('out_of_memory', `the models' external data is ${total} bytes (${gib(total)}): more than the ${gib(RUNTIME_EXTERNAL_LIMIT)} `
        + 'onnxruntime-web can hold in its memory; run the activation comparison with the visualquant command (visualquant activations FLOAT QUANT), '
        + 'which runs ONNX Runtime natively');
    }
    return this.external.map((f) => ({ path: f.name, data: f.file ? runtimeDataOf(f.file) : this.heapCopy(f) }));
  }

  /** The compare report without weights and lint (compact JSON text: the CLI's content, not its indentation). */
  get report() {
    return this.reportText;
  }

  // A question to the core about this comparison, through its instance's guard.
  ask(question) {
    return this.core.guarded(() => {
      if (!this.session) throw new VisualQuantError('usage', 'this comparison was closed');
      return unwrap(question(this.session));
    });
  }

  /** One aligned weight pair's full analysis, by float or quantized node id (JSON text). */
  weightLayer(nodeId, bins = 0) {
    return this.ask((s) => s.weightLayer(nodeId, bins));
  }

  /**
   * Every aligned weight pair, ranked worst first (JSON text, as `visualquant weights --json -`).
   * detail: false leaves out histograms, per-channel series, code counts and outlier indices (the
   * table of a large model; weightLayer() has one layer's detail), and is compact JSON.
   */
  weights(bins = 0, { detail = true, onProgress } = {}) {
    return this.ask((s) => s.weights(bins, detail, onProgress ?? null));
  }

  /**
   * A weight report made a slice at a time: the table's summary (weights() without detail and with
   * the default bins), or with `detail` the full report with `bins` (the JSON export). Analyses the
   * next pairs, largest first, until `parameters` of them are done. Returns { done, measures,
   * reference, compared, layers }: the slice's layers as the summary has them but without rank and
   * sensitivity (known once every pair is done; none for the full report); once done, weights()
   * answers at once. The caller's event loop runs between calls: a worker reading external data by
   * range gives the responses of the weights done back then, and its table can fill as it goes.
   * onProgress as for weights().
   */
  weightsSlice(parameters, { onProgress, detail = false, bins = 0 } = {}) {
    return JSON.parse(this.ask((s) => s.weightsSlice(parameters, onProgress ?? null, detail, bins)));
  }

  /**
   * A weight report's analysis (as for weightsSlice: the summary, or the full report with `detail`
   * and `bins`) shared with other instances of the core that opened the same pair (wasm has one core
   * per instance; two instances use two): this one leads with share `part` of `parts`, the pairs
   * dealt out by size so the shares take about equal time. Call before the first weightsSlice(); its
   * answers then carry `shareDone`, and once that share is done its slices take the other shares'
   * pairs from the far end. Whatever is shared, the report is the same bytes: a pair is analysed the
   * same way wherever it runs.
   */
  weightsShare(part, parts, { detail = false, bins = 0 } = {}) {
    this.ask((s) => s.weightsShare(part, parts, detail, bins));
  }

  /** The pairs this instance analysed for the report (a Uint8Array), for another's weightsAbsorb(). */
  weightsResults({ detail = false } = {}) {
    return this.ask((s) => {
      const r = s.weightsResults(detail);
      return r.ok ? { ok: true, json: s.weightsResultsBytes().slice() } : r;
    });
  }

  /**
   * Takes in another instance's weightsResults() of the same pair and report: the slices skip those
   * pairs. Returns what weightsSlice() returns, with the absorbed layers as the slice (`done` once
   * every pair is analysed or absorbed: weights() then answers at once). Throws
   * VisualQuantError('usage') for bytes that are not results of this pairing.
   */
  weightsAbsorb(bytes, { detail = false, bins = 0 } = {}) {
    return JSON.parse(this.ask((s) => {
      const block = new HeapBlock(this.core, bytes.byteLength);
      try {
        this.core.module.HEAPU8.set(bytes, block.pointer);
        return s.weightsAbsorb(block.pointer, bytes.byteLength, detail, bins);
      } finally {
        block.free();
      }
    }));
  }

  /**
   * One node's detail on one side (JSON text, byte-identical to `visualquant inspect MODEL --node NAME
   * --json`): by node id, or by name when one node has it. Throws VisualQuantError('not_found').
   */
  node(side, nodeName) {
    return this.ask((s) => s.node(side, nodeName));
  }

  /**
   * The three-way table (JSON text, byte-identical to `visualquant compare FLOAT A B --json -`) of
   * this comparison (the float model and version A) and `versionB` (the same float model and version
   * B), both open on this instance. Each version's weight analysis is made unless weights() made it
   * before; onProgress as for weights(). activations: [A's, B's] activations report texts (each
   * comparison's ActivationRun report on the same inputs): each row then gains both versions'
   * activation error at its output, as `compare FLOAT A B --input ...` gives.
   */
  threeWay(versionB, { onProgress, activations } = {}) {
    if (!(versionB instanceof OpenComparison) || versionB.core !== this.core || !versionB.session)
      throw new VisualQuantError('usage', 'threeWay() takes an open comparison of the same core');
    const [a, b] = activations ?? ['', ''];
    return this.ask((s) => s.threeWay(versionB.session, onProgress ?? null, a, b));
  }

  /** The quantization lint (JSON text). */
  lint() {
    return this.ask((s) => s.lint());
  }

  /**
   * Both graphs laid out side by side (JSON text, byte-identical to VisualQuant.layoutPair with the
   * same options), from this comparison: nothing is loaded or aligned again.
   */
  layout(options = {}) {
    return this.ask((s) => s.comparisonLayout(pairLayoutOptions(options)));
  }

  /**
   * Both layout graphs' nodes and groups with their labels, not laid out (compact JSON text,
   * byte-identical to `visualquant layout FIRST SECOND --labels --json -`): what a UI measures
   * before its first layout. view: 'logical' (default) or 'nodes'.
   */
  labels({ view = 'logical' } = {}) {
    return this.ask((s) => s.comparisonLabels(view));
  }

  /**
   * Starts an activation comparison of the two models (activations/run_protocol.h): returns an
   * ActivationRun that hands out the runs to make and takes their outputs. options: {inputs:
   * [{name, file}], dims, samples, seed, tap_budget_bytes, bins, local}; inputFiles maps the file
   * names of options.inputs to their bytes (.npy or TensorProto .pb). Without inputs, synthetic
   * ones are made, and the report says so.
   */
  /** JSON text: the float model's inputs as declared, [{name, element_type, shape}] (a dim: number, symbol or null). */
  activationInputs() {
    return this.ask((s) => s.activationInputs());
  }

  startActivations(options = {}, inputFiles = {}) {
    const request = this.ask((s) => {
      const toHeap = this.core.heapWriter(this.held);
      for (const [name, data] of Object.entries(inputFiles)) unwrap(s.addInputFile(name, toHeap(data), data.byteLength));
      return s.activationsStart(JSON.stringify(options));
    });
    return new ActivationRun(this, JSON.parse(request));
  }

  /**
   * Starts a sensitivity sweep (sensitivity/sensitivity_session.h): returns a SensitivityRun, which
   * hands out its runs as an ActivationRun does. options: the inputs as for startActivations, and
   * {target_sqnr_db, split, chosen: [entries], weights_by_reference}.
   */
  startSensitivity(options = {}, inputFiles = {}) {
    const request = this.ask((s) => {
      const toHeap = this.core.heapWriter(this.held);
      for (const [name, data] of Object.entries(inputFiles)) unwrap(s.addInputFile(name, toHeap(data), data.byteLength));
      return s.sensitivityStart(JSON.stringify(options));
    });
    return new SensitivityRun(this, JSON.parse(request));
  }

  /**
   * A what-if comparison: the float model against this pair's quantized model with `entries` kept in
   * float, opened as a comparison of its own (close it when done; this one must stay open meanwhile).
   * `label` names the what-if model in its reports. Its activation comparison shows the what-if's
   * tensors; the float side is the same model, with the same tensors and node ids.
   */
  openWhatIf(entries, label) {
    this.ask((s) => s.whatIfModel(JSON.stringify(entries)));
    const bytes = this.ask((s) => ({ ok: true, json: s.mixedModelBytes().slice() }));
    const external = Object.fromEntries(this.external.map((f) => [f.name, f.file ?? this.heapCopy(f)]));
    const floatName = JSON.parse(this.reportText).float?.file ?? 'float.onnx';
    return this.core.open(this.fileBytes('float'), floatName, bytes, label, external);
  }

  /** The Python that tells a quantizer ("ort", "modelopt", "nncf") to keep `entries` in float. */
  exclusionSnippet(entries, format) {
    return this.ask((s) => s.exclusionSnippet(JSON.stringify(entries), format));
  }

  /** Frees both models. On a failed instance it only lets go of them: that memory is gone with the instance. */
  close() {
    const { session, held } = this;
    this.session = null;
    this.held = [];
    if (!session || this.core.failed) return;
    this.core.guarded(() => {
      session.delete();
      for (const p of held) this.core.module._free(p);
    });
  }
}

/**
 * The runs of one activation comparison. `request` is the run to make now (null when all are done):
 * {index, runs_total, side: 'float'|'quantized', kind: 'untapped'|'tapped'|'local', sample, chunk,
 * chunks, model_id, model_label, new_model, last_use, fetches, suffix_bytes, model_bytes, feeds:
 * [{name, type, dims, bytes}]}. When new_model, create a session for model_id (graph optimisations
 * disabled) from the side's file bytes, or `model()` when model_bytes > 0, followed by `suffix()`;
 * otherwise use the one kept for model_id, and release it after a request with last_use. Run it on
 * `feed(i)` for each feed and give accept() the fetched tensors.
 */
export class ActivationRun {
  constructor(comparison, request, prefix = 'activations') {
    this.comparison = comparison;
    this.prefix = prefix;  // the core's methods of this kind of run: activationsBytes, sensitivityBytes, ...
    this.request = request.done ? null : request;
  }

  call(method, ...args) {
    return (s) => s[`${this.prefix}${method}`](...args);
  }
  next(json) {
    const request = JSON.parse(json);
    this.request = request.done ? null : request;
    return this.request;
  }

  // A copy of the current request's bytes out of wasm memory.
  bytes(what, index = 0) {
    return this.comparison.ask((s) => ({ ok: true, json: this.call('Bytes', what, index)(s).slice() }));
  }
  suffix() { return this.bytes('suffix'); }
  model() { return this.bytes('model'); }
  feed(i) { return this.bytes('feed', i); }
  /**
   * Feed `i` as a view into wasm memory, not a copy: for an engine that copies its inputs into a
   * heap of its own at the start of a run (onnxruntime-web). Valid until the core's next call.
   */
  feedView(i) { return this.comparison.ask((s) => ({ ok: true, json: this.call('Bytes', 'feed', i)(s) })); }

  /** outputs: [{name, type, dims, data}] (data: a typed array or Uint8Array of the raw bytes). */
  accept(outputs) {
    const core = this.comparison.core;
    // The core makes each output's tensor and the bytes are written straight into it: one copy in
    // wasm memory, not a staging buffer and then the tensor.
    const list = outputs.map((o) => ({ name: o.name, type: o.type, dims: o.dims.map(Number), bytes: o.data.byteLength }));
    const addresses = JSON.parse(this.comparison.ask(this.call('Prepare', JSON.stringify(list))));
    return this.next(this.comparison.ask((s) => {
      const heap = core.module.HEAPU8;  // after the allocations: the memory may have grown
      outputs.forEach((o, i) => heap.set(new Uint8Array(o.data.buffer, o.data.byteOffset, o.data.byteLength), addresses[i]));
      return this.call('AcceptPrepared')(s);
    }));
  }

  /** The report (JSON text), byte-identical to the command line's --json - with the same engine label. */
  report(engine) {
    return this.comparison.ask(this.call('Report', engine));
  }
}

/**
 * The runs of one sensitivity sweep: an ActivationRun's, plus what a sweep may do besides. A what-if
 * model the engine cannot load or run is failed (fail: the sweep goes on, the entry is listed as
 * failed with the reason); cancel() ends the sweep keeping what was measured (then report()).
 */
export class SensitivityRun extends ActivationRun {
  constructor(comparison, request) {
    super(comparison, request, 'sensitivity');
    this.keepsWhatWasMeasured = true;
  }

  /** Whether a run of this request may fail without ending the sweep (a what-if model's). */
  mayFail(request) { return request.model_id !== 'float' && request.model_id !== 'quantized'; }
  fail(reason) { return this.next(this.comparison.ask(this.call('Fail', reason))); }
  cancel() { return this.next(this.comparison.ask(this.call('Cancel'))); }

  /** The quantized model with `entries` kept in float, standalone: a copy of its bytes. */
  mixedModel(entries) {
    this.comparison.ask(this.call('MixedModel', JSON.stringify(entries)));
    return this.comparison.ask((s) => ({ ok: true, json: s.mixedModelBytes().slice() }));
  }
}

/** A block of wasm memory held until it is freed (or handed over: HeapFile.take). */
class HeapBlock {
  constructor(core, size) {
    this.core = core;
    this.capacity = Math.max(size, 1);
    this.pointer = core.guarded(() => heapAlloc(core.module, this.capacity));
  }

  /** Gives the memory back to the core's allocator (written pages stay resident). */
  free() {
    if (this.pointer && !this.core.failed) this.core.module._free(this.pointer);
    this.pointer = 0;
  }
}

/**
 * Wasm memory grown and written once ahead of need. A page of fresh memory costs the system a fault
 * and a zero-fill the first time it is written, and wasm memory never shrinks: after free(), the
 * allocator hands the same pages out again, already resident. Measured on this project's 2-core
 * machines, the first write of 256 MB took 0.70 s and the second 0.012 s, and a cold open of the
 * ResNet-18 pair under Node took 0.45 s on fresh memory and 0.14 s on memory written before.
 */
export class ResidentMemory extends HeapBlock {
  constructor(core, size) {
    super(core, size);
    this.done = 0;
  }

  /** Writes up to `bytes` more of it; true while some is left. */
  touch(bytes) {
    if (!this.pointer || this.core.failed) return false;
    const end = Math.min(this.capacity, this.done + bytes);
    this.core.module.HEAPU8.fill(0, this.pointer + this.done, this.pointer + end);
    this.done = end;
    return end < this.capacity;
  }
}

/** A file written into wasm memory chunk by chunk (VisualQuant.heapFile). */
export class HeapFile extends HeapBlock {
  constructor(core, size) {
    super(core, size);
    this.byteLength = 0;
  }

  /** Appends a chunk (a Uint8Array). */
  write(chunk) {
    if (!this.pointer) throw new VisualQuantError('usage', 'this file was given to the core already');
    const m = this.core.module;
    if (this.byteLength + chunk.byteLength > this.capacity) {
      const capacity = Math.max(this.capacity * 2, this.byteLength + chunk.byteLength);
      const pointer = this.core.guarded(() => heapAlloc(m, capacity));
      m.HEAPU8.copyWithin(pointer, this.pointer, this.pointer + this.byteLength);
      m._free(this.pointer);
      this.pointer = pointer;
      this.capacity = capacity;
    }
    m.HEAPU8.set(chunk, this.pointer + this.byteLength);  // HEAPU8 read now: the memory may have grown
    this.byteLength += chunk.byteLength;
  }

  /** Hands the memory over (to a session, which frees it); the HeapFile is empty afterwards. */
  take() {
    if (!this.pointer) throw new VisualQuantError('usage', 'this file was given to the core already');
    const pointer = this.pointer;
    this.pointer = 0;
    return pointer;
  }
}

// A Session with both files and the external ones in wasm memory, and `call(session, first,
// second, comparison)` made on it; the comparison is closed again if that fails.
function withOpenSession(core, firstBytes, secondBytes, externalFiles, call) {
  const session = new core.module.Session();
  const held = [];
  const toHeap = core.heapWriter(held);
  const comparison = new OpenComparison(core, session, held);
  try {
    for (const [name, data] of Object.entries(externalFiles)) comparison.external.push(addExternal(session, core.module, toHeap, name, data));
    const first = { pointer: toHeap(firstBytes), size: firstBytes.byteLength };
    const second = { pointer: toHeap(secondBytes), size: secondBytes.byteLength };
    comparison.files = { first, second };
    call(session, first, second, comparison);
    return comparison;
  } catch (e) {
    if (e instanceof VisualQuantError) comparison.close();
    throw e;
  }
}

VisualQuant.prototype.open = function open(firstBytes, firstName, secondBytes, secondName, externalFiles = {}) {
  return this.guarded(() => withOpenSession(this, firstBytes, secondBytes, externalFiles, (session, first, second, comparison) => {
    comparison.reportText = unwrap(session.open(first.pointer, first.size, firstName, second.pointer, second.size, secondName));
  }));
};

/**
 * open() in steps: the weights are digested about `stepBytes` of stored weights at a time, and
 * `between({ ops, digested })` is awaited between steps (let the event loop run there: a worker's
 * synchronous range reads give their responses back only then). Resolves to the same
 * OpenComparison as open().
 */
VisualQuant.prototype.openInSteps = async function openInSteps(firstBytes, firstName, secondBytes, secondName, externalFiles = {},
  { stepBytes = 64 * 1024 * 1024, between = async () => {} } = {}) {
  let progress;
  const comparison = this.guarded(() => withOpenSession(this, firstBytes, secondBytes, externalFiles, (session, first, second) => {
    progress = JSON.parse(unwrap(session.openBegin(first.pointer, first.size, firstName, second.pointer, second.size, secondName)));
  }));
  try {
    while (!progress.done) {
      progress = JSON.parse(this.guarded(() => unwrap(comparison.session.openStep(stepBytes))));
      if (!progress.done) await between({ ops: progress.ops, digested: progress.digested });
    }
    comparison.reportText = this.guarded(() => unwrap(comparison.session.openFinish()));
    return comparison;
  } catch (e) {
    if (e instanceof VisualQuantError) comparison.close();
    throw e;
  }
};

// The Emscripten module's options, and a promise that rejects if instantiating fails. From a module
// compiled already (wasmModule), a fresh instance costs no compilation and keeps the code the engine
// has optimised so far; Emscripten's instantiateWasm hook hands it the instance.
function moduleOptions({ wasmBinary, wasmModule }) {
  if (!wasmModule) return { options: wasmBinary ? { wasmBinary } : {}, failed: new Promise(() => {}) };
  let reject;
  const failed = new Promise((_, r) => { reject = r; });
  const options = {
    instantiateWasm(imports, receiveInstance) {
      WebAssembly.instantiate(wasmModule, imports).then((instance) => receiveInstance(instance, wasmModule), reject);
      return {};  // the exports come later, through receiveInstance
    },
  };
  return { options, failed };
}

/**
 * Loads the wasm module. Under Node pass `wasmBinary` (the bytes of visualquant_core.wasm): Node's
 * fetch cannot read file paths. In browsers the .wasm next to this file is fetched by default.
 * `wasmModule` (those bytes compiled: WebAssembly.compile) gives a new instance without compiling.
 */
export async function loadVisualQuant(options = {}) {
  const { options: moduleArgs, failed } = moduleOptions(options);
  const module = await Promise.race([createVisualQuantModule(moduleArgs), failed]);
  return new VisualQuant(module);
}

/**
 * The core for a caller that goes on after a VisualQuantInstanceFailure: live() gives the current
 * instance while it works and a fresh one once it has failed, so the next model loads in clean
 * memory. What the failed instance opened is not carried over: open it again on the new one.
 * The wasm is compiled once, for every instance.
 */
export class VisualQuantInstances {
  constructor(options = {}) {
    this.options = options;
    this.compiled = null;  // the wasm compiled, once: a promise of a WebAssembly.Module
    this.loading = null;   // a promise of the current instance
    this.instance = null;  // the current instance once loaded
  }

  /** The working instance: the current one, or a fresh one when it has failed (or none was loaded yet). */
  live() {
    if (!this.loading || this.instance?.failed) {
      this.instance = null;
      this.loading = this.fresh().then((vq) => (this.instance = vq), (e) => {
        this.loading = null;  // the next call tries again, compiling again too
        this.compiled = null;
        throw e;
      });
    }
    return this.loading;
  }

  async fresh() {
    const { wasmBinary, wasmModule, ...rest } = this.options;
    if (!wasmBinary && !wasmModule) return loadVisualQuant(rest);
    this.compiled ??= wasmModule ? Promise.resolve(wasmModule) : WebAssembly.compile(wasmBinary);
    return loadVisualQuant({ ...rest, wasmModule: await this.compiled });
  }
}
