// The typed message protocol between the UI and the core. The UI speaks it to a CoreConnection;
// the Web Worker (worker/core_worker.ts) is one transport, the VS Code extension host will be
// another. Every message is plain structured-cloneable data: file bytes travel as ArrayBuffers,
// transferred, never copied; large results as JSON text.
import type {
  CompareReport, InspectReport, ThreeWayReport, InspectValue, LayoutLabelsReport, LayoutPairReport, LayoutReport, LintFinding, NodeReport, VisualQuantErrorCode, WeightLayer,
  WeightsReport, WeightsSlice,
} from 'visualquant-core';

export type {
  ActivationError, ActivationPoint, ActivationsReport, InspectValue, CompareReport, InspectReport, LayoutLabelsReport, LayoutPairReport, LayoutReport, LayoutEdge, LayoutGroup, LayoutModelNode, LayoutGroupNode,
  LabelledGroup, LabelledNode, LintFinding,
  LogicalOp, MappingEntry, MappingKind, FusionGroup, NodeAttribute, NodeInput, NodeOutput, NodeReport, NodeTensorSummary,
  TensorQuantization, WeightLayer, WeightsReport, WeightsSlice, UnrankedWeightLayer, InvalidWeightLayer, ThreeWayReport, ThreeWayRow, ThreeWayCell, QuantParamViolation, ComparisonCase, CompareSide, SameNetworkEvidence, WeightMeasures,
} from 'visualquant-core';

/** One file handed to the core: its name (as the model refers to it, for external data) and bytes. */
export interface FilePayload {
  name: string;
  bytes: ArrayBuffer;
}

/**
 * A file the host reads itself (the VS Code extension host, next to the files): the UI names it by
 * `ref`, an id the host gave, and the host hands the core its bytes. A core without a host (the Web
 * Worker) refuses references.
 */
export interface FileReference {
  name: string;
  ref: string;
}
/**
 * A file the core's worker reads itself, chunk by chunk straight into the core's memory: a File the
 * user picked (read from disk) or a same-origin URL (the page's ?float= query). No whole copy of
 * it is ever made outside the core: a 434 MB model read into an ArrayBuffer first stayed in the
 * page next to the core's copy, until a garbage collection an idle page does not make.
 */
export interface FileStream {
  name: string;
  blob?: Blob;
  url?: string;
}
/**
 * An external-data file on the local disk that the core's thread reads by range itself, a weight at
 * a time (the VS Code extension host's thread, with fs.readSync): a host names only files it has
 * checked (inside the model's folder, no symbolic link). A core without a disk refuses it.
 */
export interface FileOnDisk {
  name: string;
  path: string;
}
/**
 * A file as the pieces it was read in: how the core worker gives a large pair to its helper core
 * (weights_helper.ts), the chunks it read (or the bytes it was given) kept and transferred, where a
 * copy out of its own memory took it 60 ms on the segmentation pair (120 MB of fresh pages).
 */
export interface FilePieces {
  name: string;
  pieces: ArrayBuffer[];
}
export type FileSource = FilePayload | FileReference | FileStream | FileOnDisk | FilePieces;
export const isPieces = (f: FileSource): f is FilePieces => 'pieces' in f;
export const isReference = (f: FileSource): f is FileReference => 'ref' in f;
export const isStream = (f: FileSource): f is FileStream => 'blob' in f || 'url' in f;
export const isOnDisk = (f: FileSource): f is FileOnDisk => 'path' in f;

export type LayoutView = 'logical' | 'nodes';

/**
 * Which open pair a request is about: the float model with version A (the pair; the default) or
 * with version B (a three-way comparison's second version).
 */
export type PairName = 'A' | 'B';

/**
 * What a paired layout is asked for: the view; which name-scope groups are open (`collapsed` with
 * `expanded` naming the open ones; without `collapsed`, all are open); and the label sizes the UI
 * measured, per side, as (width, height) pairs by node index and by group (-1 keeps the core's
 * estimate). Plain arrays, so that the message stays JSON (the VS Code host keys its cache by it).
 */
