// The accessible twin of a graph canvas: one list item per drawn node (role=option), which screen
// readers walk and which carries what the canvas shows as data (status, overlay, badges, place), and
// a Collapse button per open group. A 20,000-node pair with its 12,000 groups has 50,000 such
// elements, half a second to build: they are built after the canvas is first drawn, a few thousand
// per task, so that the picture does not wait for them and the page stays responsive meanwhile.
// `ready` settles when every item is there.
import type { LayoutReport } from '../protocol/messages';
import { el } from './dom';

/** Items built per task. */
const CHUNK = 2500;

/**
 * Runs `f` in a task of its own, soon: a MessageChannel message, which browsers do not hold back as
 * they do nested timers (4 ms each after the fifth; a 60,000-node pair's lists take 25 chunks).
 */
function nextTask(f: () => void): void {
  const channel = new MessageChannel();
  channel.port1.onmessage = () => {
    channel.port1.close();
    f();
  };
  channel.port2.postMessage(null);
}

export class NodeList {
  private items: HTMLLIElement[] = [];
  /**
   * What every item starts as: its fixed attributes copied rather than set one by one. A small
   * saving: with this and nextTask, the 63,000 items of a decoder-like pair took 0.92-0.96 s to
   * build on two cores instead of 1.04 s; most of that time is the varying attributes.
   */
  private readonly template = document.createElement('li');
  private selected = new Set<number>();
  private readonly data = new Map<string, string[]>();
  /** Which build is current: a new layout abandons the chunks of the last one. */
  private build = 0;
  ready: Promise<void> = Promise.resolve();

  constructor(private readonly element: HTMLUListElement, private readonly groupElement: HTMLUListElement, onSelect: (index: number) => void,
              private readonly toggleGroup?: (group: number) => void) {
    this.template.setAttribute('role', 'option');
    this.template.setAttribute('tabindex', '-1');
    this.template.setAttribute('aria-selected', 'false');
    // One listener for every item (a 20,000-node graph would otherwise add 20,000).
    element.addEventListener('click', (e) => {
      const item = (e.target as Element).closest<HTMLLIElement>('li[data-index]');
      if (item) onSelect(Number(item.dataset.index));
    });
  }

  /** Starts building the items of `layout` (none while `layout` is null); `badgesInto[i]`: the badges on the edges into node i. */
  set(layout: LayoutReport | null, badgesInto: string[][]): void {
    const build = ++this.build;
    this.element.replaceChildren();
    this.groupElement.replaceChildren();
    this.items = [];
    this.selected.clear();
    this.data.clear();
    if (!layout) {
      this.ready = Promise.resolve();
      return;
    }
    this.ready = new Promise((resolve) => {
      const chunk = (from: number) => {
        if (build !== this.build) return resolve();
        const to = Math.min(from + CHUNK, layout.nodes.length);
        const fragment = document.createDocumentFragment();
        for (let i = from; i < to; i++) fragment.append(this.makeItem(layout, i, badgesInto[i]));
        this.element.append(fragment);
        if (to < layout.nodes.length) nextTask(() => chunk(to));
        else nextTask(() => groupChunk(0));
      };
      const groupChunk = (from: number) => {
        if (build !== this.build) return resolve();
        const to = Math.min(from + CHUNK, layout.groups.length);
        const fragment = document.createDocumentFragment();
        for (let g = from; g < to; g++) {
          const item = this.groupItem(layout, g);
          if (item) fragment.append(item);
        }
        this.groupElement.append(fragment);
        if (to < layout.groups.length) nextTask(() => groupChunk(to));
        else resolve();
      };
      nextTask(() => chunk(0));
    });
  }

  select(indices: Set<number>): void {
    for (const i of this.selected) this.items[i]?.setAttribute('aria-selected', 'false');
    this.selected = new Set(indices);
    for (const i of this.selected) this.items[i]?.setAttribute('aria-selected', 'true');
  }

  /** data-`name` of every item (overlay, status), kept for the items not built yet. */
  setData(name: string, values: string[]): void {
    this.data.set(name, values);
    this.items.forEach((li, i) => li.setAttribute(`data-${name}`, values[i] ?? ''));
  }

  /** An open group's Collapse button (what a click on its header does), or null. */
  private groupItem(layout: LayoutReport, g: number): HTMLLIElement | null {
    const group = layout.groups[g];
    if (group.state !== 'expanded' || !group.box || !this.toggleGroup) return null;
    const toggle = this.toggleGroup;
    const button = el('button', { text: `Collapse ${group.label}`, attrs: { type: 'button', tabindex: '-1' } });
    button.addEventListener('click', () => toggle(g));
    return el('li', { attrs: { 'data-name': group.name, 'data-box': group.box.join(' ') } }, button);
  }

  private makeItem(layout: LayoutReport, i: number, badges: string[] | undefined): HTMLLIElement {
    const n = layout.nodes[i];
    const li = this.template.cloneNode(false) as HTMLLIElement;
    li.textContent = `${n.label} — ${n.id}`;
    const set = (name: string, value: string) => li.setAttribute(name, value);
    if (this.selected.has(i)) set('aria-selected', 'true');
    set('data-label', n.label);
    set('data-index', String(i));
    set('data-id', n.id);
    set('data-kind', n.kind);
    if (n.kind === 'group') {
      set('data-group', String(n.group));
      set('data-members', String(n.members));
    }
    if (badges) {
      set('data-badges', badges.join('\n'));
      set('aria-description', `inputs through ${badges.map((b) => b.split('@')[0]).join(', ')}`);
    }
    set('data-x', String(n.x));
    set('data-y', String(n.y));
    set('data-w', String(n.w));
    set('data-h', String(n.h));
    for (const [name, values] of this.data) set(`data-${name}`, values[i] ?? '');
    this.items[i] = li;
    return li;
  }
}
