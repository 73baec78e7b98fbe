// The page's keyboard shortcuts and what they do to the selection: n / p through the mismatches in
// drawing order, w / W through the layer table's order, arrows along edges and rows, Enter on
// groups, / f + − Esc ?. The help (?) is made from this same table (keyboard.ts).
import type { Comparison, Side } from '../model/comparison';
import { mismatchOrder, neighbour, stepThrough, type Direction } from '../model/navigation';
import { Shortcuts } from './keyboard';

/** What the keys act on: the page's comparison and selection, and its commands. */
export interface KeyTarget {
  comparison(): Comparison | null;
  primary(): { side: Side; index: number } | null;
  /** The mapping entries of the layer table's rows, in the order shown. */
  layerEntries(): number[];
  selectNode(side: Side, index: number): void;
  selectEntry(entry: number): void;
  clearSelection(): void;
  toggleSelectedGroup(): void;
  zoom(factor: number): void;
  fit(): void;
  focusSearch(): void;
}

export function pageShortcuts(t: KeyTarget, help: HTMLElement): Shortcuts {
  const graphOnly = true;
  /** The mismatches in drawing order, made once per drawn comparison. */
  let mismatches: { of: Comparison; order: ReturnType<typeof mismatchOrder> } | null = null;

  /** The mapping entry of the selected node, if any. */
  const currentEntry = (c: Comparison) => {
    const p = t.primary();
    return p ? c.nodes[p.side][p.index].entry : null;
  };

  /** n / p: the next mismatch below (or above) what is selected, in drawing order. */
  const stepMismatch = (dir: 1 | -1) => {
    const c = t.comparison();
    if (!c) return;
    if (mismatches?.of !== c) mismatches = { of: c, order: mismatchOrder(c) };
    const order = mismatches.order, p = t.primary(), current = currentEntry(c);
    const entries = order.map((o) => o.entry);
    const known = current !== null && entries.includes(current);
    let target = stepThrough(entries, known ? current : null, dir);
    if (p && !known) {
      // From a node that is no mismatch: the nearest one past it, so that n continues from where the user is.
      const y = c.nodes[p.side][p.index].node.y;
      target = (dir === 1 ? order.find((o) => o.y > y) : [...order].reverse().find((o) => o.y < y))?.entry ?? target;
    }
    if (target !== null) t.selectEntry(target);
  };

  /** w / W: the next layer in the layer table's order (as sorted and filtered). */
  const stepLayer = (dir: 1 | -1) => {
    const c = t.comparison();
    const target = stepThrough(t.layerEntries(), c && currentEntry(c), dir);
    if (target !== null) t.selectEntry(target);
  };

  /** Arrow keys: along an edge or across the row from the selected node; from nothing, the top node. */
  const walk = (dir: Direction) => {
    const c = t.comparison(), p = t.primary();
    if (!c) return;
    if (!p) {
      const nodes = c.layout.float.nodes;
      if (nodes.length) t.selectNode('float', nodes.reduce((best, n, k) => (n.y < nodes[best].y ? k : best), 0));
      return;
    }
    const k = neighbour(c.layout[p.side], p.index, dir);
    if (k !== null) t.selectNode(p.side, k);
  };

  const keys: Shortcuts = new Shortcuts([
    { keys: ['n'], shown: 'n', help: 'next mismatch: fused, lowered, inserted, removed, or a low-confidence match', run: () => stepMismatch(1) },
    { keys: ['p'], shown: 'p', help: 'previous mismatch', run: () => stepMismatch(-1) },
    { keys: ['w'], shown: 'w', help: 'next layer in the layer table (worst first)', run: () => stepLayer(1) },
    { keys: ['W'], shown: 'Shift+W', help: 'previous layer in the layer table', run: () => stepLayer(-1) },
    { keys: ['ArrowUp'], shown: '↑', help: 'to an input of the selected node (its predecessor)', graphOnly, run: () => walk('up') },
    { keys: ['ArrowDown'], shown: '↓', help: 'to a reader of the selected node (its successor)', graphOnly, run: () => walk('down') },
    { keys: ['ArrowLeft'], shown: '←', help: 'to the node on the left in the same row', graphOnly, run: () => walk('left') },
    { keys: ['ArrowRight'], shown: '→', help: 'to the node on the right in the same row', graphOnly, run: () => walk('right') },
    { keys: ['Enter'], shown: 'Enter', help: 'open the selected group, or close the group around the selected node', graphOnly, run: () => t.toggleSelectedGroup() },
    { keys: ['/'], shown: '/', help: 'find a node by name or op type', run: () => t.focusSearch() },
    { keys: ['f'], shown: 'f', help: 'fit at reading size; again for the whole graph', run: () => t.fit() },
    { keys: ['+', '='], shown: '+ / −', help: 'zoom in / out', run: () => t.zoom(1.25) },
    { keys: ['-'], shown: '', help: '', run: () => t.zoom(0.8) },
    { keys: ['Escape'], shown: 'Esc', help: 'clear the selection (or close this help)', run: () => (keys.helpOpen ? keys.toggleHelp(false) : t.clearSelection()) },
    { keys: ['?'], shown: '?', help: 'show or hide this help', run: () => keys.toggleHelp() },
  ], help);
  return keys;
}
