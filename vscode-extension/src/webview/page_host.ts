// What both webview pages share: the VS Code API (acquired once), the start-up data the extension put
// in the HTML, the editor's theme (body[data-vscode-theme-kind], watched) and exports handed to the
// extension to save. The view state kept while the tab is hidden is kept_state.ts's.
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
