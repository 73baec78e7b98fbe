// Types of the wasm core's JavaScript wrapper (visualquant.mjs).

/** Error codes of the core (vq::ErrorCode), plus out_of_memory. */
export type VisualQuantErrorCode =
  | 'usage' | 'io' | 'empty_input' | 'not_onnx' | 'truncated' | 'too_deep' | 'payload_size_mismatch'
  | 'invalid_shape' | 'shape_too_large' | 'unsafe_external_path' | 'missing_external_file'
  | 'external_range_out_of_file' | 'graph_cycle' | 'dangling_input' | 'duplicate_value_name'
  | 'unknown_element_type' | 'wrong_data_field' | 'invalid_quant_params' | 'recursive_function'
  | 'function_nesting_too_deep' | 'field_too_large' | 'invalid_input_file' | 'input_mismatch'
  | 'unset_dimension' | 'runtime_failure' | 'cannot_keep_in_float' | 'out_of_memory' | 'not_found';

export class VisualQuantError extends Error {
  readonly code: VisualQuantErrorCode;
  constructor(code: VisualQuantErrorCode, message: string);
}

/**
 * A call into the wasm module failed with something other than a VisualQuantError: a trap
 * (WebAssembly.RuntimeError: "unreachable", "memory access out of bounds"), a stack overflow
 * (RangeError), an abort, a C++ exception that escaped. The instance is then corrupt and is never
 * entered again: every later call on it, and on the comparisons and layout views it opened, throws
 * this same failure. Load a fresh instance (VisualQuantInstances.live() does).
 */
export class VisualQuantInstanceFailure extends Error {
  /** What the module threw. */
  readonly cause: unknown;
  /** The failure was memory running out (not a corrupt pointer or a call stack too deep). */
  readonly outOfMemory: boolean;
  constructor(cause: unknown);
}

export interface InspectValue {
  name: string;
  element_type: string | null;
  shape: Array<number | string | null> | null;
}

export interface WeightTally {
  count: number;
  elements: number;
  bytes: number;
}

/** The `visualquant.inspect` report, version 1. */
export interface InspectReport {
  report: 'visualquant.inspect';
  version: 1;
  file: { name: string; size_bytes: number };
  model: {
    ir_version: number;
    producer_name: string;
    producer_version: string;
    domain: string;
    model_version: number;
    opset_imports: Array<{ domain: string; version: number }>;
    metadata_props: Array<{ key: string; value: string }>;
  };
  graph: {
    name: string;
    nodes: number;
    nodes_in_subgraphs: number;
    subgraphs: number;
    values: number;
    inputs: InspectValue[];
    outputs: InspectValue[];
    functions: Array<{ domain: string; name: string; nodes: number }>;
  };
  op_types: Array<{ domain: string; op_type: string; count: number }>;
  weights: WeightTally & {
    by_element_type: Array<WeightTally & { element_type: string }>;
    by_location: Array<WeightTally & { location: string }>;
    by_storage: Array<WeightTally & { storage: string }>;
  };
  quantization: {
    forms: Array<'qdq' | 'qoperator' | 'integer_ops' | 'weight_only'>;
    ops: Record<string, number>;
    dequantize_of_weights: number;
    dequantize_of_activations: number;
    quantized_weight_types: Record<string, number>;
  };
  warnings: Array<{ source: 'checker' | 'shape_inference' | 'loader'; message: string }>;
}

/** A tensor summarised: element type, dims, where its bytes are, its first values (at most 16). */
export interface NodeTensorSummary {
  name: string;
  element_type: string;
  dims: number[];
  elements: number;
  storage: 'inline' | 'typed_field' | 'external' | 'empty' | 'strings';
  /** Numbers (NaN and infinities as 'nan', 'inf', '-inf'), booleans, strings, or [real, imaginary]. */
  values: Array<number | boolean | string | [number | string, number | string]>;
}

/** An attribute's tensor that could not be read (its bytes disagree with its type and dims). */
export interface NodeTensorError {
  name: string;
  error: string;
}

/** A body held in a graph attribute: its name, path in the model and how many nodes it holds directly. */
export interface NodeGraphSummary {
  name: string;
  path: string;
  nodes: number;
}

export interface NodeSparseSummary {
  element_type: string | null;
  dims: number[];
  stored_values: number;
}

export type NodeAttributeValue =
  | number | string | NodeTensorSummary | NodeTensorError | NodeGraphSummary | NodeSparseSummary | null
  | Array<number | string | NodeTensorSummary | NodeTensorError | NodeGraphSummary | NodeSparseSummary | null>;

export interface NodeAttribute {
  name: string;
  type: 'float' | 'int' | 'string' | 'tensor' | 'graph' | 'sparse_tensor' | 'type_proto' | 'floats' | 'ints' | 'strings'
    | 'tensors' | 'graphs' | 'sparse_tensors' | 'type_protos' | 'undefined';
  /** Lists: at most 64 entries (`count` is the full length); strings: at most 4096 bytes. */
  value: NodeAttributeValue;
  count?: number;
  /** The full length of a string value that was cut. */
  value_length?: number;
  ref_attr_name?: string;
}

export interface NodeRef {
  id: string;
  op_type: string;
}

export interface NodeInput {
  index: number;
  /** '' for an omitted optional input (source 'omitted', nothing else). */
  name: string;
  element_type?: string | null;
  shape?: Array<number | string | null> | null;
  source: 'graph_input' | 'initializer' | 'node' | 'outer_scope' | 'omitted';
  /** Set when the value comes from an enclosing graph (its path; '' is the main graph). */
  from_graph?: string;
  producer?: NodeRef;
  /** An initializer's or a Constant node's value. */
  tensor?: NodeTensorSummary;
}

export interface NodeOutput {
  index: number;
  name: string;
  omitted?: true;
  element_type?: string | null;
  shape?: Array<number | string | null> | null;
  graph_output?: boolean;
  consumer_count?: number;
  /** At most 64; readers inside nested bodies carry their graph's path. */
  consumers?: Array<NodeRef & { graph?: string }>;
}

