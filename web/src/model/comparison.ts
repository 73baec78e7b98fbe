// What the UI derives from the core's reports, without any DOM: which drawn node belongs to which
// mapping entry, its counterparts on the other side, its match status, weight error and precision.
import type { ActivationIndex } from './activations';
import type {
  ActivationPoint, CompareReport, InvalidWeightLayer, LayoutLabelsReport, LayoutModelNode, LayoutPairReport, LayoutReport, LintFinding, LogicalOp, MappingEntry,
  WeightLayer, WeightsReport,
} from '../protocol/messages';

export type Side = 'float' | 'quant';
export const SIDES: readonly Side[] = ['float', 'quant'];
export const other = (side: Side): Side => (side === 'float' ? 'quant' : 'float');

/** 'group': a collapsed name-scope group, drawn as one node. */
export type MatchStatus = MappingEntry['kind'] | 'unmatched' | 'group';
export const MATCH_STATUSES: readonly MatchStatus[] = ['identical', 'renamed', 'structural', 'fused', 'lowered', 'inserted', 'removed', 'unmatched'];

/** A drawn node's place in the comparison. */
export interface NodeInfo {
  side: Side;
  /** Index in the side's LayoutReport.nodes. */
  index: number;
  node: LayoutReport['nodes'][number];
  entry: number | null;
  logicalOp: LogicalOp | null;
  status: MatchStatus;
  precision: string;
}

function modelNode(node: LayoutReport['nodes'][number]): LayoutModelNode | null {
  return node.kind === 'group' ? null : node;
}

/** The precision an op computes in: its quantized weight's type, else its activations', else its weight's stored type. */
export function precisionOf(op: LogicalOp | null, kind: string): string {
  if (!op) return kind === 'input' || kind === 'output' ? 'io' : 'unknown';
  const q = op.quantization;
  const t = q?.weight?.type ?? q?.inputs.find((i) => i)?.type ?? q?.output?.type ?? op.weight?.stored_type;
  if (t) return t === 'float' ? 'float32' : t;
  return 'float (no weight)';
}

/** Node id -> the innermost group it is drawn in, per side. */
export type NodeGroups = Record<Side, Map<string, number>>;

/** Each model node's innermost group (every node is listed, hidden in a closed group or not). */
export function nodeGroupsOf(labels: LayoutLabelsReport): NodeGroups {
  const out: NodeGroups = { float: new Map(), quant: new Map() };
  for (const side of SIDES) for (const n of labels[side].nodes) if (n.parent !== null) out[side].set(n.id, n.parent);
  return out;
}

export class Comparison {
  readonly nodes: Record<Side, NodeInfo[]>;
  /** Node id -> drawn node indices, per side. */
  private readonly byId: Record<Side, Map<string, number[]>>;
  /** Node id -> mapping entry, per side (every id an entry lists, Q/DQ included). */
  private readonly entryOfId: Record<Side, Map<string, number>>;
  /** Layout pair matches (inputs and outputs included), per side: index -> indices on the other side. */
  private readonly pairMatches: Record<Side, Map<number, number[]>>;
  /** Group index -> the drawn node of that group when it is collapsed, per side. */
  private readonly collapsedNode: Record<Side, Map<number, number>>;
  private layersByEntry = new Map<number, WeightLayer>();
  private invalidByEntry = new Map<number, InvalidWeightLayer>();
  private lintByNode = new Map<string, LintFinding[]>();
  /** The last activation comparison of this pair, if one ran. */
  activations: ActivationIndex | null = null;

  constructor(readonly report: CompareReport, readonly layout: LayoutPairReport, private readonly nodeGroups: NodeGroups | null = null) {
    this.entryOfId = { float: new Map(), quant: new Map() };
    report.mapping.forEach((entry, i) => {
      for (const side of SIDES) for (const id of entry[side]) if (!this.entryOfId[side].has(id)) this.entryOfId[side].set(id, i);
    });
    this.pairMatches = { float: new Map(), quant: new Map() };
    for (const [f, q] of layout.matches) {
      push(this.pairMatches.float, f, q);
      push(this.pairMatches.quant, q, f);
    }
    this.byId = { float: new Map(), quant: new Map() };
    this.collapsedNode = { float: new Map(), quant: new Map() };
    this.nodes = { float: [], quant: [] };
    for (const side of SIDES) {
      const opOfNode = new Map<string, LogicalOp>();
      for (const op of report.logical_graphs[side]) for (const id of op.nodes) opOfNode.set(id, op);
      const graph = report.logical_graphs[side];
      layout[side].nodes.forEach((node, index) => {
        push(this.byId[side], node.id, index);
        if (node.kind === 'group') this.collapsedNode[side].set(node.group, index);
        const m = modelNode(node);
        const logicalOp = m?.op !== undefined ? graph[m.op] ?? null : opOfNode.get(node.id) ?? null;
        const entry = m?.kind === 'op' ? this.entryOfId[side].get(node.id) ?? null : null;
        this.nodes[side].push({
          side, index, node, entry, logicalOp,
          status: entry !== null ? report.mapping[entry].kind : node.kind === 'group' ? 'group' : this.ioStatus(side, index),
          precision: precisionOf(logicalOp, node.kind),
        });
      });
    }
  }