export interface LayoutParams {
  view: LayoutView;
  pair?: PairName;
  collapsed?: boolean;
  expanded?: string[];
  floatNodeSizes?: number[];
  floatGroupSizes?: number[];
  quantNodeSizes?: number[];
  quantGroupSizes?: number[];
}

/** Every request the core answers: its parameters and its result. */
export interface CoreMethods {
  /**
   * Loads and aligns the two models (either order) and keeps them open. Replaces an open pair. With
   * `third`, a three-way comparison: of the three models the float one is the hub (in any order:
   * the core tells by their content), the other two are versions A and B in the order given; the
   * float model and A are the pair (`report`), the float model and B the pair 'B' (`versionB`).
   */
  open: {
    params: { first: FileSource; second: FileSource; third?: FileSource; external: Array<FilePayload | FileStream | FileOnDisk> };
    result: { report: CompareReport; version: string; versionB?: CompareReport };
  };
  /** Loads one model (the single-model viewer) and keeps it open; its inspect report. Replaces an open model. */
  openModel: { params: { file: FileSource; external: Array<FilePayload | FileStream | FileOnDisk> }; result: { inspect: InspectReport; version: string } };
  /** The open model's graph laid out. */
  layoutModel: { params: { view: LayoutView }; result: LayoutReport };
  /** Both graphs laid out side by side (matched ops in shared rows), of the open pair. */
  layout: { params: LayoutParams; result: LayoutPairReport };
  /** Both layout graphs' nodes and groups with their labels, not laid out: measured before the first layout. */
  labels: { params: { view: LayoutView; pair?: PairName }; result: LayoutLabelsReport };
  /**
   * The three-way table of an open three-way comparison (the CLI's `compare FLOAT A B --json`):
   * each version's weight analysis is made first, unless `weights` made it. With `activations`,
   * the last activation comparison of each version (on the same inputs: the page runs them one
   * after the other) gives each row both versions' activation error (`compare ... --input`).
   */
  threeWay: { params: { activations?: boolean }; result: ThreeWayReport };
  /** Every aligned weight pair's analysis, ranked worst first (the layer table, the heat overlay): the
   *  table's fields only, unless `detail` (histograms, per-channel series: the JSON export). */
  weights: { params: { bins?: number; detail?: boolean }; result: WeightsReport };
  /**
   * Between core workers only (worker/weights_helper.ts): analyse share `part` of `parts` of the open
   * pair's weights summary (with `detail`, of the full report with `bins`: the JSON export), then the other shares' pairs from the far end, sending each slice's
   * results (`results` on the progress) for the core that asked to absorb. Ends when every pair is
   * done, when that core says its table is done (an end-share message), or when another request is
   * waiting. The result: whether every pair was done here.
   */
  weightsShare: { params: { part: number; parts: number; detail?: boolean; bins?: number }; result: { complete: boolean } };
  /** One layer's full weight analysis, by float or quantized node id (the detail panel's charts). */
  weightLayer: { params: { nodeId: string; bins?: number }; result: WeightLayer };
  /**
   * One model node's detail (op, attributes, inputs and outputs with types and shapes), by id or unique
   * name: of the open pair's `side`, or without `side` of the single-model viewer's open model.
   */
  node: { params: { nodeId: string; side?: 'float' | 'quant'; pair?: PairName }; result: NodeReport };
  /** The quantization lint's findings. */
  lint: { params: Record<string, never>; result: LintFinding[] };
  /** The open pair's float model inputs as declared: what input files bind to, which dims need a value. */
  activationInputs: { params: Record<string, never>; result: InspectValue[] };
  /**
   * Runs both models of the open pair on the same inputs with ONNX Runtime (onnxruntime-web, in the
   * core's thread) and compares every aligned tensor: the activations report. It runs in the
   * background (BACKGROUND): other requests are answered between its runs, and cancelling it ends
   * it after the run in progress, without restarting the core. Opening other models cancels it.
   */
  activations: { params: ActivationParams; result: { text: string } };
  /**
   * Keeps each quantized entry of the open pair in float in turn, runs each what-if model on the
   * same inputs, and finds the smallest set that reaches the target: the sensitivity report. In
   * the background as `activations` is; cancelling it keeps what was measured (the report says so).
   */
  sensitivity: { params: SensitivityParams; result: { text: string } };
  /** The quantized model with `entries` kept in float, standalone, as base64 (the last sweep's pair). */
  mixedModel: { params: { entries: number[] }; result: { base64: string; bytes: number } };
  /** The Python that tells a quantizer to keep `entries` in float. */
  exclusionSnippet: { params: { entries: number[]; format: 'ort' | 'modelopt' | 'nncf' }; result: { text: string } };
}

