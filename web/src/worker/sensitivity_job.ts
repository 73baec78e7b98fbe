// One sensitivity sweep in the core's thread: the core builds every what-if model and computes
// every figure (OpenComparison.startSensitivity); the runtime bridge runs them with onnxruntime-web,
// as for the activation comparison (activation_job.ts). The last sweep's run is kept: the mixed
// model the user saves is made from it.
import type { OpenComparison, SensitivityRun } from 'visualquant-core';
import { runActivations } from '../../../runtime/web/activation_driver.mjs';
import type { SensitivityParams } from '../protocol/messages';
import { loadOrt } from './ort_engine';

let last: { comparison: OpenComparison; run: SensitivityRun } | null = null;

/** Runs the sweep and returns the report's JSON text; `signal` ends it between runs, keeping what was measured. */
export async function runSensitivityJob(comparison: OpenComparison, params: SensitivityParams, signal: AbortSignal,
  progress: (detail: string, fraction?: number) => void): Promise<string> {
  const files: Record<string, Uint8Array> = {};
  for (const f of params.files) files[f.name] = new Uint8Array(f.bytes);
  const options = {
    inputs: params.bindings,
    ...(params.dims ? { dims: params.dims } : {}),
    ...(params.samples !== undefined ? { samples: params.samples } : {}),
    ...(params.seed !== undefined ? { seed: params.seed } : {}),
    ...(params.targetSqnrDb !== undefined ? { target_sqnr_db: params.targetSqnrDb } : {}),
    ...(params.split !== undefined ? { split: params.split } : {}),
    ...(params.chosen ? { chosen: params.chosen } : {}),
    ...(params.onlyChosen ? { only_chosen: true } : {}),
    ...(params.unit ? { unit: params.unit } : {}),
    ...(params.blockDepth !== undefined ? { block_depth: params.blockDepth } : {}),
    // The what-if models read the quantized model's weights from its file's bytes (external data).
    weights_by_reference: true,
  };
  last = null;
  const run = comparison.startSensitivity(options, files);
  progress('loading ONNX Runtime (onnxruntime-web)', 0);
  const { ort, engine } = await loadOrt();
  const text = await runActivations(run, {
    ort, engine, signal, viewFeeds: true,
    // The suggestion's runs are planned one by one: the total grows as it goes.
    onProgress: (r) => progress(`run ${r.index + 1} of ${r.runs_total}: ${r.model_label}, sample ${r.sample + 1}`, r.index / r.runs_total),
  });
  last = { comparison, run };
  return text;
}

/** The last sweep's pair with `entries` kept in float (Error when no sweep of this pair ran). */
export function mixedModelOf(comparison: OpenComparison, entries: number[]): Uint8Array {
  if (!last || last.comparison !== comparison) throw Object.assign(new Error('run the sensitivity sweep of this pair first'), { code: 'usage' });
  return last.run.mixedModel(entries);
}