/** The `visualquant.node` report, version 1: one node's detail (`visualquant inspect MODEL --node NAME --json`). */
export interface NodeReport {
  report: 'visualquant.node';
  version: 1;
  file: string;
  id: string;
  name: string;
  op_type: string;
  /** '' for ai.onnx. */
  domain: string;
  doc_string: string;
  doc_string_length?: number;
  graph: {
    /** '' for the main graph, '<owner id>/<attribute>' for a body. */
    path: string;
    name: string;
    /** The bodies it sits in, outermost first. */
    scope: Array<{ node: string; op_type: string; attribute: string }>;
  };
  attributes: NodeAttribute[];
  inputs: NodeInput[];
  outputs: NodeOutput[];
}

/** 'structural': a one-to-one match of two models that are not the same network (matched by structure only). */
export type MappingKind = 'identical' | 'renamed' | 'structural' | 'fused' | 'lowered' | 'inserted' | 'removed';

/** What kind of pair a comparison is (README: "Any two models"). */
export type ComparisonCase = 'float_vs_quantized' | 'quantized_vs_quantized' | 'float_vs_float';

export interface CompareSide {
  file: string;
  /** What the model is: "float" (no quantized form) or "quantized". */
  role: 'float' | 'quantized';
  /** How the side is named: "float" / "quantized" for a float model and its quantized version, else "A" / "B" by the files' order. */
  label: 'float' | 'quantized' | 'A' | 'B';
  /** 1 or 2: the position of this file in the caller's order. */
  argument: 1 | 2;
  size_bytes: number;
  producer_name: string;
  producer_version: string;
  nodes: number;
  logical_ops: number;
  quantization_forms: Array<'qdq' | 'qoperator' | 'integer_ops' | 'weight_only'>;
}

/** One correspondence: node ids on each side (Q/DQ and rescale nodes in the entry of the op they serve). */
export interface MappingEntry {
  float: string[];
  quant: string[];
  /** The compute nodes among them (one per logical op). */
  float_ops: string[];
  quant_ops: string[];
  kind: MappingKind;
  confidence: number;
  evidence: string[];
}

export interface FusionGroup {
  pattern: string;
  entry: number;
  float: string[];
  quant: string[];
  verification: 'verified' | 'consistent' | 'mismatch' | 'unverifiable';
  detail: string;
}

/** How one tensor of an op is quantized. */
/** What one version made of a three-way row's float ops (README "Three-way comparisons"). */
export interface ThreeWayCell {
  /** This version's mapping entries (indices into its own two-way report's mapping) covering the row. */
  entries: number[];
  /** This version's nodes (ids) of those entries; empty when it has no counterpart. */
  ops: string[];
  /** The entries' match kind when they agree, else 'mixed'; 'removed' when this version has no counterpart. */
  kind: MappingKind | 'mixed';
  /** How this version computes the ops: 'float', 'qdq', 'qoperator', 'integer_ops', 'weight_only', … */
  form: string;
  quantized: boolean;
  fused: boolean;
  lowered: boolean;
  weight_kept_float: boolean;
  weight: TensorQuantization | null;
  output: TensorQuantization | null;
  weight_compared: boolean;
  weight_sqnr_db: number | null;
  /** Whether both models ran on inputs and the row's output was observed (the command line's run options); null SQNR then: exact. */
  activation_compared: boolean;
  activation_sqnr_db: number | null;
}

export interface ThreeWayRow {
  row: number;
  float_ops: string[];
  float_op_types: string[];
  A: ThreeWayCell;
  B: ThreeWayCell;
  /** B's weight (output) scale over A's, when both have one per tensor or per channel alike. */
  weight_scale_ratio: number | null;
  output_scale_ratio: number | null;
  winner: 'A' | 'B' | 'tie' | null;
  winner_reason: string;
  disagreement: number;
  /** The differences in words, each only when the models show it. */
  differences: string[];
}

/** `visualquant compare FLOAT A B --json`: one float model and two quantized versions of it. */
export interface ThreeWayReport {
  report: 'visualquant.compare';
  version: number;
  case: 'three_way';
  float: CompareSide;
  summary: {
    rows: number;
    differing: number;
    winners: { A: number; B: number; tie: number; unknown: number };
    winner_rule: string;
    /** The inputs and runtime both versions ran on, or null when they were not run. */
    activations: { inputs: { synthetic: boolean; note?: string; samples: string[] }; runtime: Record<string, unknown> } | null;
    disagreement_rule: string;
    same_network: { A: boolean | null; B: boolean | null };
  };
  /** Each version's whole two-way report (float <-> it) with its label, "A" then "B". */
  versions: Array<CompareReport & { label: 'A' | 'B'; weights: WeightsReport | null; lint: LintFinding[] | null; activations?: ActivationsReport }>;
  table: ThreeWayRow[];
  /** Row indices of the rows that differ, most different first. */
  where_they_differ: number[];
  /** Version A's nodes paired with version B's through the float model, per row. */
  direct: Array<{ row: number; float: string[]; A: string[]; B: string[] }>;
}

export interface TensorQuantization {
  type: string;
  granularity: 'per_tensor' | 'per_channel' | 'blocked' | 'dynamic' | 'implied';
  axis: number;
  block_size: number;
  scale_count: number;
  /** [min, max] over all scales / zero points (null when there are none). */
  scale_range: [number, number] | null;
  zero_point_range: [number, number] | null;
  /** Listed when there are at most 16. */
  scales?: number[];
  zero_points?: number[];
}

export interface LogicalOp {
  id: number;
  class: string;
  op: string;
  op_type: string;
  nodes: string[];
  preds: number[];
  succs: number[];
  quantized: boolean;
  weight?: { stored_type: string; channels: number; per_channel: number; dequantized: boolean };
  /** Present on quantized ops: weight, bias, each data input and the output (null where float). */
  quantization?: {
    weight: TensorQuantization | null;
    bias: TensorQuantization | null;
    inputs: Array<TensorQuantization | null>;
    output: TensorQuantization | null;
  };
}

