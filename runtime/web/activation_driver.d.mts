import type { ActivationRequest, ActivationRun } from '../../build/wasm/dist/visualquant.mjs';

/** How reports name the engine: the same words as the command line's runner. */
export function engineLabel(packageName: string, version: string, threads?: number): string;

/** A tensor's raw bytes as the typed array ONNX Runtime's Tensor takes, in a buffer of its own (never a view). */
export function typedArray(type: string, bytes: Uint8Array): ArrayBufferView;

export class ActivationsCancelled extends Error {
  readonly code: 'cancelled';
}

export interface OrtEngine {
  InferenceSession: { create(bytes: Uint8Array, options: object): Promise<any> };
  Tensor: new (type: string, data: ArrayBufferView, dims: readonly number[]) => any;
}

/** Runs every request of `run` with the engine and returns the report text (visualquant.activations, or visualquant.sensitivity for a SensitivityRun, whose failed what-ifs are listed and whose cancel keeps what was measured). */
export function runActivations(run: ActivationRun, options: {
  ort: OrtEngine;
  engine: string;
  /** The model files' bytes, when the caller has them (else each session copies the core's). */
  floatBytes?: Uint8Array;
  quantBytes?: Uint8Array;
  /** More options for every session (numThreads, executionProviders). */
  sessionOptions?: object;
  onProgress?: (request: ActivationRequest) => void;
  signal?: AbortSignal;
  /** Views of the core's feeds instead of copies: only for an engine that copies its inputs as a run starts (onnxruntime-web). */
  viewFeeds?: boolean;
}): Promise<string>;
