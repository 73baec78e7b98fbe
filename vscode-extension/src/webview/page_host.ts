// What both webview pages share: the VS Code API (acquired once), the start-up data the extension put
// in the HTML, the editor's theme (body[data-vscode-theme-kind], watched), exports handed to the
// extension to save, and the view state kept by VS Code while the tab is hidden (setState).
import type { ThemeName } from '../../../web/src/ui/overlays';
import type { FromWebview, PageInit } from './host_messages';

export interface VsCodeApi {
  postMessage(message: FromWebview): void;
  getState(): unknown;
  setState(state: unknown): void;
}

declare function acquireVsCodeApi(): VsCodeApi;

let api: VsCodeApi | null = null;
export function vscodeApi(): VsCodeApi {
  api ??= acquireVsCodeApi();
  return api;
}

export function pageInit<P extends PageInit['page']>(page: P): Extract<PageInit, { page: P }> {
  const init = JSON.parse(document.body.dataset.vqInit ?? 'null') as PageInit | null;
  if (!init || init.page !== page) throw new Error(`this page expects ${page} data from the extension`);
  return init as Extract<PageInit, { page: P }>;
}

/** The editor's theme: light for light and high-contrast light themes, dark for the others. */
export function editorTheme(): { current(): ThemeName; onChange(listener: () => void): void } {
  const kind = () => document.body.dataset.vscodeThemeKind ?? (document.body.classList.contains('vscode-light') ? 'vscode-light' : 'vscode-dark');
  return {
    current: () => (/light/.test(kind()) ? 'light' : 'dark'),
    onChange: (listener) => new MutationObserver(listener).observe(document.body, { attributes: true, attributeFilter: ['class', 'data-vscode-theme-kind'] }),
  };
}

/** Hands an export to the extension, which asks where to save it. */
export async function saveThroughHost(name: string, data: string | Blob, mime: string): Promise<void> {
  if (typeof data === 'string') return vscodeApi().postMessage({ type: 'save', name, mime, text: data });
  const bytes = new Uint8Array(await data.arrayBuffer());
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  vscodeApi().postMessage({ type: 'save', name, mime, base64: btoa(binary) });
}

/**
 * The page's saved state when it belongs to `key` (the files shown), and a saver that writes it at
 * most every 200 ms (a pan saves the camera on every frame). A change after a quiet spell is written
 * at once, and a pending one as soon as the page loses focus: a click elsewhere in VS Code comes
 * before the tab is hidden, and a hidden page is gone with whatever it had not written.
 */
export function keptState<S>(key: string): { restored: S | undefined; save(state: S): void } {
  const saved = vscodeApi().getState() as { key?: string; state?: S } | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let pending = false;
  let latest: S | undefined;
  const write = () => {
    if (timer !== undefined) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = undefined;
      if (pending) write();
    }, 200);
    pending = false;
    vscodeApi().setState({ key, state: latest });
  };
  const flush = () => {
    if (pending) write();
  };
  window.addEventListener('blur', flush);
  window.addEventListener('pagehide', flush);
  return {
    restored: saved?.key === key ? saved.state : undefined,
    save(state) {
      latest = state;
      pending = true;
      if (timer === undefined) write();
    },
  };
}
