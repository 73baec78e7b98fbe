// Which name-scope groups are open, as the layout request says it. Groups are named by their scope
// path, and one name opens or closes the group on both sides: the two models mostly share their
// scopes, and a group open on one side only would break the shared rows of the paired layout.
import type { LayoutGroup, LayoutParams } from '../protocol/messages';

/**
 * The core reads `collapsed` with an empty `expanded` as "its first view" (it opens groups while
 * few nodes show). A name that no group has asks for every group closed.
 */
const NO_GROUP = '\u0000';

export class GroupState {
  /** The open groups; null: all open (no group collapsed). */
  private open: Set<string> | null = null;

  get allOpen(): boolean {
    return this.open === null;
  }

  params(): Pick<LayoutParams, 'collapsed' | 'expanded'> {
    if (!this.open) return {};
    return { collapsed: true, expanded: this.open.size ? [...this.open].sort() : [NO_GROUP] };
  }

  /** Closes the group `name`; `every` lists every group name of both sides. */
  collapse(name: string, every: Iterable<string>): void {
    this.open ??= new Set(every);
    this.open.delete(name);
  }

  /** Opens group `index` of `groups` (one side's list) and the groups around it; `every` as for collapse. */
  expand(groups: LayoutGroup[], index: number, every: Iterable<string>): void {
    if (!this.open) return;
    for (let g: number | null = index; g !== null && groups[g]; g = groups[g].parent) this.open.add(groups[g].name);
    const all = new Set(every);
    if ([...all].every((n) => this.open!.has(n))) this.open = null;
  }

  collapseAll(): void {
    this.open = new Set();
  }

  expandAll(): void {
    this.open = null;
  }
}