/** What a sensitivity sweep is asked with: the inputs as for activations, and the command line's flags. */
export interface SensitivityParams {
  files: FilePayload[];
  bindings: { name: string; file: string }[];
  dims?: Record<string, number>;
  samples?: number;
  seed?: number;
  /** --target-sqnr (default 30 dB, which the report then calls the default). */
  targetSqnrDb?: number;
  /** --split: also the weights-only and activations-only variants (default true). */
  split?: boolean;
  /** --keep: a hand-picked set, measured and exported instead of the suggestion. */
  chosen?: number[];
  /** --measure chosen: the hand-picked set alone, no sweep. */
  onlyChosen?: boolean;
  /** --unit block, --block-depth: name-scope blocks kept in float together instead of entries. */
  unit?: 'entry' | 'block';
  blockDepth?: number;
}

/** What an activation comparison is asked with (the command line's flags). */
export interface ActivationParams {
  /** Of a three-way comparison, which version runs against the float model (default A). */
  pair?: PairName;
  /** The input files (.npy or TensorProto .pb), each bound to an input by `bindings`. */
  files: FilePayload[];
  /** NAME=FILE per file, as on the command line; name '' for the model's only input. None: synthetic inputs. */
  bindings: { name: string; file: string }[];
  /** Values of symbolic dimensions, by symbol or 'INPUT:POSITION'. */
  dims?: Record<string, number>;
  /** Synthetic samples and their seed (without files). */
  samples?: number;
  seed?: number;
  /** The local-error runs (default true). */
  local?: boolean;
  /**
   * A what-if (the command line's --keep): compare the quantized model with these entries kept in
   * float instead, opened as a comparison of its own in the core; the report names it so.
   */
  keepInFloat?: number[];
  /**
   * The bytes of compared tensors one run returns (the command line's --tap-budget). Default 64 MiB
   * in the page, where every tapped byte is held three times at once (in ONNX Runtime's wasm heap,
   * as a JavaScript array, and in the core's heap), against the command line's 512 MiB.
   */
  tapBudgetBytes?: number;
}

/**
 * Requests the core runs in the background: between their steps it answers the others, so the
 * oldest request pending is not necessarily the one running, and a cancel ends them cooperatively.
 */
export const BACKGROUND: ReadonlySet<Method> = new Set<Method>(['activations', 'sensitivity']);

export type Method = keyof CoreMethods;
export type Params<M extends Method> = CoreMethods[M]['params'];
export type Result<M extends Method> = CoreMethods[M]['result'];

/** Error codes: the core's, plus what a transport adds. 'core_failed': the wasm instance failed (a trap, a stack overflow). */
export type CoreErrorCode =
  | VisualQuantErrorCode | 'not_found' | 'no_open_pair' | 'no_open_model' | 'cancelled' | 'transport' | 'internal' | 'core_failed';

export interface CoreError {
  code: CoreErrorCode;
  message: string;
  /**
   * The core's wasm instance failed on this request and was replaced by a fresh one: the pair or
   * model that was open is gone (open it again). Set with 'core_failed', or 'out_of_memory' when
   * memory ran out.
   */
  restarted?: boolean;
}

// ---- UI -> core ----------------------------------------------------------------------------------
export type RequestMessage = { [M in Method]: { type: 'request'; id: number; method: M; params: Params<M> } }[Method];
/**
 * Asks the core to drop a request it has not started, or to end a BACKGROUND one after its current
 * step; any other request already running is ended by the transport.
 */
export interface CancelMessage {
  type: 'cancel';
  id: number;
}
export type ToCore = RequestMessage | CancelMessage;

