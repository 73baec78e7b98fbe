// The commands: Compare Quantization (two models selected in the Explorer, or three: a float model
// and two quantized versions of it), Compare Quantization…
// (asks for both), Compare with… (a model's counterpart), Swap, and the three exports.
import * as vscode from 'vscode';
import type { ExtensionEnv } from '../env';
import { ComparePanel } from '../editor/compare_panel';
import type { OnnxViewerProvider } from '../editor/onnx_viewer';
import { guessOrder, quantHint } from '../pairing/pairing';
import { isOnnx, pickModel } from './pick';

/** Opens the comparison of two models, float first by their names (the core decides by their content). */
export function compareFiles(env: ExtensionEnv, a: vscode.Uri, b: vscode.Uri): ComparePanel {
  const [first, second] = guessOrder({ path: a.path, uri: a }, { path: b.path, uri: b });
  return ComparePanel.open(env, [first.uri, second.uri]);
}

/**
 * Three models with the one whose name says float first, the others in the order selected: the
 * core finds the float model by content whatever the order, and the versions' order names A and B.
 */
function floatLooking(uris: vscode.Uri[]): vscode.Uri[] {
  const hub = uris.reduce((best, u) => (quantHint(u.path) < quantHint(best.path) ? u : best), uris[0]);
  return [hub, ...uris.filter((u) => u !== hub)];
}

export function registerCommands(env: ExtensionEnv, viewer: OnnxViewerProvider): vscode.Disposable[] {
  /** The counterpart of `first` (asked for too when not given). */
  const compareWith = async (first?: vscode.Uri) => {
    first ??= await pickModel('Compare Quantization: a model (float or quantized)');
    if (!first) return;
    const second = await pickModel(`Compare ${first.path.split('/').pop()} with…`, first);
    if (second) compareFiles(env, first, second);
  };
  const withPanel = (run: (panel: ComparePanel) => Promise<void> | void) => async () => {
    const panel = ComparePanel.current();
    if (!panel) {
      void vscode.window.showWarningMessage('Open a comparison first (Compare Quantization).');
      return;
    }
    try {
      await run(panel);
    } catch (e) {
      void vscode.window.showErrorMessage(`VisualQuant: ${e instanceof Error ? e.message : String(e)}`);
    }
  };
  return [
    // From the Explorer: the clicked file and the selection (two .onnx files).
    vscode.commands.registerCommand('visualquant.compare', async (clicked?: vscode.Uri, selected?: vscode.Uri[]) => {
      const uris = (selected?.length ? selected : clicked ? [clicked] : []).filter(isOnnx);
      if (uris.length === 2) compareFiles(env, uris[0], uris[1]);
      else if (uris.length === 3) ComparePanel.open(env, floatLooking(uris));
      else if (uris.length === 1) await compareWith(uris[0]);
      else void vscode.window.showWarningMessage(`Select two .onnx files to compare, or three (a float model and two quantized versions of it); ${uris.length} selected.`);
    }),
    vscode.commands.registerCommand('visualquant.comparePick', () => compareWith()),
    // From a viewer's title bar or page (its model), the Explorer (the file clicked), or the palette (the viewer shown last).
    vscode.commands.registerCommand('visualquant.compareWith', (uri?: vscode.Uri) => compareWith(uri instanceof vscode.Uri ? uri : viewer.activeModel())),
    vscode.commands.registerCommand('visualquant.swap', withPanel((p) => p.swap())),
    vscode.commands.registerCommand('visualquant.exportJson', withPanel((p) => p.export('json'))),
    vscode.commands.registerCommand('visualquant.exportCsv', withPanel((p) => p.export('csv'))),
    vscode.commands.registerCommand('visualquant.exportHtml', withPanel((p) => p.export('html'))),
  ];
}
