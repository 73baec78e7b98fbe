// The runtime bridge of the wasm core: runs an activation comparison's requests (an ActivationRun of
// build/wasm/dist/visualquant.mjs) with an ONNX Runtime JavaScript engine, and returns the report.
// The page's worker and the extension use onnxruntime-web; Node tests may pass onnxruntime-web or
// onnxruntime-node. The engine is given, never imported here, so each host loads it its own way
// (bundled wasm paths, CSP). The core decides every run and computes every figure; this only runs.
//
// A session is created when a request brings a new model id and kept for that id's later requests
// (the other samples), until a request marked last_use has run: each model is loaded once.

const TYPED = {
  float32: Float32Array, float64: Float64Array, int8: Int8Array, uint8: Uint8Array, int16: Int16Array,
  uint16: Uint16Array, int32: Int32Array, uint32: Uint32Array, int64: BigInt64Array, uint64: BigUint64Array,
  bool: Uint8Array, float16: Uint16Array,
};

/** How reports name the engine: the same words as the command line's runner (runtime/node/ort_runner.mjs). */
export function engineLabel(packageName, version, threads = 1) {
  return packageName === 'onnxruntime-web' ? `${packageName} ${version} (wasm, ${threads} thread${threads === 1 ? '' : 's'})`
    : `${packageName} ${version}`;
}

/** The cancellation error: runActivations throws it when the signal aborts between runs. */
export class ActivationsCancelled extends Error {
  constructor() {
    super('cancelled');
    this.name = 'ActivationsCancelled';
    this.code = 'cancelled';
  }
}

/**
 * A tensor's raw bytes as the typed array ONNX Runtime's Tensor takes, always in a buffer of its own.
 * Not a view, even when aligned: ONNX Runtime's results can depend on where an input starts in
 * memory (vectorised kernels peel unaligned heads, which changes the order of a sum), and a feed
 * viewed inside a larger buffer made a segmented run differ from the untapped one in the last bit.
 */
export function typedArray(type, bytes) {
  const T = TYPED[type];
  if (!T) throw new Error(`element type ${type} is not supported by the runtime bridge`);
  // Bytes that are their buffer already (the core's feeds: a fresh copy out of wasm memory) are
  // taken as they are: a second copy of a 64 MiB activation is garbage the page holds until a GC.
  // (A Node Buffer from the pool, or a slice, is a view into a larger buffer: copied.)
  const own = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength;
  const copy = own ? bytes : new Uint8Array(bytes);
  return new T(copy.buffer, 0, copy.byteLength / T.BYTES_PER_ELEMENT);
}

/**
 * Lets the thread's other messages in between two runs (a cancel, the page's other requests): an
 * engine whose run settles through promises alone would otherwise keep the thread to itself until
 * the last run. A macrotask, without setTimeout's clamping to 4 ms.
 */
function yieldToEvents() {
  if (typeof setImmediate === 'function') return new Promise((resolve) => setImmediate(resolve));
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => {
      channel.port1.close();
      resolve();
    };
    channel.port2.postMessage(null);
  });
}

function join(a, b) {
  if (!b.byteLength) return a;
  const out = new Uint8Array(a.byteLength + b.byteLength);
  out.set(a, 0);
  out.set(b, a.byteLength);
  return out;
}

/**
 * Runs every request of `run` (an ActivationRun, or a SensitivityRun: its what-if models may fail
 * without ending it, and a cancel keeps what it measured) and returns the report text.
 * ort: the engine module (InferenceSession, Tensor); engine: its label for the report (engineLabel);
 * floatBytes / quantBytes: the two model files' bytes, when the caller has them (otherwise each
 * session takes a copy of the core's: run.comparison.fileBytes); onProgress(request): before each
 * run; signal: an AbortSignal (checked between runs: a run in progress finishes first);
 * sessionOptions: more options for every session (threads); viewFeeds: give the engine views of
 * the core's feeds, not copies (only for an engine that copies its inputs as a run starts:
 * onnxruntime-web, whose heap is its own). Weights in external-data files come
 * from the files given with the models (onnxruntime-web's externalData).
 * An engine failure is rethrown as {code: 'runtime_failure', message} naming the model.
 */
