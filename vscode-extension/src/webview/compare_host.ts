// The comparison page's host: registered before the web UI (web/src/main.ts) starts, so that the UI
// talks to the extension host instead of a Web Worker, opens the pair the host holds, and takes the
// editor's settings, theme and state keeping.
import { setUiHost, type UiState } from '../../../web/src/host';
import { focusGraphWhenShown } from './focus';
import { keptState } from './kept_state';
import { editorTheme, pageInit, saveThroughHost } from './page_host';
import { VsCodeConnection } from './vscode_connection';

const init = pageInit('compare');
document.documentElement.classList.add('vscode-webview-page');
setUiHost({
  connection: new VsCodeConnection(),
  files: init.files,
  options: init.options,
  theme: editorTheme(),
  save: (name, data, type) => void saveThroughHost(name, data, type),
  // The same two files in either order (a swap keeps the view); of three, the versions' order
  // names A and B, so it is kept. The cameras move continuously.
  state: keptState<UiState>(JSON.stringify(init.files.third ? [init.files.first.ref, init.files.second.ref, init.files.third.ref]
    : [init.files.first.ref, init.files.second.ref].sort()), ['cameras']),
});
focusGraphWhenShown('#graph-float canvas');
