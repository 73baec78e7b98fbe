// Choosing a model: a quick pick of the workspace's .onnx files (the likely counterpart first), or a
// file dialog ("Browse…").
import * as vscode from 'vscode';
import { baseName } from '../host/files';
import { rankCounterparts } from '../pairing/pairing';

interface ModelItem extends vscode.QuickPickItem {
  uri?: vscode.Uri;
}

export const isOnnx = (uri: vscode.Uri) => /\.onnx$/i.test(uri.path);

/** The workspace's .onnx files (node_modules and the like left out), at most 5,000. */
export async function workspaceModels(): Promise<vscode.Uri[]> {
  const found = await vscode.workspace.findFiles('**/*.onnx', '{**/node_modules/**,**/.git/**}', 5000);
  return found.sort((a, b) => a.path.localeCompare(b.path));
}

/**
 * Asks for a model. With `counterpartOf`, that model is left out and the rest come in the order
 * of how likely each is its counterpart.
 */
export async function pickModel(title: string, counterpartOf?: vscode.Uri): Promise<vscode.Uri | undefined> {
  let models = await workspaceModels();
  if (counterpartOf) {
    const byPath = new Map(models.map((u) => [u.toString(), u]));
    models = rankCounterparts(counterpartOf.toString(), [...byPath.keys()]).map((k) => byPath.get(k)!);
  }
  const items: ModelItem[] = models.map((uri) => ({ label: baseName(uri), description: vscode.workspace.asRelativePath(uri, true), uri }));
  items.push({ label: '$(folder-opened) Browse…', description: 'choose a file outside the list', alwaysShow: true });
  const picked = await vscode.window.showQuickPick(items, {
    title, placeHolder: items.length > 1 ? 'Type to filter the .onnx files of the workspace' : 'No .onnx file in the workspace: browse for one',
    matchOnDescription: true,
  });
  if (!picked) return undefined;
  if (picked.uri) return picked.uri;
  const chosen = await vscode.window.showOpenDialog({
    title, canSelectMany: false, openLabel: 'Choose', filters: { 'ONNX models': ['onnx'] },
    defaultUri: counterpartOf ? vscode.Uri.joinPath(counterpartOf, '..') : vscode.workspace.workspaceFolders?.[0]?.uri,
  });
  return chosen?.[0];
}
