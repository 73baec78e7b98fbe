// What the extension's parts share: where its files are, the settings, the webview options and page
// assets, the status bar item, and saving an export where the user chooses.
import { readFileSync } from 'node:fs';
import * as vscode from 'vscode';
import { viewerTemplate } from './editor/viewer_template';
import type { PageAssets } from './editor/webview_html';
import { readSettings, type Settings } from './host/settings';

export type PageName = 'compare' | 'viewer';

export class ExtensionEnv {
  readonly workerScript: string;
  readonly status: vscode.StatusBarItem;
  private readonly webviewRoot: vscode.Uri;
  private readonly templates = new Map<PageName, string>();

  constructor(readonly context: vscode.ExtensionContext) {
    this.workerScript = vscode.Uri.joinPath(context.extensionUri, 'dist', 'core_worker.mjs').fsPath;
    this.webviewRoot = vscode.Uri.joinPath(context.extensionUri, 'dist', 'webview');
    this.status = vscode.window.createStatusBarItem('visualquant.status', vscode.StatusBarAlignment.Left, 50);
    this.status.name = 'VisualQuant';
    context.subscriptions.push(this.status);
  }

  settings(): Settings {
    const config = vscode.workspace.getConfiguration('visualquant');
    return readSettings((key) => config.get(key));
  }

  /** Scripts on, and nothing loaded from outside the extension's webview files. */
  webviewOptions(): vscode.WebviewOptions {
    return { enableScripts: true, enableCommandUris: false, localResourceRoots: [this.webviewRoot] };
  }

  assets(page: PageName, webview: vscode.Webview): PageAssets {
    let template = this.templates.get(page);
    if (template === undefined) {
      const read = (file: string) => readFileSync(vscode.Uri.joinPath(this.webviewRoot, file).fsPath, 'utf8');
      template = page === 'compare' ? read('compare.html') : viewerTemplate(read('compare.html'), read('viewer_parts.html'));
      this.templates.set(page, template);
    }
    const uri = (file: string) => webview.asWebviewUri(vscode.Uri.joinPath(this.webviewRoot, file)).toString();
    return { template, script: uri(`${page}.js`), styles: [uri('styles.css'), uri('vscode.css')], cspSource: webview.cspSource };
  }
}
