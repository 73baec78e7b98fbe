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

function unwrap(result) {
  if (!result.ok) throw new VisualQuantError(result.errorCode, result.errorMessage);
  return result.json;
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
  }

  get version() {
    return this.module.version();
  }

  /** Builds what the first model would otherwise wait for (the onnx operator schemas): call it
   *  while the user is still choosing files. */
  warmUp() {
    this.module.warmUp();
  }

  // toHeap(bytes) for the calls below: copies bytes into the wasm heap with one HEAPU8.set (fast)
  // and returns their address, which it adds to `held` for the caller to free.
  heapWriter(held) {
    const m = this.module;
    return (bytes) => {
      const pointer = m._malloc(Math.max(bytes.byteLength, 1));
      if (!pointer) throw new VisualQuantError('out_of_memory', `cannot allocate ${bytes.byteLength} bytes in wasm memory`);
      held.push(pointer);
      m.HEAPU8.set(bytes, pointer);
      return pointer;
    };
  }

  // Runs fn(session, toHeap) with a core session that knows the external files; toHeap copies bytes
  // into the wasm heap with one HEAPU8.set (fast) and returns their address. Everything is freed
  // afterwards.
  withSession(externalFiles, fn) {
    const m = this.module;
    const session = new m.Session();
    const held = [];
    const toHeap = this.heapWriter(held);
    try {
      for (const [name, data] of Object.entries(externalFiles)) {
        unwrap(session.addExternalFile(name, toHeap(data), data.byteLength));
      }
      return fn(session, toHeap);
    } finally {
      session.delete();
      for (const p of held) m._free(p);
    }
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
    const m = this.module;
    const layouts = new m.ModelLayouts();
    const held = [];
    const toHeap = this.heapWriter(held);
    const close = () => {
      layouts.delete();
      for (const p of held) m._free(p);
      held.length = 0;
    };
    try {
      for (const [name, data] of Object.entries(externalFiles)) unwrap(layouts.addExternalFile(name, toHeap(data), data.byteLength));
      unwrap(layouts.open(toHeap(bytes), bytes.byteLength, fileName));
    } catch (e) {
      close();
      throw e;
    }
    return {
      view: (options = {}) => {
        const { json, sizes } = layoutOptions(options);
        const scratch = [];
        try {
          return unwrap(layouts.view(json, this.heapWriter(scratch)(bytesOf(sizes)), sizes.length));
        } finally {
          for (const p of scratch) m._free(p);
        }
      },
      /** The model's inspect report (JSON text), as VisualQuant.inspect gives, from the model already loaded. */
      inspect: () => unwrap(layouts.inspect()),
      /** One node's detail (JSON text), as OpenComparison.node for this model. */
      node: (nodeName) => unwrap(layouts.node(nodeName)),
      close,
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
    const m = this.module;
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
    const held = [];
    const write = this.heapWriter(held);
    const toHeap = (array) => (array ? write(bytesOf(array)) : 0);
    const { collapsed, ...engine } = options;
    // One engine per module, kept: its level cache makes a second call that expands a group lay out
    // only that group's interior and the levels around it.
    this.graphLayout ??= new m.GraphLayout();
    const runner = this.graphLayout;
    try {
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
    } finally {
      for (const p of held) m._free(p);
    }
  }
}

/**
 * A comparison kept open in the core for lazy questions: the alignment report now, one layer's
 * weight analysis or the lint when asked. Holds both models in wasm memory until close().
 */
export class OpenComparison {
  constructor(module, session, held) {
    this.module = module;
    this.session = session;
    this.held = held;
  }

  /** The compare report without weights and lint (compact JSON text: the CLI's content, not its indentation). */
  get report() {
    return this.reportText;
  }

  /** One aligned weight pair's full analysis, by float or quantized node id (JSON text). */
  weightLayer(nodeId, bins = 0) {
    return unwrap(this.session.weightLayer(nodeId, bins));
  }

  /**
   * Every aligned weight pair, ranked worst first (JSON text, as `visualquant weights --json -`).
   * detail: false leaves out histograms, per-channel series, code counts and outlier indices (the
   * table of a large model; weightLayer() has one layer's detail), and is compact JSON.
   */
  weights(bins = 0, { detail = true } = {}) {
    return unwrap(this.session.weights(bins, detail));
  }

  /**
   * One node's detail on one side (JSON text, byte-identical to `visualquant inspect MODEL --node NAME
   * --json`): by node id, or by name when one node has it. Throws VisualQuantError('not_found').
   */
  node(side, nodeName) {
    return unwrap(this.session.node(side, nodeName));
  }

  /** The quantization lint (JSON text). */
  lint() {
    return unwrap(this.session.lint());
  }

  /**
   * Both graphs laid out side by side (JSON text, byte-identical to VisualQuant.layoutPair with the
   * same options), from this comparison: nothing is loaded or aligned again.
   */
  layout(options = {}) {
    return unwrap(this.session.comparisonLayout(pairLayoutOptions(options)));
  }

  /**
   * Both layout graphs' nodes and groups with their labels, not laid out (compact JSON text,
   * byte-identical to `visualquant layout FIRST SECOND --labels --json -`): what a UI measures
   * before its first layout. view: 'logical' (default) or 'nodes'.
   */
  labels({ view = 'logical' } = {}) {
    return unwrap(this.session.comparisonLabels(view));
  }

  close() {
    if (!this.session) return;
    this.session.delete();
    for (const p of this.held) this.module._free(p);
    this.session = null;
    this.held = [];
  }
}

VisualQuant.prototype.open = function open(firstBytes, firstName, secondBytes, secondName, externalFiles = {}) {
  const m = this.module;
  const session = new m.Session();
  const held = [];
  const toHeap = this.heapWriter(held);
  const comparison = new OpenComparison(m, session, held);
  try {
    for (const [name, data] of Object.entries(externalFiles)) unwrap(session.addExternalFile(name, toHeap(data), data.byteLength));
    comparison.reportText = unwrap(session.open(toHeap(firstBytes), firstBytes.byteLength, firstName, toHeap(secondBytes),
                                                secondBytes.byteLength, secondName));
    return comparison;
  } catch (e) {
    comparison.close();
    throw e;
  }
};

/**
 * Loads the wasm module. Under Node pass `wasmBinary` (the bytes of visualquant_core.wasm): Node's
 * fetch cannot read file paths. In browsers the .wasm next to this file is fetched by default.
 */
export async function loadVisualQuant(options = {}) {
  const module = await createVisualQuantModule(options.wasmBinary ? { wasmBinary: options.wasmBinary } : {});
  return new VisualQuant(module);
}