// ---- core -> UI ----------------------------------------------------------------------------------
export type ProgressStage = 'starting' | 'reading' | 'loading' | 'aligning' | 'layout' | 'weights' | 'lint' | 'activations' | 'sensitivity' | 'versions';
export interface ProgressMessage {
  type: 'progress';
  id: number;
  stage: ProgressStage;
  /** Human-readable detail ("aligning 2 models"). */
  detail: string;
  /** 0..1 when known. */
  fraction?: number;
  /**
   * The 'weights' request's analysis as it goes: the layers one slice found (unranked), and what
   * they measure. The table shows them while the rest are analysed.
   */
  slice?: Omit<WeightsSlice, 'done' | 'shareDone'>;
  /** A 'weightsShare' request's results of one slice (OpenComparison.weightsResults), for the core that asked. */
  results?: Uint8Array;
}
export type ResultMessage = { [M in Method]: { type: 'result'; id: number; method: M; result: Result<M> } }[Method];
/**
 * A result as the core's JSON text, which the receiver parses (PendingTable): the Web Worker sends
 * the text as it is, one string copy across the thread, where a parsed report of a large pair
 * would be cloned object by object.
 */
export interface JsonResultMessage {
  type: 'json-result';
  id: number;
  method: Method;
  json: string;
}
export interface ErrorMessage {
  type: 'error';
  id: number;
  error: CoreError;
}
/** Sent once when the core is loaded and ready for requests. */
export interface ReadyMessage {
  type: 'ready';
  version: string;
}
export type FromCore = ProgressMessage | ResultMessage | JsonResultMessage | ErrorMessage | ReadyMessage;

/** The core's error codes, in words (as the README's table of loader errors). */
export const ERROR_WORDS: Record<string, string> = {
  usage: 'the request was not valid',
  io: 'the file could not be read',
  empty_input: 'the file is empty',
  not_onnx: 'the bytes are not an ONNX model (not a valid ONNX protobuf)',
  truncated: 'the file ends in the middle of a field (truncated or incomplete download)',
  too_deep: 'messages are nested deeper than the limit',
  payload_size_mismatch: "a tensor's bytes disagree with its dimensions and type",
  wrong_data_field: 'values are stored in a field that their type does not use',
  invalid_shape: 'a tensor has a negative dimension',
  shape_too_large: 'a tensor has more elements than allowed',
  unknown_element_type: 'a tensor has an element type that ONNX 1.17 does not define',
  unsafe_external_path: 'an external-data path is absolute or leaves the model folder',
  missing_external_file: 'an external-data file is missing: add it with the models',
  external_range_out_of_file: 'an external-data offset or length lies past the end of its file',
  graph_cycle: 'the nodes form a cycle',
  dangling_input: 'a node reads a value that nothing produces',
  duplicate_value_name: 'one value name has two producers',
  invalid_quant_params: 'quantization parameters do not fit their tensor',
  recursive_function: 'a model-local function calls itself, directly or through other functions',
  function_nesting_too_deep: 'functions and subgraphs are nested deeper than the limit',
  field_too_large: 'a protobuf field is larger than protobuf allows (2 GiB): keep the weights in external data',
  invalid_input_file: 'an input file is not the .npy or TensorProto .pb it claims to be',
  input_mismatch: "the input files do not fit the model's inputs",
  unset_dimension: 'an input dimension is symbolic and needs a value',
  runtime_failure: 'ONNX Runtime could not load or run a model',
  cannot_keep_in_float: 'the entries asked for cannot be kept in float',
  out_of_memory: 'the models do not fit in the memory the core has',
  not_found: 'no such node',
  no_open_pair: 'no models are open',
  no_open_model: 'no model is open',
  cancelled: 'cancelled',
  transport: 'the connection to the core failed',
  internal: 'an internal error occurred',
  core_failed: 'the tool hit an internal failure on this model, and its core has been restarted',
};

export function describeError(error: CoreError): string {
  const words = ERROR_WORDS[error.code];
  return words ? `${words[0].toUpperCase()}${words.slice(1)} [${error.code}]: ${error.message}` : `[${error.code}] ${error.message}`;
}