/** The evidence of summary.same_network: how the weighted matches' weights compare. */
export interface SameNetworkEvidence {
  weighted_matches: number; agree: number; differ: number; undecided: number;
  /** The verdict and its evidence in words. */
  reason: string;
}

/**
 * The `visualquant.compare` report, version 2. `float` is the reference side and `quant` the
 * compared one: a float model and its quantized version, or of two quantized (or two float)
 * models the less and the more derived one; `case` and each side's role say which.
 */
export interface CompareReport {
  report: 'visualquant.compare';
  version: 2;
  case: ComparisonCase;
  float: CompareSide;
  quant: CompareSide;
  argument_order_swapped: boolean;
  summary: {
    entries: number;
    /** Whether the weights say the two models are one network; null: unknown (no weight could say). */
    same_network: boolean | null;
    same_network_evidence: SameNetworkEvidence;
    by_kind: Record<MappingKind, number>;
    mean_confidence: number;
    fusions: number;
    weighted_ops_left_float: string[];
    least_confident_entries: number[];
  };
  mapping: MappingEntry[];
  fusions: FusionGroup[];
  logical_graphs: { float: LogicalOp[]; quant: LogicalOp[] };
  /** Present unless compare() was called with { weights: false }. */
  weights?: WeightsReport;
  /** Present with weights. */
  lint?: LintFinding[];
}

export interface Distribution {
  count: number; min: number; max: number; mean: number; std: number;
  /** Skewness (g1) and excess kurtosis (g2), numpy/scipy's biased definitions. With detail only, as
   *  the quantiles: the table's summary does not compute them. */
  skewness?: number; kurtosis?: number;
  zero_fraction: number;
  /** Keys p0.1, p1, p5, p25, p50, p75, p95, p99, p99.9 (numpy 'linear' interpolation, exact). With
   *  detail only: the table's summary (weights() without detail, weightsSlice) does not find them. */
  quantiles?: Record<string, number>;
}

export interface WeightLayer {
  entry: number; rank: number; float_node: string; quant_node: string;
  float_op_type: string; quant_op_type: string; shape: [number, number]; parameters: number;
  batchnorm_folded: boolean; pre_quant_scale: boolean; output_rescale: boolean; note?: string;
  float: Distribution; dequantized: Distribution;
  error: { mse: number; rmse: number; max_abs: number; max_abs_at: [number, number]; sqnr_db: number | null;
           cosine: number; relative_l2: number; changed_fraction: number; mean_abs_lsb: number | null; max_abs_lsb: number | null };
  /** Absent from a weights report made with detail: false (as are channel series, code counts and outlier indices). */
  histogram?: { edges: number[]; float: number[]; dequantized: number[] };
  codes: { type: string; qmin: number; qmax: number; levels_total: number; levels_used: number;
           at_qmin: number; at_qmax: number; not_nearest: number; counts?: number[] } | null;
  /** Indices are flat canonical positions: channel x elements-per-channel + element. */
  outliers: { sigmas: number; beyond_sigmas: number; beyond_clip_range: number; first_indices?: number[];
              first_clipped_indices?: number[] };
  /** worst: the output channel with the lowest SQNR (null for one channel), in both kinds of report. */
  channels: { count: number; changed: number; range_spread: number; worst: { index: number; sqnr_db: number | null } | null; float_min?: number[]; float_max?: number[]; mse?: number[];
              max_abs?: number[]; sqnr_db?: (number | null)[]; cosine?: number[]; step?: number[]; zero_point?: number[] };
  sensitivity: number;
}

/** One broken rule of the spec in a weight's quantization parameters (quant/quant_param_rules.h). */
export interface QuantParamViolation {
  node: string;
  /** The input or attribute at fault ("scale", "block_size", "K"...). */
  subject: string;
  found: string;
  required: string;
  message: string;
}

/** An aligned weight that is not analysed: its quantization parameters break the spec. */
export interface InvalidWeightLayer {
  entry: number;
  float_node: string;
  quant_node: string;
  float_op_type: string;
  quant_op_type: string;
  check: 'invalid_quant_params';
  violations: QuantParamViolation[];
}

/**
 * What a weights report's figures measure: a float weight against its dequantised version; a float
 * model's weight against another's (weight_change); two quantized models' dequantised weights
 * against each other; or nothing, for two models that are not one network (not_compared says why).
 * In the last three, a layer's "float" side is the reference model's and "dequantized" the compared one's.
 */
export type WeightMeasures = 'quantization_error' | 'weight_change' | 'dequantized_difference' | 'not_comparable';

/**
 * Which weight report a slice, a share or an absorb is of: the table's summary (the default), or
 * with `detail` the full report with `bins` (weights(bins, { detail: true }), the JSON export).
 */
export interface WeightsRunOptions {
  detail?: boolean;
  bins?: number;
}

/** A layer of the weights summary as one slice of the analysis found it (OpenComparison.weightsSlice). */
export type UnrankedWeightLayer = Omit<WeightLayer, 'rank' | 'sensitivity'>;
/** One slice of the weights summary's analysis: whether every pair is done, and the slice's layers. */
export interface WeightsSlice extends Pick<WeightsReport, 'measures' | 'reference' | 'compared'> {
  done: boolean;
  /** The share this instance leads with (weightsShare) is analysed or absorbed; every pair without a share. */
  shareDone: boolean;
  layers: UnrankedWeightLayer[];
}

export interface WeightsReport {
  measures: WeightMeasures;
  /** The two sides' labels (CompareSide.label): the reference and the compared model. */
  reference: string;
  compared: string;
  /** Present when measures is not_comparable. */
  not_compared?: string;
  ranking: string;
  histogram_bins: number;
  layers: WeightLayer[];
  /** Present only when some aligned weights could not be analysed. */
  invalid?: InvalidWeightLayer[];
}

export interface CompareOptions {
  /** Include the weight analysis of every aligned pair (default true). */
  weights?: boolean;
}