export async function runActivations(run, { ort, engine, floatBytes, quantBytes, onProgress, signal, sessionOptions = {}, viewFeeds = false }) {
  // A side's file with the request's suffix: joined from the caller's bytes, or copied once out of the core's.
  const fileWith = (side, suffix) => {
    const given = side === 'float' ? floatBytes : quantBytes;
    return given ? join(given, suffix) : run.comparison.fileBytes(side, suffix);
  };
  const hasExternal = run.comparison.external?.length > 0;
  const sessions = new Map();  // model_id -> session
  const release = async (id) => {
    const session = sessions.get(id);
    sessions.delete(id);
    await session?.release?.();
  };
  try {
    while (run.request) {
      await yieldToEvents();
      if (signal?.aborted) {
        // A sweep keeps what it measured (its report says it was cancelled); a comparison has nothing to show.
        if (!run.keepsWhatWasMeasured) throw new ActivationsCancelled();
        run.cancel();
        break;
      }
      const r = run.request;
      onProgress?.(r);
      try {
        await runOne(r);
      } catch (e) {
        // A what-if model of a sweep that the engine rejects is that entry's failure, not the sweep's.
        if (e?.code !== 'runtime_failure' || !run.mayFail?.(r)) throw e;
        await release(r.model_id);
        run.fail(e.message);
      }
    }
  } finally {
    for (const id of [...sessions.keys()]) await release(id);
  }
  return run.report(engine);

  async function runOne(r) {
      if (r.new_model) {
        await release(r.model_id);
        const bytes = r.model_bytes ? join(run.model(), run.suffix()) : fileWith(r.side, run.suffix());
        // The model file itself, when the model's weights are references into it (weights_file): the
        // caller's bytes, or a view of the core's copy, taken last (a view lapses if the core's memory
        // grows meanwhile: then it is taken again and the session made once more).
        const weights = () => (r.side === 'float' ? floatBytes : quantBytes) ?? run.comparison.fileView(r.side);
        const create = (view) => {
          const options = { ...sessionOptions, graphOptimizationLevel: 'disabled', logSeverityLevel: 3 };
          const external = hasExternal ? run.comparison.externalData() : [];
          if (view) external.push({ path: r.weights_file, data: view });
          if (external.length) options.externalData = external;
          return ort.InferenceSession.create(bytes, options);
        };
        try {
          let view = r.weights_file ? weights() : null;
          let session;
          try {
            session = await create(view);
          } catch (e) {
            if (!view || view.byteLength > 0) throw e;
            view = weights();
            session = await create(view);
          }
          sessions.set(r.model_id, session);
        } catch (e) {
          throw Object.assign(new Error(`ONNX Runtime could not load ${r.model_label}: ${e?.message ?? e}`), { code: 'runtime_failure' });
        }
      }
      const session = sessions.get(r.model_id);
      if (!session) throw Object.assign(new Error(`no session was made for ${r.model_label}`), { code: 'runtime_failure' });
      const feeds = {};
      r.feeds.forEach((f, i) => {
        // An engine that copies its inputs into its own heap as a run starts (onnxruntime-web: the
        // core's next call comes after that) reads them straight out of the core's memory.
        const view = viewFeeds ? run.feedView(i) : null;
        const T = TYPED[f.type];
        const data = view && T && view.byteOffset % T.BYTES_PER_ELEMENT === 0
          ? new T(view.buffer, view.byteOffset, view.byteLength / T.BYTES_PER_ELEMENT)
          : typedArray(f.type, run.feed(i));
        feeds[f.name] = new ort.Tensor(f.type, data, f.dims);
      });
      let results;
      try {
        results = await session.run(feeds, r.fetches);
      } catch (e) {
        throw Object.assign(new Error(`ONNX Runtime could not run ${r.model_label}: ${e?.message ?? e}`), { code: 'runtime_failure' });
      }
      const outputs = r.fetches.map((name) => {
        const t = results[name];
        return { name, type: t.type, dims: t.dims, data: t.data };
      });
      run.accept(outputs);
      for (const name of r.fetches) results[name].dispose?.();
      if (r.last_use) await release(r.model_id);
  }
}
