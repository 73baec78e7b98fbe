// The webview pages' HTML (the CSP, the nonce, the start-up data) on the real templates, and the
// exported reports (JSON as the CLI writes it, CSV as the page does, HTML escaped and script-free).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { CompareReport, LintFinding, WeightLayer, WeightsReport } from '../../web/src/protocol/messages';
import { layersToCsv } from '../../web/src/ui/layer_table';
import { viewerTemplate } from '../src/editor/viewer_template';
import { pageHtml } from '../src/editor/webview_html';
import { escapeHtml, htmlReport } from '../../web/src/export/html_report';
import { csvReport, jsonReport } from '../src/export/reports';
import { DEFAULT_SETTINGS } from '../src/host/settings';
import { repoRoot } from './repo_root';

const root = repoRoot();
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');
const TEMPLATES = {
  compare: read('web/src/index.html'),
  viewer: viewerTemplate(read('web/src/index.html'), read('vscode-extension/src/webview/viewer_parts.html')),
};
const assets = (template: string) => ({
  template,
  script: 'https://file+.vscode-resource.test/ext/dist/webview/page.js',
  styles: ['https://file+.vscode-resource.test/ext/dist/webview/styles.css', 'https://file+.vscode-resource.test/ext/dist/webview/vscode.css'],
  cspSource: 'https://*.vscode-cdn.test',
});
const NASTY = { name: '"><script>alert(1)</script>.onnx', ref: 'file:///w/"><img src=x onerror=alert(1)>.onnx' };

for (const [page, template] of Object.entries(TEMPLATES) as Array<[keyof typeof TEMPLATES, string]>) {
  test(`the ${page} page: a nonce CSP without eval, wasm or remote sources; the bundle with the nonce; start-up data escaped`, () => {
    const init = page === 'compare'
      ? { page, files: { first: NASTY, second: { name: 'q.onnx', ref: 'file:///w/q.onnx' } }, options: {} } as const
      : { page, file: NASTY, view: 'logical' } as const;
    const html = pageHtml(assets(template), init, 'NONCE123');
    const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]*)">/.exec(html)![1];
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /script-src 'nonce-NONCE123'(;|$)/);
    assert.doesNotMatch(csp, /unsafe-eval|unsafe-inline|wasm-unsafe-eval|http:|\*(?!\.vscode)/);
    assert.match(csp, /connect-src 'none'/);
    assert.match(csp, /worker-src 'none'/);
    const scripts = [...html.matchAll(/<script\b[^>]*>/g)].map((m) => m[0]);
    assert.deepEqual(scripts, ['<script type="module" nonce="NONCE123" src="https://file+.vscode-resource.test/ext/dist/webview/page.js">']);
    assert.equal([...html.matchAll(/<link rel="stylesheet" href="https:\/\/file\+\.vscode-resource\.test[^"]+">/g)].length, 2);
    assert.doesNotMatch(html, /<link rel="stylesheet" href="styles\.css">/);
    const body = page === 'compare' ? '<body data-vq-init="' : '<body class="viewer" data-vq-init="';
    assert.ok(html.includes(body), 'the body keeps its attributes and gets the start-up data');
    const data = /<body[^>]* data-vq-init="([^"]*)">/.exec(html)![1];
    assert.doesNotMatch(data, /[<>"]/);
    const decoded = JSON.parse(data.replace(/&quot;/g, '"').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&'));
    assert.deepEqual(decoded, init);
  });
}

test('a template without the parts to replace is refused', () => {
  assert.throws(() => pageHtml({ ...assets(TEMPLATES.compare), template: '<html><body></body></html>' }, { page: 'viewer', file: NASTY, view: 'logical' }));
});