/** Options of VisualQuant.layout (the same as the CLI's `layout` flags). */
export interface LayoutOptions {
  /** 'logical' (default): one node per computation, Q/DQ and rescale chains as edge badges; 'nodes': Q/DQ as nodes. */
  view?: 'logical' | 'nodes';
  /** Name-scope groups collapsed: the first view, or exactly `expanded` open. */
  collapsed?: boolean;
  /** With `collapsed`: the groups (full scope paths) to show open. */
  expanded?: string[];
  /** false: draw every edge in full (default: far readers of shared values get stubs). */
  stubs?: boolean;
  /** Measured (width, height) per layout node, by LayoutNode.index; NaN or negative keeps the estimate. */
  nodeSizes?: ArrayLike<number>;
  /** Measured (width, height) per group, as listed in LayoutReport.groups. */
  groupSizes?: ArrayLike<number>;
}

/** Options of OpenComparison.layout: LayoutOptions with the UI's measured sizes given per side. */
export interface PairLayoutOptions extends Omit<LayoutOptions, 'nodeSizes' | 'groupSizes'> {
  floatNodeSizes?: ArrayLike<number>;
  floatGroupSizes?: ArrayLike<number>;
  quantNodeSizes?: ArrayLike<number>;
  quantGroupSizes?: ArrayLike<number>;
}

export interface LayoutNodeBase {
  id: string;
  label: string;
  /** The open group it is drawn in (index into LayoutReport.groups), or null at the top. */
  parent: number | null;
  /** Centre and size. */
  x: number;
  y: number;
  w: number;
  h: number;
}

export interface LayoutModelNode extends LayoutNodeBase {
  kind: 'op' | 'input' | 'output';
  /** Index in the model's layout graph (for nodeSizes). */
  index: number;
  /** The logical op (compare report's logical_graphs index), in the logical view. */
  op?: number;
}

export interface LayoutGroupNode extends LayoutNodeBase {
  kind: 'group';
  /** A collapsed group drawn as one node: its index in LayoutReport.groups. */
  group: number;
  members: number;
}

export interface LayoutEdge {
  /** Indices into LayoutReport.nodes. */
  from: number;
  to: number;
  /** Polyline x0, y0, x1, y1, ... from source to target; stubs: two pieces of two points each. */
  points: number[];
  /** Edges merged into one (into or out of a collapsed group). */
  count?: number;
  /** What is folded onto the edge: 'Q/DQ uint8', 'DQ', 'DynQ', 'rescale', joined by '+'. */
  badge?: string;
  badge_nodes?: string[];
  reversed?: true;
  stub?: true;
  self_loop?: true;
}

export interface LayoutGroup {
  name: string;
  label: string;
  parent: number | null;
  members: number;
  state: 'expanded' | 'collapsed' | 'hidden';
  /** x, y (top-left), w, h of an open group with something visible inside. */
  box: [number, number, number, number] | null;
  /** An open group drawn without a box: its ops sit among other groups' (one module used at
   *  several places, such as a ResNet block's shared `relu`). */
  scattered?: true;
}

/** The `visualquant.layout` report, version 1. */
export interface LayoutReport {
  report: 'visualquant.layout';
  version: 1;
  file: string;
  view: 'logical' | 'nodes';
  collapsed: boolean;
  width: number;
  height: number;
  stats: {
    nodes: number; edges: number; layers: number; dummies: number; crossings: number; edge_length: number;
    reversed: number; stubs: number; self_loops: number;
    /** Levels laid out one by one (the top and each open group); 0: laid out in one piece. */
    levels: number;
    model_nodes: number; model_edges: number;
  };
  nodes: Array<LayoutModelNode | LayoutGroupNode>;
  edges: LayoutEdge[];
  groups: LayoutGroup[];
}

/** The `visualquant.layout_pair` report, version 1: both sides, matched nodes in the same rows. */
export interface LayoutPairReport {
  report: 'visualquant.layout_pair';
  version: 1;
  argument_order_swapped: boolean;
  float: LayoutReport;
  quant: LayoutReport;
  /** [float node, quant node]: indices into each side's nodes, drawn at the same height. */
  matches: Array<[number, number]>;
}

/** One model node of a LayoutLabelsReport: a LayoutModelNode without its place. */
export type LabelledNode = Omit<LayoutModelNode, 'x' | 'y' | 'w' | 'h'>;
/** One group of a LayoutLabelsReport: a LayoutGroup without its state and box. */
export type LabelledGroup = Omit<LayoutGroup, 'state' | 'box' | 'scattered'>;

/** The `visualquant.layout_labels` report, version 1: both layout graphs not laid out (OpenComparison.labels). */
export interface LayoutLabelsReport {
  report: 'visualquant.layout_labels';
  version: 1;
  view: 'logical' | 'nodes';
  argument_order_swapped: boolean;
  /** Every model node (by index: nodes[i].index === i) and every group, in the layout reports' order. */
  float: { file: string; nodes: LabelledNode[]; groups: LabelledGroup[] };
  quant: { file: string; nodes: LabelledNode[]; groups: LabelledGroup[] };
}

/** A plain graph for VisualQuant.layoutGraph: node sizes, edges, optional groups (-1: none). */
export interface LayoutGraph {
  width: ArrayLike<number>;
  height: ArrayLike<number>;
  from: ArrayLike<number>;
  to: ArrayLike<number>;
  nodeGroup?: ArrayLike<number>;
  groupParent?: ArrayLike<number>;
  groupWidth?: ArrayLike<number>;
  groupHeight?: ArrayLike<number>;
}

export interface LayoutGraphOptions {
  nodeSep?: number;
  edgeSep?: number;
  rankSep?: number;
  stubs?: boolean;
  shareTrunks?: boolean;
  /** One flag per group (1: collapsed), or 'firstView'. */
  collapsed?: ArrayLike<number> | 'firstView';
}

