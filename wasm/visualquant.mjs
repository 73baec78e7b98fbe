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

// Copies bytes into the wasm heap with one HEAPU8.set (fast) and returns their address; the
// pointers go to `held`, for the caller to free.
function heapWriter(m, held) {
  return (bytes) => {
    const pointer = m._malloc(Math.max(bytes.byteLength, 1));
    if (!pointer) throw new VisualQuantError('out_of_memory', `cannot allocate ${bytes.byteLength} bytes in wasm memory`);
    held.push(pointer);
    m.HEAPU8.set(bytes, pointer);
    return pointer;
  };
}

function unwrap(result) {
  if (!result.ok) throw new VisualQuantError(result.errorCode, result.errorMessage);
  return result.json;
}

export class VisualQuant {
  constructor(module) {
    this.module = module;
  }

  get version() {
    return this.module.version();
  }

  // Runs fn(session, toHeap) with a core session that knows the external files; toHeap copies bytes
  // into the wasm heap with one HEAPU8.set (fast) and returns their address. Everything is freed
  // afterwards.
  withSession(externalFiles, fn) {
    const m = this.module;
    const session = new m.Session();
    const held = [];
    const toHeap = heapWriter(m, held);
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

  /** The compare report without weights and lint (JSON text). */
  get report() {
    return this.reportText;
  }

  /** One aligned weight pair's full analysis, by float or quantized node id (JSON text). */
  weightLayer(nodeId, bins = 0) {
    return unwrap(this.session.weightLayer(nodeId, bins));
  }

  /** Every aligned weight pair, ranked worst first (JSON text, as `visualquant weights --json -`). */
  weights(bins = 0) {
    return unwrap(this.session.weights(bins));
  }

  /** The quantization lint (JSON text). */
  lint() {
    return unwrap(this.session.lint());
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
  const toHeap = heapWriter(m, held);
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