test('the viewer\'s page is the web page\'s with the viewer\'s toolbar and workspace', () => {
  const html = TEMPLATES.viewer;
  // Its own parts, once each; none of the comparison's.
  for (const id of ['graph-model', 'node-detail', 'model-summary', 'model-name', 'compare-with', 'raw-view', 'zoom-fit'])
    assert.equal(html.split(`id="${id}"`).length, 2, id);
  for (const id of ['graph-float', 'graph-quant', 'layer-table', 'overlay', 'file-float', 'export-json']) assert.ok(!html.includes(`id="${id}"`), id);
  // The shared parts, from index.html.
  for (const id of ['error', 'selection-status', 'summary', 'progress', 'progress-stage', 'cancel', 'tooltip']) assert.equal(html.split(`id="${id}"`).length, 2, id);
  assert.match(html, /<script type="module" src="viewer\.js"><\/script>/);
  assert.equal(html.match(/<header\b/g)!.length, 1);
  assert.throws(() => viewerTemplate('<html><body><main></main></body></html>', read('vscode-extension/src/webview/viewer_parts.html')), /the web page has no/);
  assert.throws(() => viewerTemplate(TEMPLATES.compare, '<p>no parts</p>'), /viewer's parts/);
});

function layer(rank: number, name: string, sqnr: number | null): WeightLayer {
  return {
    entry: rank, rank, float_node: name, quant_node: `${name}_quant`, float_op_type: 'Conv', quant_op_type: 'QLinearConv', shape: [8, 9], parameters: 72,
    batchnorm_folded: false, pre_quant_scale: false, output_rescale: false,
    error: { mse: 1e-4, rmse: 1e-2, max_abs: 0.05, max_abs_at: [0, 0], sqnr_db: sqnr, cosine: 0.999, relative_l2: 0.01, changed_fraction: 1, mean_abs_lsb: 0.3, max_abs_lsb: 0.5 },
    channels: { count: 8, changed: 8, range_spread: 2 },
  } as unknown as WeightLayer;
}

const full = {
  report: {
    report: 'visualquant.compare', version: 2, case: 'float_vs_quantized', argument_order_swapped: false,
    float: { file: '<b>f</b>.onnx', role: 'float', label: 'float', argument: 1, size_bytes: 100, producer_name: 'pytorch', producer_version: '1.13', nodes: 3, logical_ops: 3, quantization_forms: [] },
    quant: { file: 'q.onnx', role: 'quantized', label: 'quantized', argument: 2, size_bytes: 50, producer_name: '', producer_version: '', nodes: 9, logical_ops: 3, quantization_forms: ['qdq'] },
    summary: { entries: 2, same_network: true, same_network_evidence: { weighted_matches: 1, agree: 1, differ: 0, undecided: 0, reason: 'weights agree in 1 of 1 weighted matches' },
      by_kind: { identical: 1, renamed: 0, structural: 0, fused: 1, lowered: 0, inserted: 0, removed: 0 }, mean_confidence: 0.9, fusions: 1,
      weighted_ops_left_float: [], least_confident_entries: [1] },
    mapping: [
      { float: ['a'], quant: ['a'], float_ops: ['a'], quant_ops: ['a'], kind: 'identical', confidence: 1, evidence: ['weights'] },
      { float: ['c', 'bn'], quant: ['<img src=x onerror=alert(1)>'], float_ops: ['c', 'bn'], quant_ops: ['<img src=x onerror=alert(1)>'], kind: 'fused', confidence: 0.8, evidence: ['bn fold'] },
    ],
    fusions: [{ pattern: 'Conv+BatchNormalization', entry: 1, float: ['c', 'bn'], quant: ['<img src=x onerror=alert(1)>'], verification: 'verified', detail: 'ok' }],
    logical_graphs: { float: [], quant: [] },
  } as unknown as CompareReport,
  weights: { measures: 'quantization_error', reference: 'float', compared: 'quantized', ranking: 'x', histogram_bins: 64, layers: [layer(1, '<script>alert(1)</script>', 12.5), layer(2, 'conv2', 41)] } as WeightsReport,
  lint: [{ severity: 'warning', check: 'weight_asymmetric', node: '=cmd|calc', message: 'signed weight with zero points' }] as LintFinding[],
};

test('JSON: the report with its weights and lint, as `visualquant compare --json` writes it', () => {
  const text = jsonReport(full);
  assert.ok(text.endsWith('}\n'));
  assert.deepEqual(JSON.parse(text), { ...full.report, weights: full.weights, lint: full.lint });
});

test('CSV: the layer table, worst first, as the page writes it', () => {
  assert.equal(csvReport(full), layersToCsv(full.weights.layers, full.weights));
  assert.match(csvReport(full).split('\n')[0], /^Rank,Float node,Quantized node,Op/);
});

test('HTML: every model string escaped, damaged layers listed, no script allowed', () => {
  const html = htmlReport(full, DEFAULT_SETTINGS, '0.1.0');
  assert.doesNotMatch(html, /<script|<img/i);
  assert.match(html, /&lt;script&gt;alert\(1\)&lt;\/script&gt;/);
  assert.match(html, /&lt;img src=x onerror=alert\(1\)&gt;/);
  assert.match(html, /content="default-src 'none'; style-src 'unsafe-inline'"/);
  const damaged = html.slice(html.indexOf('<h2>Damaged layers'), html.indexOf('<h2>Every quantized weight'));
  assert.match(damaged, /12\.5/);
  assert.doesNotMatch(damaged, /conv2/);
  assert.match(html, /1 damaged<\/span> \(SQNR below 25 dB\)/);
  assert.equal(escapeHtml(`<a href="x">'&'</a>`), '&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
});
