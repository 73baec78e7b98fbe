// The VS Code extension's entry: the custom editor of .onnx files, the comparison tabs (and their
// restoring after a reload), the commands, and the settings applied to open tabs when they change.
import * as vscode from 'vscode';
import { registerCommands } from './commands/compare';
import { ComparePanel, ComparePanelSerializer, COMPARE_VIEW_TYPE } from './editor/compare_panel';
import { OnnxViewerProvider, VIEWER_TYPE } from './editor/onnx_viewer';
import { ExtensionEnv } from './env';

export function activate(context: vscode.ExtensionContext): void {
  const env = new ExtensionEnv(context);
  const viewer = new OnnxViewerProvider(env);
  context.subscriptions.push(
    vscode.window.registerCustomEditorProvider(VIEWER_TYPE, viewer, { supportsMultipleEditorsPerDocument: true }),
    vscode.window.registerWebviewPanelSerializer(COMPARE_VIEW_TYPE, new ComparePanelSerializer(env)),
    ...registerCommands(env, viewer),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (!e.affectsConfiguration('visualquant')) return;
      for (const panel of ComparePanel.all()) panel.render();
      viewer.renderAll();
    }),
  );
}

export function deactivate(): void {
  // Each tab's session ends its core thread when the tab is disposed.
}
