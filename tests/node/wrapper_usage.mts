// Compiled (not run) by typecheck.test.mjs: the wrapper's declaration file describes what callers
// use, strictly typed.
import { loadVisualQuant, VisualQuantError, type InspectReport } from '../../wasm/visualquant.mjs';

export async function summarise(bytes: Uint8Array, wasmBinary: Uint8Array): Promise<string> {
  const core = await loadVisualQuant({ wasmBinary });
  try {
    const report: InspectReport = JSON.parse(core.inspect(bytes, 'model.onnx', { 'weights.bin': new Uint8Array(4) }));
    const forms: string[] = report.quantization.forms;
    return `${report.file.name}: ${report.graph.nodes} nodes, ${forms.join(',')} (${core.version})`;
  } catch (e) {
    if (e instanceof VisualQuantError) return `refused: ${e.code}`;
    throw e;
  }
}
