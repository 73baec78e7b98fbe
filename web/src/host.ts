// What a host page gives the UI in place of the browser's defaults. The web page has no host; the VS
// Code webview registers one (setUiHost) before main.ts runs: its connection to the core in the
// extension host, the pair the host holds, the user's settings, the editor's theme, where exports
// are saved, and where the view state is kept while the tab is hidden.
import type { CoreConnection } from './protocol/connection';
import type { FileReference, LayoutView } from './protocol/messages';
import type { Camera } from './ui/graph_view';
import type { OverlayName, ThemeName } from './ui/overlays';

/** Defaults chosen by the host's settings. */
export interface UiOptions {
  overlay?: OverlayName;
  view?: LayoutView;
  /** Histogram bins of the weight analysis and its charts. */
  bins?: number;
  /** Lower bounds (dB, descending) of the weight-error overlay's bins above the worst one. */
  sqnrThresholds?: number[];
}

/** What the UI keeps across a reload of the page (the tab hidden and shown again). */
export interface UiState {
  overlay: OverlayName;
  view: LayoutView;
  /** The node clicked, by side and model node id. */
  selected: { side: 'float' | 'quant'; id: string } | null;
  cameras: { float: Camera; quant: Camera } | null;
}

export interface UiHost {
  connection: CoreConnection;
  /** The pair (or three-way comparison, with `third`) to open at start: files the host reads itself. */
  files?: { first: FileReference; second: FileReference; third?: FileReference };
  options?: UiOptions;
  theme?: { current(): ThemeName; onChange(listener: () => void): void };
  /** Saves an export (in place of a browser download). */
  save?(name: string, data: string | Blob, type: string): void;
  state?: { restored?: UiState; save(state: UiState): void };
}

let host: UiHost | null = null;

export function setUiHost(h: UiHost): void {
  host = h;
}

export function uiHost(): UiHost | null {
  return host;
}
