// One activation comparison in the core's thread: the core plans every run and computes every
// figure (OpenComparison.startActivations); the runtime bridge (runtime/web/activation_driver.mjs)
// runs the models with onnxruntime-web, loaded on first use (ort_engine.ts).
import type { OpenComparison } from 'visualquant-core';
import { runActivations } from '../../../runtime/web/activation_driver.mjs';
import type { ActivationParams } from '../protocol/messages';
import { loadOrt } from './ort_engine';

/** The page's tap budget (ActivationParams.tapBudgetBytes): 64 MiB. */
export const PAGE_TAP_BUDGET_BYTES = 64 * 1024 * 1024;

/** What a run is for, where the model's label does not say it ("the float model" runs untapped first). */
const KIND_WORDS: Record<string, string> = { untapped: ', untapped (to check that tapping changes nothing)' };

/** Runs the comparison and returns the report's JSON text; `signal` ends it between runs (ActivationsCancelled). */
export async function runActivationJob(comparison: OpenComparison, params: ActivationParams, signal: AbortSignal,
  progress: (detail: string, fraction?: number) => void): Promise<string> {
  const files: Record<string, Uint8Array> = {};
  for (const f of params.files) files[f.name] = new Uint8Array(f.bytes);
  const options = {
    inputs: params.bindings,
    tap_budget_bytes: params.tapBudgetBytes ?? PAGE_TAP_BUDGET_BYTES,
    ...(params.dims ? { dims: params.dims } : {}),
    ...(params.samples !== undefined ? { samples: params.samples } : {}),
    ...(params.seed !== undefined ? { seed: params.seed } : {}),
    ...(params.local !== undefined ? { local: params.local } : {}),
    // onnxruntime-web is given the model files' bytes as the external data of their weights, not
    // models holding them: its heap then holds each weight once (rewrite/weights_by_reference.h).
    weights_by_reference: true,
  };
  // A what-if: the same runs on a comparison of its own (the float model against the quantized model
  // with those entries kept in float), closed when they are done; the open pair stays as it is.
  const keep = params.keepInFloat?.length ? [...new Set(params.keepInFloat)].sort((a, b) => a - b) : null;
  const target = keep ? comparison.openWhatIf(keep, whatIfLabel(comparison, keep)) : comparison;
  try {
    // The inputs are checked against the model first: a wrong file is said at once, before the engine loads.
    const run = target.startActivations(options, files);
    progress('loading ONNX Runtime (onnxruntime-web)', 0);
    const { ort, engine } = await loadOrt();
    return await runActivations(run, {
      ort, engine, signal, viewFeeds: true,
      onProgress: (r) => progress(`run ${r.index + 1} of ${r.runs_total}: ${r.model_label}${KIND_WORDS[r.kind] ?? ''}, sample ${r.sample + 1}`,
        r.index / r.runs_total),
    });
  } finally {
    if (target !== comparison) target.close();
  }
}

/** As the command line names a what-if (whatif/what_if_pair.h what_if_label): the same report bytes. */
function whatIfLabel(comparison: OpenComparison, entries: number[]): string {
  const quant = (JSON.parse(comparison.report) as { quant: { file: string } }).quant.file;
  return `${quant} with entr${entries.length === 1 ? 'y' : 'ies'} ${entries.join(', ')} kept in float`;
}
