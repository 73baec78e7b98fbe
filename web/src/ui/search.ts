// Find a node by name or op type, on either side: a combobox whose list shows the best matches
// (whole label first, then names that start with the text, then names that contain it). It
// searches every node of both models, also those hidden in closed groups.
import type { Side } from '../model/comparison';
import { el } from './dom';

/** A node to find: its side, model node id and label. */
export interface SearchItem {
  side: Side;
  id: string;
  label: string;
}

const MAX_RESULTS = 50;

export class NodeSearch {
  private items: SearchItem[] = [];
  private results: SearchItem[] = [];
  private active = -1;

  constructor(private readonly input: HTMLInputElement, private readonly list: HTMLUListElement,
              private readonly pick: (side: Side, id: string) => void) {
    input.addEventListener('input', () => this.update());
    input.addEventListener('focus', () => this.update());
    input.addEventListener('keydown', (e) => this.key(e));
    input.addEventListener('blur', () => setTimeout(() => this.close(), 150));
  }

  setItems(items: SearchItem[]): void {
    this.items = items;
    this.close();
  }

  private update() {
    const q = this.input.value.trim().toLowerCase();
    this.results = [];
    if (!q) return this.close();
    const scored: Array<{ item: SearchItem; order: number; score: number }> = [];
    this.items.forEach((item, order) => {
      const label = item.label.toLowerCase(), id = item.id.toLowerCase();
      const score = label === q ? 0 : id === q ? 0 : id.startsWith(q) || label.startsWith(q) ? 1 : id.includes(q) || label.includes(q) ? 2 : -1;
      if (score >= 0) scored.push({ item, order, score });
    });
    // Items come float side first, each side in drawing order: ties keep that order.
    scored.sort((a, b) => a.score - b.score || a.order - b.order);
    this.results = scored.slice(0, MAX_RESULTS).map((s) => s.item);
    this.active = this.results.length ? 0 : -1;
    this.render(scored.length);
  }

  /** Each side's letter in the results (F / Q, or A / B for two versions of a model: model/pair_case.ts). */
  letters: Record<'float' | 'quant', string> = { float: 'F', quant: 'Q' };

  private render(total: number) {
    this.list.replaceChildren(...this.results.map((node, k) => {
      const li = el('li', { attrs: { role: 'option', id: `search-${k}`, 'aria-selected': String(k === this.active), 'data-side': node.side, 'data-id': node.id } },
        el('span', { class: `side-tag ${node.side === 'quant' ? 'quant' : ''}`, text: this.letters[node.side] }),
        el('span', { class: 'result-label', text: node.label }), el('span', { class: 'result-id', text: node.id }));
      li.addEventListener('mousedown', (e) => {
        e.preventDefault();
        this.choose(k);
      });
      return li;
    }));
    if (total > this.results.length) this.list.append(el('li', { class: 'muted more', text: `${total - this.results.length} more: type more of the name` }));
    if (total === 0) this.list.append(el('li', { class: 'muted more', text: 'No node matches' }));
    this.list.hidden = false;
    this.input.setAttribute('aria-expanded', 'true');
    this.input.setAttribute('aria-activedescendant', this.active >= 0 ? `search-${this.active}` : '');
  }

  private key(e: KeyboardEvent) {
    if (e.key === 'Escape') return this.close();
    if (!this.results.length) return;
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      this.active = (this.active + (e.key === 'ArrowDown' ? 1 : this.results.length - 1)) % this.results.length;
      this.render(this.results.length);
      this.list.querySelector(`#search-${this.active}`)?.scrollIntoView({ block: 'nearest' });
    } else if (e.key === 'Enter') {
      e.preventDefault();
      this.choose(Math.max(this.active, 0));
    }
  }

  private choose(k: number) {
    const r = this.results[k];
    if (!r) return;
    this.pick(r.side, r.id);
    this.close();
  }

  private close() {
    this.list.hidden = true;
    this.input.setAttribute('aria-expanded', 'false');
  }
}
