// Which name-scope groups are open, as the layout request says it. Groups are named by their scope
// path, and one name opens or closes the group on both sides: the two models mostly share their
// scopes, and a group open on one side only would break the shared rows of the paired layout.
import type { LayoutGroup, LayoutLabelsReport, LayoutParams } from '../protocol/messages';

/**
 * The core reads `collapsed` with an empty `expanded` as "its first view" (it opens groups while
 * few nodes show). A name that no group has asks for every group closed.
 */
const NO_GROUP = '\u0000';

// A pair opens on its layers (each a closed group, opened with a click) when its larger graph has
// more than LAYER_STACK_NODES nodes and its name scopes hold a stack of layers: LAYER_STACK_GROUPS
// or more sibling groups of LAYER_NODES nodes or more each (a decoder's 32 layers.N of some 20 ops).
// 700 ops in one column are not read one by one; 32 layers are. Smaller or flatter graphs open whole.
const LAYER_STACK_NODES = 500, LAYER_STACK_GROUPS = 8, LAYER_NODES = 10;

/**
 * The groups to open so that a pair shows its stack of layers (above), closed: the groups around
 * the stack (`model` around `model/layers.N`); null when the pair opens whole. From its labels,
 * before any layout.
 */
export function layerStackView(labels: LayoutLabelsReport): string[] | null {
  const sides = [labels.float, labels.quant];
  if (Math.max(...sides.map((s) => s.nodes.length)) <= LAYER_STACK_NODES) return null;
  let best: { groups: LayoutLabelsReport['float']['groups']; parent: number | null; layers: number } | null = null;
  for (const side of sides) {
    const layers = new Map<number | null, number>();
    for (const g of side.groups) if (g.members >= LAYER_NODES) layers.set(g.parent, (layers.get(g.parent) ?? 0) + 1);
    for (const [parent, count] of layers)
      if (count >= LAYER_STACK_GROUPS && (!best || count > best.layers)) best = { groups: side.groups, parent, layers: count };
  }
  if (!best) return null;
  const open: string[] = [];
  for (let g = best.parent; g !== null && best.groups[g]; g = best.groups[g].parent) open.push(best.groups[g].name);
  return open;
}

export class GroupState {
  /** The open groups; null: all open (no group collapsed). */
  private open: Set<string> | null = null;
  /** Whether the user has opened or closed a group since the pair was opened. */
  private touched = false;

  get allOpen(): boolean {
    return this.open === null;
  }

  /** Opens just `names` (layerStackView), unless the user has chosen groups already. */
  startOn(names: string[]): void {
    if (this.touched) return;
    this.open = new Set(names);
  }

  params(): Pick<LayoutParams, 'collapsed' | 'expanded'> {
    if (!this.open) return {};
    return { collapsed: true, expanded: this.open.size ? [...this.open].sort() : [NO_GROUP] };
  }

  /** Closes the group `name`; `every` lists every group name of both sides. */
  collapse(name: string, every: Iterable<string>): void {
    this.touched = true;
    this.open ??= new Set(every);
    this.open.delete(name);
  }

  /** Opens group `index` of `groups` (one side's list) and the groups around it; `every` as for collapse. */
  expand(groups: LayoutGroup[], index: number, every: Iterable<string>): void {
    this.touched = true;
    if (!this.open) return;
    for (let g: number | null = index; g !== null && groups[g]; g = groups[g].parent) this.open.add(groups[g].name);
    const all = new Set(every);
    if ([...all].every((n) => this.open!.has(n))) this.open = null;
  }

  collapseAll(): void {
    this.touched = true;
    this.open = new Set();
  }

  expandAll(): void {
    this.touched = true;
    this.open = null;
  }
}
