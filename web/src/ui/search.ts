// Find a node by name or op type, on either side: a combobox whose list shows the best matches
// (whole label first, then names that start with the text, then names that contain it).
import { SIDES, type Comparison, type Side } from '../model/comparison';
import { el } from './dom';

const MAX_RESULTS = 50;

export class NodeSearch {
  private comparison: Comparison | null = null;
  private results: Array<{ side: Side; index: number }> = [];
  private active = -1;

  constructor(private readonly input: HTMLInputElement, private readonly list: HTMLUListElement,
              private readonly pick: (side: Side, index: number) => void) {
    input.addEventListener('input', () => this.update());
    input.addEventListener('focus', () => this.update());
    input.addEventListener('keydown', (e) => this.key(e));
    input.addEventListener('blur', () => setTimeout(() => this.close(), 150));
  }

  setComparison(comparison: Comparison | null): void {
    this.comparison = comparison;
    this.close();
  }

  private update() {
    const q = this.input.value.trim().toLowerCase();
    const c = this.comparison;
    this.results = [];
    if (!c || !q) return this.close();
    const scored: Array<{ side: Side; index: number; score: number }> = [];
    for (const side of SIDES) {
      for (const info of c.nodes[side]) {
        const label = info.node.label.toLowerCase(), id = info.node.id.toLowerCase();
        const score = label === q ? 0 : id === q ? 0 : id.startsWith(q) || label.startsWith(q) ? 1 : id.includes(q) || label.includes(q) ? 2 : -1;
        if (score >= 0) scored.push({ side, index: info.index, score });
      }
    }
    scored.sort((a, b) => a.score - b.score || (a.side === b.side ? a.index - b.index : a.side === 'float' ? -1 : 1));
    this.results = scored.slice(0, MAX_RESULTS);
    this.active = this.results.length ? 0 : -1;
    this.render(scored.length);
  }

  private render(total: number) {
    const c = this.comparison!;
    this.list.replaceChildren(...this.results.map((r, k) => {
      const node = c.nodes[r.side][r.index].node;
      const li = el('li', { attrs: { role: 'option', id: `search-${k}`, 'aria-selected': String(k === this.active), 'data-side': r.side, 'data-id': node.id } },
        el('span', { class: `side-tag ${r.side === 'quant' ? 'quant' : ''}`, text: r.side === 'float' ? 'F' : 'Q' }),
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
    this.pick(r.side, r.index);
    this.close();
  }

  private close() {
    this.list.hidden = true;
    this.input.setAttribute('aria-expanded', 'false');
  }
}
