// Building DOM from code. Every string (model names included) goes in as text, never as markup.
import { uiHost } from '../host';

type Child = Node | string | null | undefined | false;

export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K, props: { class?: string; text?: string; title?: string; attrs?: Record<string, string> } = {}, ...children: Child[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (props.class) node.className = props.class;
  if (props.text !== undefined) node.textContent = props.text;
  if (props.title !== undefined) node.title = props.title;
  for (const [k, v] of Object.entries(props.attrs ?? {})) node.setAttribute(k, v);
  for (const c of children) if (c) node.append(c);
  return node;
}

/** Resolves in the task after the next frame's drawing (what was put on screen has been painted). */
export function afterNextFrame(): Promise<void> {
  return new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
}

export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const node = document.getElementById(id);
  if (!node) throw new Error(`#${id} missing from the page`);
  return node as T;
}

/** Formats a number for people: 3 significant digits, exponent for very small or large values. */
export function fmt(value: number | null | undefined, digits = 3): string {
  if (value === null || value === undefined) return '–';
  if (!Number.isFinite(value)) return String(value);
  if (value === 0) return '0';
  const a = Math.abs(value);
  if (a >= 1e5 || a < 1e-3) return value.toExponential(digits - 1);
  return Number(value.toPrecision(digits)).toString();
}

/** Saves text or a Blob as a file through a Blob URL (or through the host page, which saves it itself). */
export function download(name: string, data: string | Blob, type: string): void {
  const save = uiHost()?.save;
  if (save) return save(name, data, type);
  const url = URL.createObjectURL(typeof data === 'string' ? new Blob([data], { type }) : data);
  const a = el('a', { attrs: { href: url, download: name } });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/**
 * Row activation for a table body: a click on a row, or Enter or Space on a focused one, calls
 * `activate` with the row's item. One listener each, for every row drawn now or later.
 */
export function onRowActivate<T>(tbody: HTMLElement, itemOf: (row: HTMLTableRowElement) => T | null | undefined, activate: (item: T) => void): void {
  const find = (e: Event) => {
    const row = (e.target as Element).closest<HTMLTableRowElement>('tr');
    return row && tbody.contains(row) ? itemOf(row) ?? null : null;
  };
  tbody.addEventListener('click', (e) => {
    const item = find(e);
    if (item !== null) activate(item);
  });
  tbody.addEventListener('keydown', (e) => {
    const item = e.key === 'Enter' || e.key === ' ' ? find(e) : null;
    if (item === null) return;
    e.preventDefault();
    activate(item);
  });
}
