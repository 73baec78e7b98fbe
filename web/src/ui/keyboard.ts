// Keyboard shortcuts of the page, and the key help (`?`) made from the same table, so the help
// cannot drift from what the keys do. Keys are ignored while the user types in a field, and when
// Ctrl, Alt or Meta is held (the browser's and the system's own shortcuts).
import { el } from './dom';

export interface Shortcut {
  /** KeyboardEvent.key values. */
  keys: string[];
  /** How the help shows the keys. */
  shown: string;
  help: string;
  /** Only with the focus on nothing or on a graph: keys (arrows, Enter) that lists and buttons use themselves. */
  graphOnly?: boolean;
  run(): void;
}

function typing(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || target instanceof HTMLInputElement || target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement;
}

function onGraph(target: EventTarget | null): boolean {
  return target === document.body || target === document.documentElement || (target instanceof Element && target.closest('.graphs') !== null);
}

export class Shortcuts {
  private readonly byKey = new Map<string, Shortcut>();

  constructor(shortcuts: Shortcut[], private readonly help: HTMLElement) {
    for (const s of shortcuts) for (const k of s.keys) this.byKey.set(k, s);
    help.replaceChildren(
      el('h2', { text: 'Keyboard' }),
      el('dl', { class: 'facts keys' }, ...shortcuts.filter((s) => s.help).flatMap((s) => [el('dt', {}, el('kbd', { text: s.shown })), el('dd', { text: s.help })])),
      el('p', { class: 'muted', text: 'Keys work when no text field has the focus. Esc or ? closes this.' }));
    document.addEventListener('keydown', (e) => {
      if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey || typing(e.target)) return;
      const s = this.byKey.get(e.key);
      if (!s || (s.graphOnly && !onGraph(e.target))) return;
      e.preventDefault();
      s.run();
    });
  }

  get helpOpen(): boolean {
    return !this.help.hidden;
  }

  toggleHelp(open = this.help.hidden): void {
    this.help.hidden = !open;
    for (const b of document.querySelectorAll(`[aria-controls="${this.help.id}"]`)) b.setAttribute('aria-expanded', String(open));
  }
}
