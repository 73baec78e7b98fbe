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

// Copies bytes into the wasm heap with one HEAPU8.set (fast), runs fn(pointer, size), frees them
// unless `keep` says the core holds on to them.
function withHeapBytes(module, bytes, fn) {
  const pointer = module._malloc(Math.max(bytes.byteLength, 1));
  if (!pointer) throw new VisualQuantError('out_of_memory', 'cannot allocate ' + bytes.byteLength + ' bytes in wasm memory');
  module.HEAPU8.set(bytes, pointer);
  return { pointer, result: fn(pointer, bytes.byteLength) };
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

  /**
   * Summary report of one model, as JSON text (byte-identical to `visualquant inspect --json`).
   * externalFiles maps names relative to the model (as written in the model) to their bytes.
   */
  inspect(bytes, fileName, externalFiles = {}) {
    const m = this.module;
    const session = new m.Session();
    const held = [];
    try {
      for (const [name, data] of Object.entries(externalFiles)) {
        const { pointer, result } = withHeapBytes(m, data, (p, n) => session.addExternalFile(name, p, n));
        held.push(pointer);
        unwrap(result);
      }
      const { pointer, result } = withHeapBytes(m, bytes, (p, n) => session.inspect(p, n, fileName));
      held.push(pointer);
      return unwrap(result);
    } finally {
      session.delete();
      for (const p of held) m._free(p);
    }
  }
}

/**
 * Loads the wasm module. Under Node pass `wasmBinary` (the bytes of visualquant_core.wasm): Node's
 * fetch cannot read file paths. In browsers the .wasm next to this file is fetched by default.
 */
export async function loadVisualQuant(options = {}) {
  const module = await createVisualQuantModule(options.wasmBinary ? { wasmBinary: options.wasmBinary } : {});
  return new VisualQuant(module);
}