/** Edge flags of LayoutResult.flags. */
export declare const EdgeFlags: { readonly reversed: 1; readonly stub: 2; readonly selfLoop: 4; readonly aggregate: 8 };

/** The layout of a LayoutGraph as flat typed arrays (visible nodes, visible edges, open groups). */
export interface LayoutResult {
  width: number;
  height: number;
  layers: number;
  dummies: number;
  crossings: number;
  edgeLength: number;
  reversed: number;
  stubs: number;
  selfLoops: number;
  /** Levels laid out one by one (the top and each open group); 0: laid out in one piece. */
  levels: number;
  /** Per visible node: the input node, or -(group + 1) for a collapsed group. */
  ref: Int32Array;
  x: Float64Array;
  y: Float64Array;
  w: Float64Array;
  h: Float64Array;
  layer: Int32Array;
  /** Per visible edge: ends (visible node indices), an input edge it stands for, how many, EdgeFlags. */
  from: Int32Array;
  to: Int32Array;
  firstEdge: Int32Array;
  count: Int32Array;
  flags: Uint8Array;
  /** Edge e's points are points[2 * pointBegin[e] .. 2 * pointBegin[e + 1]) as x, y pairs. */
  pointBegin: Int32Array;
  points: Float64Array;
  /** Open groups' boxes: group id, top-left corner and size. */
  group: Int32Array;
  groupX: Float64Array;
  groupY: Float64Array;
  groupW: Float64Array;
  groupH: Float64Array;
}

/** A model opened for many layouts (VisualQuant.openLayout). */
export interface ModelLayoutViews {
  /** JSON text of a LayoutReport, the same as VisualQuant.layout gives for these options. */
  view(options?: LayoutOptions): string;
  /** JSON text of the model's InspectReport, as VisualQuant.inspect gives, without loading it again. */
  inspect(): string;
  /** JSON text of a NodeReport, by node id or unique name; throws VisualQuantError('not_found'). */
  node(nodeName: string): string;
  /** Frees the model; later calls throw VisualQuantError('usage'). */
  close(): void;
}

/** A file written into wasm memory chunk by chunk (VisualQuant.heapFile). */
/** The most wasm memory the core may grow to (4 GiB): a file held whole must fit in it. */
export declare const WASM_MEMORY_LIMIT: number;

/**
 * An external-data file the core reads by range when a weight in it is read, never whole: `read`
 * fills `target` (a Uint8Array of `length` bytes, in wasm memory) with the file's bytes from
 * `offset`, synchronously, and throws when it cannot (the core reports an 'io' error naming the
 * file and the range). `source` is what it reads from, for callers that hand it on.
 */
export class RangeFile {
  constructor(size: number, read: (offset: number, length: number, target: Uint8Array) => void, source?: unknown);
  readonly byteLength: number;
  readonly read: (offset: number, length: number, target: Uint8Array) => void;
  readonly source: unknown;
  /** The whole file, read into a new Uint8Array. */
  readAll(): Uint8Array;
  /**
   * A file on disk read by range under Node, opened anew for each read (a file removed or cut since
   * is an error naming it). `fs` is node:fs, passed in so the module has no Node imports; `onRead`
   * sees each read.
   */
  static ofPath(fs: NodeRangeFs, path: string, name?: string, onRead?: ((offset: number, length: number) => void) | null): RangeFile;
}

/** The part of node:fs RangeFile.ofPath uses. */
export interface NodeRangeFs {
  openSync(path: string, flags: 'r'): number;
  fstatSync(fd: number): { size: number };
  readSync(fd: number, buffer: Uint8Array, offset: number, length: number, position: number): number;
  closeSync(fd: number): void;
}

/** An external-data file as the calls below take it: bytes, a HeapFile, or a RangeFile. */
export type ExternalFile = Uint8Array | HeapFile | RangeFile;

export class HeapFile {
  readonly byteLength: number;
  write(chunk: Uint8Array): void;
  /** Frees the memory when the file is not given to the core after all. */
  free(): void;
}

/** Wasm memory made resident ahead of need (VisualQuant.residentMemory). */
export class ResidentMemory {
  /** Writes up to `bytes` more of it; true while some is left. */
  touch(bytes: number): boolean;
  /** Gives the memory back to the core's allocator (it stays resident). */
  free(): void;
}

export class VisualQuant {
  readonly version: string;
  /** True once a call failed with a VisualQuantInstanceFailure: the instance is not used again. */
  readonly failed: boolean;
  /** Builds what the first model would otherwise wait for (the table of the onnx operator schemas,
   *  each built on first use): call it while the user is still choosing files. */
  warmUp(): void;
  /** A float model and its QDQ version (residual blocks of 1x1 convolutions), made by the core for
   *  an idle warm-up whose example pair is too small to make the browser optimise the code a real
   *  pair runs. Deterministic. */
  warmUpPair(blocks?: number, channels?: number): { float: Uint8Array; quant: Uint8Array };
  /** JSON text of an InspectReport; throws VisualQuantError for models that cannot be loaded. */
  inspect(bytes: Uint8Array, fileName: string, externalFiles?: Record<string, Uint8Array | RangeFile>): string;
  /** JSON text of a CompareReport, in either argument order; throws VisualQuantError. */
  compare(firstBytes: Uint8Array, firstName: string, secondBytes: Uint8Array, secondName: string,
          externalFiles?: Record<string, Uint8Array | RangeFile>, options?: CompareOptions): string;
  /** Aligns two models and keeps the comparison open for lazy per-layer questions. A HeapFile is taken as it is (no copy). */
  open(firstBytes: Uint8Array | HeapFile, firstName: string, secondBytes: Uint8Array | HeapFile, secondName: string,
       externalFiles?: Record<string, ExternalFile>): OpenComparison;
  /** open() in steps: the weights are digested about `stepBytes` (default 64 MiB) of stored weights
   *  at a time, and `between` is awaited between steps (a worker's synchronous range reads give
   *  their responses back only when its event loop runs). The same OpenComparison as open(). */
  openInSteps(firstBytes: Uint8Array | HeapFile, firstName: string, secondBytes: Uint8Array | HeapFile, secondName: string,
              externalFiles?: Record<string, ExternalFile>,
              options?: { stepBytes?: number; between?: (progress: { ops: number; digested: number }) => Promise<void> }): Promise<OpenComparison>;
  /** Room in wasm memory for a file that arrives in chunks: write() them, then give it to open()/openLayout(). */
  heapFile(size?: number): HeapFile;
  /** `size` bytes of wasm memory to make resident while idle, released before the work that uses them. */
  residentMemory(size: number): ResidentMemory;
  /** JSON text of a LayoutReport (byte-identical to `visualquant layout MODEL --json -`); throws VisualQuantError. */
  layout(bytes: Uint8Array, fileName: string, options?: LayoutOptions, externalFiles?: Record<string, Uint8Array | RangeFile>): string;
  /** Loads a model once for many layouts (expanding and collapsing groups); throws VisualQuantError. */
  openLayout(bytes: Uint8Array | HeapFile, fileName: string, externalFiles?: Record<string, ExternalFile>): ModelLayoutViews;
  /** JSON text of a LayoutPairReport, in either argument order; throws VisualQuantError. */
  layoutPair(firstBytes: Uint8Array, firstName: string, secondBytes: Uint8Array, secondName: string,
             options?: Omit<LayoutOptions, 'nodeSizes' | 'groupSizes'>, externalFiles?: Record<string, Uint8Array | RangeFile>): string;
  /** The layout engine on a plain graph; throws VisualQuantError ('usage') for edges to missing nodes or bad sizes.
   *  Laid-out levels are kept between calls: a call that only expands or collapses groups of the last
   *  graph lays out just the levels that changed. */
  layoutGraph(graph: LayoutGraph, options?: LayoutGraphOptions): LayoutResult;
}

