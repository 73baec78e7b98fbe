// Saving an export: a save dialog that starts in the workspace (never next to the models unless the
// user goes there), then vscode.workspace.fs writes the file.
import * as vscode from 'vscode';

const FILTERS: Record<string, Record<string, string[]>> = {
  'application/json': { 'JSON report': ['json'] },
  'text/csv': { 'CSV table': ['csv'] },
  'text/html': { 'HTML report': ['html'] },
  'image/png': { 'PNG image': ['png'] },
  'application/onnx': { 'ONNX model': ['onnx'] },
  'text/x-python': { 'Python': ['py'] },
};

/** Where the dialog starts: the workspace folder of `near` (the float model), else the first one. */
export function defaultFolder(near?: vscode.Uri): vscode.Uri | undefined {
  return (near && vscode.workspace.getWorkspaceFolder(near)?.uri) ?? vscode.workspace.workspaceFolders?.[0]?.uri;
}

export async function saveExport(name: string, mime: string, data: Uint8Array | string, near?: vscode.Uri): Promise<vscode.Uri | undefined> {
  const folder = defaultFolder(near);
  const uri = await vscode.window.showSaveDialog({
    title: `Save ${name}`,
    defaultUri: folder ? vscode.Uri.joinPath(folder, name) : undefined,
    filters: FILTERS[mime] ?? { 'All files': ['*'] },
    saveLabel: 'Save',
  });
  if (!uri) return undefined;
  await vscode.workspace.fs.writeFile(uri, typeof data === 'string' ? new TextEncoder().encode(data) : data);
  vscode.window.setStatusBarMessage(`VisualQuant: saved ${uri.path.split('/').pop()}`, 5000);
  return uri;
}
