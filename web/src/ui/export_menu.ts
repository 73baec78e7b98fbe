// The toolbar's Graphs menu: what the image exports draw (what is in view, the whole graphs, or the
// selection with its neighbours) and the PNG, SVG and HTML buttons. A menu because the toolbar has
// no room for a scope choice beside three buttons on a laptop screen (one line at 1366 px). It
// opens below its button, and closes on a choice, a click elsewhere or Escape (focus goes back).
import type { ExportScope } from '../export/export_regions';

export class ExportMenu {
  constructor(private readonly button: HTMLButtonElement, private readonly menu: HTMLElement) {
    button.addEventListener('click', () => this.toggle(this.menu.hidden));
    menu.addEventListener('click', (e) => {
      if ((e.target as HTMLElement).closest('button')) this.toggle(false);
    });
    document.addEventListener('pointerdown', (e) => {
      if (!this.menu.hidden && !this.menu.contains(e.target as Node) && !this.button.contains(e.target as Node)) this.toggle(false);
    });
    menu.addEventListener('keydown', (e) => {
      if (e.key !== 'Escape') return;
      e.stopPropagation();
      this.toggle(false);
      this.button.focus();
    });
  }

  /** The scope chosen (the checked radio button). */
  get scope(): ExportScope {
    return (this.menu.querySelector<HTMLInputElement>('input[name="export-scope"]:checked')?.value ?? 'view') as ExportScope;
  }

  private toggle(open: boolean) {
    this.menu.hidden = !open;
    this.button.setAttribute('aria-expanded', String(open));
    if (open) this.menu.querySelector<HTMLInputElement>('input:checked')?.focus();
  }
}
