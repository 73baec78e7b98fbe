// The self-contained HTML report of a comparison, shared by the web page (Export HTML) and the VS
// Code extension (its export command): one file that opens offline. Every model string enters it
// escaped, and it carries a Content-Security-Policy that allows no script at all (only its own
// inline styles), so whatever a model's names hold, opening the report runs nothing.
import type { ActivationsReport, CompareReport, LintFinding, WeightLayer, WeightsReport } from '../protocol/messages';
import { isDifference, pairNotice, sideName, sideTitle, weightsTitle } from '../model/pair_case';
import { cellText, shownColumns, type TableMeasures } from '../ui/layer_table';

export interface FullReport {
  report: CompareReport;
  weights: WeightsReport;
  lint: LintFinding[];
  /** The pair's activation comparison, when one has run. */
  activations?: ActivationsReport | null;
}

/** Below this SQNR (dB) a layer is damaged (the extension's setting, the page's heat overlay). */
export interface DamageThreshold {
  damagedSqnrDb: number;
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

const h = escapeHtml;

function table(head: string[], rows: string[][], numeric: boolean[] = []): string {
  const cell = (tag: string, v: string, k: number) => `<${tag}${numeric[k] ? ' class="num"' : ''}>${h(v)}</${tag}>`;
  return `<table><thead><tr>${head.map((v, k) => cell('th', v, k)).join('')}</tr></thead>\n<tbody>\n${
    rows.map((r) => `<tr>${r.map((v, k) => cell('td', v, k)).join('')}</tr>`).join('\n')}\n</tbody></table>`;
}

function layerTable(layers: WeightLayer[], m: TableMeasures): string {
  const columns = shownColumns(m);
  return table(columns.map((c) => c.title), layers.map((l) => columns.map((c) => cellText(c, l))), columns.map((c) => !!c.numeric));
}

const STYLE = `body{font:14px/1.5 system-ui,sans-serif;margin:24px auto;max-width:1200px;padding:0 16px;color:#1c2127}
h1{font-size:22px}h2{font-size:17px;margin-top:28px;border-bottom:1px solid #d8dce2}
table{border-collapse:collapse;width:100%;font-size:12px}th,td{padding:3px 8px;border-bottom:1px solid #e3e6ea;text-align:left}
th{background:#f0f2f5}.num{text-align:right;font-variant-numeric:tabular-nums}.damaged{color:#b91c1c}.muted{color:#5b6573}.notice{padding:8px 12px;border:1px solid #d8dce2;border-radius:6px}.notice.wrong{background:#fdecec;color:#8a1c1c;font-weight:600;border-color:#f3b8b8}
dl{display:grid;grid-template-columns:max-content 1fr;gap:2px 14px}dt{color:#5b6573}dd{margin:0}.graphs{overflow:auto}.graphs svg{max-width:100%;height:auto}
@media (prefers-color-scheme:dark){body{background:#14171c;color:#e6e9ee}th{background:#222731}th,td{border-color:#2b313c}.damaged{color:#f87171}.muted,dt{color:#9aa4b2}}`;

/** The layers below the damaged threshold, worst first (as the weights report ranks them). */
export function damagedLayers<L extends { error: { sqnr_db: number | null } }>(layers: L[], s: DamageThreshold): L[] {
  return layers.filter((l) => l.error.sqnr_db !== null && l.error.sqnr_db < s.damagedSqnrDb);
}

/**
 * A self-contained HTML report: summary, the graphs (when given: an SVG of both, from export/svg.ts,
 * its model strings escaped), damaged layers, every quantized weight, the activation comparison
 * (once one ran), fusions, lint, least confident matches.
 */
/** How many compared tensors the report lists, worst first (the JSON export has every one). */
const ACTIVATION_ROWS = 30;

/** The activation comparison's section: inputs (synthetic said so), outputs, where the error is born, the worst tensors. */
function activationSection(a: ActivationsReport, weights: WeightsReport): string {
  const db = (v: number | null | undefined) => (v === null || v === undefined ? '∞' : `${v.toFixed(1)} dB`);
  const outputs = a.points.filter((p) => p.model_output !== undefined);
  const jump = (j: ActivationsReport['summary']['first_jump']) =>
    j ? `${h(j.quant_node ?? j.quantized_tensor)} (${j.sqnr_drop_db === null ? '–' : j.sqnr_drop_db.toFixed(1)} dB below its inputs)` : `none (${h(a.summary.jump_rule)})`;
  const byEntry = new Map(weights.layers.map((l) => [l.entry, l]));
  const worst = [...a.points].sort((x, y) => x.rank - y.rank).slice(0, ACTIVATION_ROWS);
  return [
    `<h2>Activations</h2>`,
    a.inputs.synthetic
      ? `<p class="damaged">Synthetic inputs (${a.inputs.samples.length} seeded sample${a.inputs.samples.length === 1 ? '' : 's'} from the declared types and shapes): every figure below is directional only.</p>`
      : '',
    `<dl><dt>Inputs</dt><dd>${h(a.inputs.samples.join(', '))} <span class="muted">(${h(a.inputs.note)})</span></dd>`,
    `<dt>Runtime</dt><dd>${h(a.runtime.engine)}, graph optimisation ${h(a.runtime.graph_optimization)}, ${a.runtime.runs} runs</dd>`,
    ...outputs.map((p) => `<dt>Model output ${h(p.quantized_tensor)}</dt><dd>SQNR ${db(p.accumulated.sqnr_db)}, cosine ${p.accumulated.cosine === null ? '–' : p.accumulated.cosine.toFixed(5)}</dd>`),
    `<dt>First jump</dt><dd>${jump(a.summary.first_jump)}</dd>`,
    `<dt>Largest drop</dt><dd>${jump(a.summary.largest_jump)}</dd>`,
    `<dt>Tapping</dt><dd>${h(a.tapping.check)}</dd>`,
    `<dt>Compared</dt><dd>${a.summary.compared} tensors; ${a.summary.failed} failed, ${a.summary.not_observable} not observable</dd></dl>`,
    `<h3>The ${worst.length} worst compared tensors (accumulated SQNR)</h3>`,
    table(['Rank', 'Quantized ops', 'Float tensor', 'Quantized tensor', 'SQNR', 'Local', 'Weight', 'Verdict'], worst.map((p) => {
      const w = p.entries.map((e) => byEntry.get(e)).find((l) => l);
      return [String(p.rank), p.quant_nodes.join(' + '), p.float_tensor, p.quantized_tensor, db(p.accumulated.sqnr_db),
        p.local ? db(p.local.sqnr_db) : '–', w ? db(w.error.sqnr_db) : '–', p.verdict];
    }), [true, false, false, false, true, true, true, false]),
  ].join('\n');
}

export function htmlReport({ report: r, weights, lint, activations }: FullReport, settings: DamageThreshold, version: string, graphs?: string): string {
  // Between two versions of a model nothing is "damaged": the figures are changes, not errors.
  const difference = isDifference(weights);
  const damaged = difference ? [] : damagedLayers(weights.layers, settings);
  const notice = pairNotice(r);
  const kinds = Object.entries(r.summary.by_kind).filter(([, n]) => n > 0).map(([k, n]) => `${n} ${k}`).join(', ');
  const side = (label: string, s: CompareReport['float']) =>
    `<dt>${h(label)}</dt><dd>${h(s.file)} <span class="muted">(${h(s.producer_name || 'unknown producer')} ${h(s.producer_version)}, ${s.nodes} nodes, ${
      s.size_bytes.toLocaleString('en-US')} bytes${s.quantization_forms.length ? `, ${h(s.quantization_forms.join(', '))}` : ''})</span></dd>`;
  const entry = (i: number) => r.mapping[i];
  const sections = [
    `<h1>${r.case === 'float_vs_quantized' ? 'Quantization report' : 'Comparison report'}: ${h(r.float.file)} and ${h(r.quant.file)}</h1>`,
    notice ? `<p class="notice ${notice.kind}">${h(notice.text)}</p>` : '',
    `<dl>${side(sideTitle(r, 'float'), r.float)}${side(sideTitle(r, 'quant'), r.quant)}`,
    `<dt>Same network</dt><dd>${r.summary.same_network === null ? 'unknown' : r.summary.same_network ? 'yes' : 'no'} <span class="muted">(${h(r.summary.same_network_evidence.reason)})</span></dd>`,
    `<dt>Matches</dt><dd>${r.summary.entries}: ${h(kinds)}</dd>`,
    `<dt>Fusions</dt><dd>${r.fusions.length}</dd>`,
    `<dt>Mean confidence</dt><dd>${Math.round(r.summary.mean_confidence * 100)} %</dd>`,
    weights.not_compared ? `<dt>Weights</dt><dd>not compared: ${h(weights.not_compared.replace(/^no weights are compared: /, ''))}</dd>`
      : difference ? `<dt>Weights compared</dt><dd>${weights.layers.length}, ${weights.layers.filter((l) => l.error.changed_fraction > 0).length} changed</dd>`
        : `<dt>Quantized weights</dt><dd>${weights.layers.length}, <span class="${damaged.length ? 'damaged' : ''}">${damaged.length} damaged</span> (SQNR below ${settings.damagedSqnrDb} dB)</dd>`,
    `<dt>Lint findings</dt><dd>${lint.length}</dd>`,
    r.summary.weighted_ops_left_float.length ? `<dt>Weighted ops left float</dt><dd>${h(r.summary.weighted_ops_left_float.join(', '))}</dd>` : '',
    `</dl>`,
    graphs ? `<h2>The graphs, as shown</h2>\n<div class="graphs">${graphs}</div>` : '',
    difference || weights.not_compared ? '' : `<h2>Damaged layers (SQNR below ${settings.damagedSqnrDb} dB)</h2>`,
    difference || weights.not_compared ? '' : damaged.length ? layerTable(damaged, weights) : '<p class="muted">None.</p>',
    `<h2>${h(difference ? weightsTitle(weights, r) : weights.not_compared ? 'Weights' : 'Every quantized weight, worst first')}</h2>`,
    weights.layers.length ? layerTable(weights.layers, weights)
      : `<p class="muted">${weights.not_compared ? h(weights.not_compared) : difference ? 'No weights to compare.' : 'No quantized weights.'}</p>`,
    activations ? activationSection(activations, weights) : '',
    `<h2>Fusions</h2>`,
    r.fusions.length ? table(['Pattern', `${sideName(r, 'float')} nodes`, `${sideName(r, 'quant')} nodes`, 'Verification', 'Detail'],
      r.fusions.map((f) => [f.pattern, f.float.join(', '), f.quant.join(', '), f.verification, f.detail])) : '<p class="muted">None.</p>',
    `<h2>Lint findings</h2>`,
    lint.length ? table(['Severity', 'Check', 'Node', 'Message'], lint.map((f) => [f.severity, f.check, f.node, f.message])) : '<p class="muted">None.</p>',
    `<h2>Least confident matches</h2>`,
    table(['Kind', 'Confidence', `${sideName(r, 'float')} ops`, `${sideName(r, 'quant')} ops`, 'Evidence'], r.summary.least_confident_entries.map(entry).filter(Boolean).map((e) =>
      [e.kind, `${Math.round(e.confidence * 100)} %`, e.float_ops.join(', '), e.quant_ops.join(', '), e.evidence.join('; ')])),
    `<p class="muted">Written by VisualQuantization (core ${h(version)}).</p>`,
  ];
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<meta name="color-scheme" content="light dark">
<title>${h(`${r.float.file} vs ${r.quant.file}`)}</title>
<style>${STYLE}</style>
</head>
<body>
${sections.filter(Boolean).join('\n')}
</body>
</html>
`;
}