/** A comparison kept open in the core (see VisualQuant.open); close() frees its memory. */
export class OpenComparison {
  /** Compact JSON text of a CompareReport without `weights` and `lint`. */
  readonly report: string;
  /** JSON text of one WeightLayer, by float or quantized node id; throws VisualQuantError('not_found'). */
  weightLayer(nodeId: string, bins?: number): string;
  /**
   * JSON text of the WeightsReport; detail: false leaves out histograms, per-channel series, code counts and outlier indices.
   * onProgress is called after each layer (synchronously, from inside the call).
   */
  weights(bins?: number, options?: { detail?: boolean; onProgress?: (layersDone: number, layers: number, parametersDone: number, parameters: number) => void }): string;
  /**
   * The table's weights summary (weights(0, { detail: false })) made a slice at a time: analyses the
   * next pairs, largest first, until `parameters` of them are done. The slice's layers come without
   * rank and sensitivity (known once every pair is done). Run the event loop between calls (a worker
   * reading by range gives the responses back then).
   */
  weightsSlice(parameters: number, options?: WeightsRunOptions & { onProgress?: (layersDone: number, layers: number, parametersDone: number, parameters: number) => void }): WeightsSlice;
  /** Both model files where the core holds them, in the order given: views of wasm memory, to copy at once. */
  givenFiles(): [Uint8Array, Uint8Array];
  /**
   * Leads the report's analysis (the summary, or the full report with `detail`) with share `part` of
   * `parts`, the rest for other instances that opened the same pair; before the first weightsSlice().
   * Once that share is done, the slices take the other shares' pairs from the far end.
   */
  weightsShare(part: number, parts: number, options?: WeightsRunOptions): void;
  /** The pairs this instance analysed for the report, for another instance's weightsAbsorb(). */
  weightsResults(options?: { detail?: boolean }): Uint8Array;
  /** Takes in another instance's weightsResults() of the same pair and report; returns the absorbed layers as a slice. Throws VisualQuantError('usage') for other bytes. */
  weightsAbsorb(bytes: Uint8Array, options?: WeightsRunOptions): WeightsSlice;
  /** JSON text of a NodeReport of one side's node, by id or unique name; throws VisualQuantError('not_found'). */
  node(side: 'float' | 'quant', nodeName: string): string;
  /** JSON text of the LintFinding list. */
  lint(): string;
  /** The three-way report (JSON text of a ThreeWayReport) of this comparison (float, version A) and `versionB` (the same float model, version B). */
  threeWay(versionB: OpenComparison, options?: {
    onProgress?: (layersDone: number, layers: number, parametersDone: number, parameters: number) => void;
    /** Both versions' activations report texts on the same inputs. */
    activations?: [string, string];
  }): string;
  /**
   * JSON text of a LayoutPairReport of this comparison, byte-identical to VisualQuant.layoutPair with the same options.
   * Measured sizes go per side: (width, height) pairs by each side's LayoutNode.index and group order.
   */
  layout(options?: PairLayoutOptions): string;
  /** JSON text of a LayoutLabelsReport: every node and group of both layout graphs, not laid out. */
  labels(options?: { view?: 'logical' | 'nodes' }): string;
  /**
   * Starts an activation comparison (both models run on the same inputs by a runtime bridge:
   * runtime/web/activation_driver.mjs). inputFiles maps the file names of options.inputs to their
   * bytes (.npy or TensorProto .pb); without inputs, seeded synthetic ones are made and the report
   * says so. Throws VisualQuantError: invalid_input_file, input_mismatch, unset_dimension, io.
   */
  startActivations(options?: ActivationOptions, inputFiles?: Record<string, Uint8Array>): ActivationRun;
  /** JSON text of the float model's inputs as declared (InspectValue[]): what input files bind to. */
  activationInputs(): string;
  /**
   * Starts a sensitivity sweep: each quantized entry kept in float in turn, the smallest set that
   * reaches the target (runs made by the same bridge: runtime/web/activation_driver.mjs).
   */
  startSensitivity(options?: SensitivityOptions, inputFiles?: Record<string, Uint8Array>): SensitivityRun;
  /**
   * A what-if comparison: the float model against this pair's quantized model with `entries` kept in
   * float, opened on its own (close it when done; keep this one open meanwhile). Throws
   * VisualQuantError cannot_keep_in_float when it cannot be built or nothing would stay quantized.
   */
  openWhatIf(entries: number[], label: string): OpenComparison;
  /** The Python that tells a quantizer to keep `entries` in float, each name a string literal. */
  exclusionSnippet(entries: number[], format: 'ort' | 'modelopt' | 'nncf'): string;
  /** A copy of one side's model file as it was given, `suffix` appended (the runtime bridge loads it). */
  fileBytes(side: 'float' | 'quantized', suffix?: Uint8Array | null): Uint8Array;
  /** One side's model file as a view into wasm memory (length 0 once the core's memory has grown). */
  fileView(side: 'float' | 'quantized'): Uint8Array;
  /** Copies of the external-data files given with the models, as onnxruntime-web's `externalData` option takes them. */
  externalData(): { path: string; data: Uint8Array }[];
  close(): void;
}

