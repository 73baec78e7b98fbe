// The worker's wasm instance, replaced when it fails. A call that fails with anything but the core's
// own error (a VisualQuantInstanceFailure: a trap, a stack overflow, an abort) leaves the instance
// with corrupt memory: after a few, even the example pair would fail to load. So the failed instance
// is dropped, with everything opened in it, and a fresh one (the same compiled wasm, instantiated
// again) takes the next request.
import { VisualQuantInstances, type VisualQuant } from 'visualquant-core';

export class LiveCore {
  private readonly instances: VisualQuantInstances;
  /** The instance requests run on; null while one starts. */
  current: VisualQuant | null = null;

  /** `ready` runs each time an instance is up (the first, and each replacement). */
  /** `wasm`: the module compiled already (by the page: core_module.ts), or its bytes. */
  constructor(wasm: WebAssembly.Module | Uint8Array, private readonly ready: (core: VisualQuant) => void) {
    this.instances = new VisualQuantInstances(wasm instanceof WebAssembly.Module ? { wasmModule: wasm } : { wasmBinary: wasm });
  }

  /**
   * Loads an instance and makes it current: the first one, or a fresh one in place of the current
   * one once it has failed. Meanwhile current is null, and requests wait in the worker's queue.
   */
  async start(): Promise<VisualQuant> {
    this.current = null;
    const core = await this.instances.live();
    // The onnx operator schemas' table is made per instance (each schema is built on first use).
    core.warmUp();
    this.current = core;
    this.ready(core);
    return core;
  }
}
