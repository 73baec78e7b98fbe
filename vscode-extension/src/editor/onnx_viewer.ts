// The custom editor of .onnx files: a read-only viewer of one model (its graph, a node's details, the
// weights and quantization summary), with its core session in the extension host. A model the core
// cannot load shows the core's error in the tab. "Compare with…" picks the counterpart.
import * as vscode from 'vscode';
import type { ExtensionEnv } from '../env';
import { referenceTo } from '../host/files';
import { CoreSession } from '../host/session';
import { saveExport } from '../commands/save';
import { pageHtml } from './webview_html';

export const VIEWER_TYPE = 'visualquant.onnxViewer';

export class OnnxViewerProvider implements vscode.CustomReadonlyEditorProvider {
  private readonly open = new Map<vscode.WebviewPanel, vscode.Uri>();
  private lastActive: vscode.Uri | undefined;

  constructor(private readonly env: ExtensionEnv) {}

  /** The model of the viewer shown last ("Compare with…" from the title bar or the palette). */
  activeModel(): vscode.Uri | undefined {
    for (const [panel, uri] of this.open) if (panel.active) return uri;
    return this.lastActive;
  }

  openCustomDocument(uri: vscode.Uri): vscode.CustomDocument {
    return { uri, dispose: () => undefined };
  }

  resolveCustomEditor(document: vscode.CustomDocument, panel: vscode.WebviewPanel): void {
    const uri = document.uri;
    panel.webview.options = this.env.webviewOptions();
    const session = new CoreSession(this.env.workerScript, panel.webview, [uri], {
      save: (m) => void saveExport(m.name, m.mime, m.base64 !== undefined ? Buffer.from(m.base64, 'base64') : m.text ?? '', uri),
      action: (a) => {
        if (a === 'compareWith') void vscode.commands.executeCommand('visualquant.compareWith', uri);
      },
    });
    this.open.set(panel, uri);
    this.lastActive = uri;
    panel.onDidChangeViewState(() => {
      if (panel.active) this.lastActive = uri;
    });
    panel.onDidDispose(() => {
      session.dispose();
      this.open.delete(panel);
    });
    this.render(panel, uri);
  }

  render(panel: vscode.WebviewPanel, uri: vscode.Uri): void {
    panel.webview.html = pageHtml(this.env.assets('viewer', panel.webview), {
      page: 'viewer', file: referenceTo(uri), view: this.env.settings().foldQdq ? 'logical' : 'nodes',
    });
  }

  /** Settings changed: the pages reload with them (their view state is kept). */
  renderAll(): void {
    for (const [panel, uri] of this.open) this.render(panel, uri);
  }
}