export interface ActivationOptions {
  /** NAME=FILE as on the command line; name '' for a model's only input. */
  inputs?: { name: string; file: string }[];
  /** Values of symbolic dimensions, by symbol or 'INPUT:POSITION'. */
  dims?: Record<string, number>;
  /** Synthetic samples and their seed, when there are no inputs. */
  samples?: number;
  seed?: number;
  tap_budget_bytes?: number;
  bins?: number;
  /** The local-error runs (default true). */
  local?: boolean;
  /** Requests name the model file as the external data of their models' weights (request.weights_file). */
  weights_by_reference?: boolean;
}

export interface ActivationRequest {
  index: number;
  runs_total: number;
  side: 'float' | 'quantized';
  kind: 'untapped' | 'tapped' | 'local';
  sample: number;
  /** The chunk of taps (a segment of each model when chunks > 1). */
  chunk: number;
  chunks: number;
  /** The same id is the same model for the whole run. */
  model_id: string;
  /** Names the model in messages: "segment 2 of 5 of the float model". */
  model_label: string;
  /** Create a session for model_id now (from the file + suffix, or model()); otherwise reuse it. */
  new_model: boolean;
  /** No later request names model_id: release its session after this run. */
  last_use: boolean;
  fetches: string[];
  suffix_bytes: number;
  model_bytes: number;
  /** Non-empty: the model's weights are external data in a file of this name, which is the side's model file. */
  weights_file: string;
  feeds: { name: string; type: string; dims: number[]; bytes: number }[];
}

/** The runs of one activation comparison: run `request`, give accept() its outputs, until request is null. */
export class ActivationRun {
  readonly request: ActivationRequest | null;
  /** The comparison the runs are of. */
  readonly comparison: OpenComparison;
  suffix(): Uint8Array;
  /** A segment or the rewired model, when request.model_bytes > 0 (used instead of the side's file). */
  model(): Uint8Array;
  feed(index: number): Uint8Array;
  /** Feed `index` as a view into wasm memory (valid until the core's next call), for an engine that copies its inputs. */
  feedView(index: number): Uint8Array;
  accept(outputs: { name: string; type: string; dims: readonly (number | bigint)[]; data: ArrayBufferView }[]): ActivationRequest | null;
  /** JSON text of the visualquant.activations report, byte-identical to the CLI's with the same engine label. */
  report(engine: string): string;
}

export interface SensitivityOptions {
  inputs?: { name: string; file: string }[];
  dims?: Record<string, number>;
  samples?: number;
  seed?: number;
  /** The suggestion's goal (default 30 dB, which the report then calls the default). */
  target_sqnr_db?: number;
  /** Also the weights-only and activations-only variants (default true). */
  split?: boolean;
  /** A hand-picked set: measured, and what the exports are made of. */
  chosen?: number[];
  /** Measure the chosen set alone: no sweep, no suggestion. */
  only_chosen?: boolean;
  /** What is kept in float at a time: 'entry' (default) or a name-scope 'block' of block_depth levels (default 2). */
  unit?: 'entry' | 'block';
  block_depth?: number;
  weights_by_reference?: boolean;
}

/** The runs of a sensitivity sweep: an ActivationRun's, plus failing a what-if and cancelling with results. */
export class SensitivityRun extends ActivationRun {
  readonly keepsWhatWasMeasured: true;
  mayFail(request: ActivationRequest): boolean;
  fail(reason: string): ActivationRequest | null;
  cancel(): ActivationRequest | null;
  /** The quantized model with `entries` kept in float, standalone (its weights in it). */
  mixedModel(entries: number[]): Uint8Array;
}

/** Error figures of one compared tensor (or of a quantizer, or of the local run); null SQNR: no error. */
export interface ActivationError {
  sqnr_db: number | null;
  cosine: number | null;
  mse: number | null;
  max_abs: number | null;
  relative_l2: number | null;
  /** RMSE in steps of the output quantizer; null without one. */
  rmse_steps: number | null;
  values: number;
  nonfinite: number;
  /** Against the output quantizer's range (only with one). */
  clipped_fraction?: number;
  clipped_above_qmax?: number;
  clipped_below_qmin?: number;
  clipping_error_share?: number;
  codes_at_qmin?: number;
  codes_at_qmax?: number;
  range_unused?: number;
}

/** A tensor inside an If/Loop body, threaded out of it to be fetched. */
export interface ActivationBodyTap {
  /** The body's path: "<node id>/<attribute>", nested bodies after a '/'. */
  graph: string;
  /** The main-graph If/Loop around it. */
  node: string;
  /** Loops on the way out: the tensor has one leading axis per Loop (its iterations). */
  loops: number;
  shape: string;
}

