// Compiled (not run) by typecheck.test.mjs: the wrapper's declaration file describes what callers
// use, strictly typed.
import {
  loadVisualQuant, VisualQuantError, type CompareReport, type InspectReport, type LintFinding, type WeightLayer, type WeightsReport,
} from '../../wasm/visualquant.mjs';

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

export async function worstMatch(a: Uint8Array, b: Uint8Array, wasmBinary: Uint8Array): Promise<string> {
  const core = await loadVisualQuant({ wasmBinary });
  const report: CompareReport = JSON.parse(core.compare(a, 'a.onnx', b, 'b.onnx'));
  const index = report.summary.least_confident_entries[0];
  const entry = report.mapping[index];
  return `${entry.kind} ${entry.confidence}: ${entry.float.join('+')} -> ${entry.quant.join('+')} (${entry.evidence.join('; ')})`;
}

export async function worstLayer(a: Uint8Array, b: Uint8Array, wasmBinary: Uint8Array): Promise<string> {
  const core = await loadVisualQuant({ wasmBinary });
  const open = core.open(a, 'a.onnx', b, 'b.onnx');
  try {
    const report: CompareReport = JSON.parse(open.report);
    const weights: WeightsReport = JSON.parse(open.weights(32));
    const worst: WeightLayer = JSON.parse(open.weightLayer(weights.layers[0].quant_node));
    const lint: LintFinding[] = JSON.parse(open.lint());
    const sqnr = worst.error.sqnr_db === null ? 'lossless' : worst.error.sqnr_db.toFixed(1);
    return `${report.summary.entries} entries; worst ${worst.float_node} at ${sqnr} dB, ${worst.channels.count} channels; ` +
      `${lint.filter((f) => f.severity === 'error').length} lint errors`;
  } finally {
    open.close();
  }
}