  private ioStatus(side: Side, index: number): MatchStatus {
    const node = this.layout[side].nodes[index];
    if (node.kind !== 'input' && node.kind !== 'output') return 'unmatched';
    const counterparts = this.pairMatches[side].get(index) ?? [];
    if (counterparts.length === 0) return 'unmatched';
    // Two models that are not one network share inputs and outputs by position, nothing more.
    if (this.report.summary.same_network === false) return 'structural';
    return counterparts.some((c) => this.layout[other(side)].nodes[c].id === node.id) ? 'identical' : 'renamed';
  }

  entry(index: number | null): MappingEntry | null {
    return index === null ? null : this.report.mapping[index] ?? null;
  }

  /**
   * Drawn nodes of `side` with this model node id (one, except in odd layouts); for a node hidden
   * in a collapsed group, that group's node. Linked selection therefore highlights the closed group
   * on the other side rather than opening it: the user closed it to see less, opening it would lay
   * out both graphs again and move what they are looking at, and one click on the group opens it
   * with the counterpart selected inside.
   */
  indicesOf(side: Side, id: string): number[] {
    const drawn = this.byId[side].get(id);
    if (drawn) return drawn;
    const groups = this.layout[side].groups;
    for (let g = this.nodeGroups?.[side].get(id); g !== undefined && g !== null; g = groups[g]?.parent ?? undefined) {
      const at = this.collapsedNode[side].get(g);
      if (at !== undefined) return [at];
    }
    return [];
  }

  /**
   * The drawn node of a model node id: itself, or the drawn op it is folded into (a Q/DQ node of
   * the logical view), or the closed group it is hidden in. Lint findings name model nodes.
   */
  drawnHolding(side: Side, id: string): number | undefined {
    const [index] = this.indicesOf(side, id);
    if (index !== undefined) return index;
    const holder = this.nodes[side].find((n) => n.logicalOp?.nodes.includes(id));
    return holder ? this.indicesOf(side, holder.node.id)[0] : undefined;
  }

  /** The drawn nodes that a mapping entry covers on one side. */
  entryNodes(side: Side, entryIndex: number): number[] {
    const out: number[] = [];
    for (const id of this.report.mapping[entryIndex][side]) out.push(...this.indicesOf(side, id));
    return unique(out);
  }

  /**
   * What selecting a drawn node selects: its whole mapping entry on both sides (a fusion group is
   * many float nodes for one quantized op), or for inputs and outputs their paired node.
   */
  selectionFor(side: Side, index: number): Record<Side, number[]> {
    const info = this.nodes[side][index];
    if (info.entry !== null) {
      return { [side]: unique([index, ...this.entryNodes(side, info.entry)]), [other(side)]: this.entryNodes(other(side), info.entry) } as Record<Side, number[]>;
    }
    const node = info.node;
    if (node.kind === 'group') {
      // A closed group's counterpart is the other side's group of the same name scope (both
      // sides share their scopes, and groups open and close on both at once), when it is closed too.
      const name = this.layout[side].groups[node.group]?.name;
      const there = this.layout[other(side)].groups.findIndex((g) => g.name === name);
      const at = there >= 0 ? this.collapsedNode[other(side)].get(there) : undefined;
      return { [side]: [index], [other(side)]: at === undefined ? [] : [at] } as Record<Side, number[]>;
    }
    const counterparts = this.pairMatches[side].get(index) ?? [];
    return { [side]: [index], [other(side)]: counterparts } as Record<Side, number[]>;
  }

  /** Selection for a mapping entry (a table row). */
  selectionForEntry(entryIndex: number): Record<Side, number[]> {
    return { float: this.entryNodes('float', entryIndex), quant: this.entryNodes('quant', entryIndex) };
  }

  /** What the weight figures measure (null until the weights report came). */
  weightMeasures: Pick<WeightsReport, 'measures' | 'reference' | 'compared'> | null = null;

  setWeights(weights: WeightsReport): void {
    this.weightMeasures = { measures: weights.measures, reference: weights.reference, compared: weights.compared };
    this.layersByEntry = new Map(weights.layers.map((l) => [l.entry, l]));
    this.invalidByEntry = new Map((weights.invalid ?? []).map((l) => [l.entry, l]));
  }

  /** The node's entry's weight when it was not analysed because its quantization parameters break the spec. */
  invalidWeight(info: NodeInfo): InvalidWeightLayer | null {
    return info.entry === null ? null : this.invalidByEntry.get(info.entry) ?? null;
  }

  /** The weight analysis summary of a node's entry (from the weights report), if it has one. */
  weightLayer(info: NodeInfo): WeightLayer | null {
    return info.entry === null ? null : this.layersByEntry.get(info.entry) ?? null;
  }

  setLint(findings: LintFinding[]): void {
    this.lintByNode = new Map();
    for (const f of findings) push(this.lintByNode, f.node, f);
  }

  /** Lint findings on a drawn node: on its own id, or on any model node its logical op holds. */
  lintFindings(info: NodeInfo): LintFinding[] {
    if (info.side !== 'quant') return [];
    const ids = info.logicalOp ? info.logicalOp.nodes : [info.node.id];
    return ids.flatMap((id) => this.lintByNode.get(id) ?? []);
  }

  /** The compared tensor of a node's entry, from the activation comparison, if it ran and compared one. */
  activationPoint(info: NodeInfo): ActivationPoint | null {
    return this.activations?.point(info.entry) ?? null;
  }

  fusionOf(entryIndex: number | null) {
    return entryIndex === null ? undefined : this.report.fusions.find((f) => f.entry === entryIndex);
  }
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V) {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

function unique(values: number[]): number[] {
  return [...new Set(values)];
}