export interface ActivationPoint {
  point: number;
  /** 1 = worst accumulated SQNR. */
  rank: number;
  /** Position among the model outputs, when this tensor is one. */
  model_output?: number;
  entries: number[];
  float_nodes: string[];
  quant_nodes: string[];
  float_tensor: string;
  quantized_tensor: string;
  quantized_read_as: string;
  output_quantizer: { type: string; scale: number; zero_point: number; qmin: number; qmax: number; low: number; high: number } | null;
  accumulated: ActivationError;
  /** One per sample; `{computed: false}` where the tensor's If took the other branch (or its Loop ran no iteration). */
  per_sample: ({ sqnr_db: number | null; cosine: number | null; mse: number | null; max_abs: number | null; computed?: undefined }
    | { computed: false; sqnr_db?: undefined })[];
  /** Set for a tensor inside an If/Loop body: where it was fetched from on each side (null: the main graph). */
  body?: { float: ActivationBodyTap | null; quantized: ActivationBodyTap | null; local_error: string };
  quantizer_error: (ActivationError & { pre_quant_tensor: string }) | null;
  local: (ActivationError & { per_sample_sqnr_db: (number | null)[] }) | null;
  upstream_points: number[];
  input_sqnr_db: number | null;
  sqnr_drop_db: number | null;
  verdict: string;
  histogram: { lo: number; hi: number; float: number[]; quantized: number[];
    float_outside: { below: number; above: number }; quantized_outside: { below: number; above: number } } | null;
  channels: { axis: number; sqnr_db: (number | null)[]; worst: { index: number; sqnr_db: number | null } | null } | null;
}

export interface ActivationJump {
  point: number;
  quant_node: string | null;
  quantized_tensor: string;
  sqnr_drop_db: number | null;
}

/** The `visualquant.activations` report (version 1): README, "activations". */
export interface ActivationsReport {
  report: 'visualquant.activations';
  version: number;
  float_model: string;
  quantized_model: string;
  inputs: { synthetic: boolean; note: string; samples: string[] };
  runtime: { engine: string; local_error: string; graph_optimization: string; runs: number; tap_chunks: number; tap_budget_bytes: number };
  tapping: { check: string; changed_outputs: string[] };
  summary: { compared: number; failed: number; not_observable: number; first_jump: ActivationJump | null;
    largest_jump: ActivationJump | null; jump_rule: string };
  points: ActivationPoint[];
  failed: { point: number; float_tensor: string; quantized_tensor: string; reason: string }[];
  not_observable: { entry: number; kind: string; float_nodes: string[]; quant_nodes: string[]; reason: string }[];
}

export interface LintFinding {
  severity: 'error' | 'warning' | 'info';
  check: string;
  node: string;
  message: string;
}

export interface LoadOptions {
  /** Bytes of visualquant_core.wasm; required under Node (or wasmModule). */
  wasmBinary?: Uint8Array;
  /** Those bytes compiled (WebAssembly.compile): a new instance without compiling again. */
  wasmModule?: WebAssembly.Module;
}

export function loadVisualQuant(options?: LoadOptions): Promise<VisualQuant>;

/**
 * The core for a caller that goes on after a VisualQuantInstanceFailure: live() resolves to the
 * current instance while it works, and to a fresh one (the wasm compiled once) after it failed.
 * What the failed instance opened is gone: open it again on the new one.
 */
export class VisualQuantInstances {
  constructor(options?: LoadOptions);
  live(): Promise<VisualQuant>;
}

/** An SQNR as the sensitivity report writes it: dB, "exact" (no error at all), or null (no signal). */
export type SensitivityScore = number | 'exact' | null;

export interface SensitivityError {
  sqnr_db: SensitivityScore;
  samples: number;
  outputs: { float_output: string; quantized_output: string; sqnr_db: SensitivityScore; cosine: number | null; max_abs_error: number | null; kl_softmax_last_axis: number | null }[];
}

/** One model of the sweep: measured, or why not. */
export interface SensitivityVariant {
  status: 'measured' | 'failed' | 'not run';
  reason?: string;
  error?: SensitivityError;
  recovery?: { sqnr_gain_db: SensitivityScore; error_removed_fraction: number | null };
}

export interface SensitivityEntry {
  /** The unit's id: its entry, or a block's first entry. */
  entry: number;
  /** The entries kept in float together: [entry], or a block's. */
  entries: number[];
  /** The name-scope block (a block sweep). */
  block?: string;
  op: string;
  kind: string;
  float_nodes: string[];
  quantized_nodes: string[];
  keep_in_float: { both: SensitivityVariant; weights: SensitivityVariant; activations: SensitivityVariant };
  /** The float model with only this entry quantized, against the float model (no recovery). */
  quantized_alone: SensitivityVariant;
}

/** The `visualquant.sensitivity` report (version 1), as the command line writes it. */
export interface SensitivityReport {
  report: 'visualquant.sensitivity';
  version: number;
  float_model: string;
  quantized_model: string;
  inputs: { synthetic: boolean; note: string; samples: string[] };
  runtime: { engine: string; graph_optimization: string; runs: number };
  score: string;
  unit: { kind: 'entry' | 'block'; depth?: number; note: string };
  cancelled: boolean;
  note?: string;
  baseline: SensitivityVariant;
  all_in_float: SensitivityVariant & { entries_kept: number; entries_not_kept: number; float_ops_missing: string[] };
  entries: SensitivityEntry[];
  ranking: number[];
  suggestion: {
    target: { sqnr_db: number; set_by: 'the user' | 'default' };
    method: string;
    steps: { entry: number; near_ties: number[]; predicted_sqnr_db: SensitivityScore; kept: boolean; measured_sqnr_db?: SensitivityScore; measured?: { status: string; reason?: string } }[];
    done: boolean;
    reached: boolean;
    set: number[];
    final: SensitivityError | null;
    final_predicted_sqnr_db?: SensitivityScore;
    best_reached_sqnr_db?: SensitivityScore;
    why_not_reached?: string;
  };
  chosen?: SensitivityVariant & { set: number[] };
  exports: {
    set: number[];
    set_from: 'chosen' | 'suggestion';
    onnxruntime: { argument: string; nodes_to_exclude: string[] };
    modelopt: { argument: string; nodes_to_exclude: string[] };
    nncf: { argument: string; names: string[] };
    unnamed_entries: number[];
  };
}
