// The Sensitivity tab: which layers, kept in float, give the accuracy back, and how to tell the
// quantizer. It runs on the inputs chosen in the Activations tab (files or labelled synthetic ones);
// the target output SQNR and the weights/activations split are set here. Then: the quantized
// model's output error and the check that every entry in float gives the float model back, a chart
// and a table of the entries by recovery, the greedy suggestion step by step (predicted beside
// measured), and the exports: the quantizers' exclusion lists as Python, the mixed-precision model,
// the report. Entries picked by hand are measured together and exported instead of the suggestion.
import type { SensitivityEntry, SensitivityReport } from 'visualquant-core';
import type { SensitivityParams } from '../protocol/messages';
import { download, el } from '../ui/dom';
import { RunStatus } from '../ui/run_status';
import { scoreText } from './sensitivity_model';
import { SensitivityTable } from './sensitivity_table';

export interface SensitivityActions {
  /** The inputs chosen in the Activations tab. */
  inputs(): { ready: boolean; text: string; problems: string[]; read(): Promise<Omit<SensitivityParams, 'targetSqnrDb' | 'split' | 'chosen' | 'onlyChosen'>> };
  run(params: SensitivityParams, onProgress: (detail: string, fraction?: number) => void): Promise<string>;
  cancel(): void;
  /** The exclusion list of `entries` as Python for a quantizer. */
  snippet(entries: number[], format: 'ort' | 'modelopt' | 'nncf'): Promise<string>;
  /** The mixed-precision model with `entries` kept in float (base64). */
  mixedModel(entries: number[]): Promise<{ base64: string; bytes: number }>;
  select(entry: number): void;
}

const FORMATS: { format: 'ort' | 'modelopt' | 'nncf'; label: string; file: string }[] = [
  { format: 'ort', label: 'ONNX Runtime', file: 'nodes_to_exclude_onnxruntime.py' },
  { format: 'modelopt', label: 'ModelOpt', file: 'nodes_to_exclude_modelopt.py' },
  { format: 'nncf', label: 'NNCF', file: 'ignored_scope_nncf.py' },
];

export class SensitivityPanel {
  private running = false;
  private report: SensitivityReport | null = null;
  /** Entries picked by hand, in the table or with a node's "Keep in float" box. */
  private readonly pickedSet = new Set<number>();
  private text = '';
  private readonly table: SensitivityTable;
  private readonly runStatus: RunStatus;
  private readonly parts: {
    inputs: HTMLElement; target: HTMLInputElement; split: HTMLInputElement; unit: HTMLSelectElement; depth: HTMLInputElement; run: HTMLButtonElement; cancel: HTMLButtonElement;
    bar: HTMLProgressElement; status: HTMLElement; summary: HTMLElement; chart: HTMLElement; suggestion: HTMLElement;
    exports: HTMLElement; snippet: HTMLElement; picked: HTMLElement; tableBox: HTMLElement;
  };

  /** Why the open pair cannot be swept, or '' when it can. */
  private unavailable = '';

  constructor(host: HTMLElement, private readonly actions: SensitivityActions) {
    const p = this.parts = {
      inputs: el('div', { class: 'muted', attrs: { 'data-field': 'sensitivity-inputs' } }),
      // Empty: the core's default (30 dB), which the report then calls the default.
      target: el('input', { attrs: { id: 'sensitivity-target', type: 'number', step: '0.5', placeholder: '30', 'aria-label': 'Target output SQNR in dB (empty: the default, 30)' } }),
      split: el('input', { attrs: { id: 'sensitivity-split', type: 'checkbox', checked: '' } }),
      unit: el('select', { attrs: { id: 'sensitivity-unit', 'aria-label': 'What is kept in float at a time' } },
        el('option', { text: 'each entry', attrs: { value: 'entry' } }), el('option', { text: 'each name-scope block', attrs: { value: 'block' } })),
      depth: el('input', { attrs: { id: 'sensitivity-depth', type: 'number', min: '1', max: '64', value: '2', 'aria-label': 'Levels of names a block spans' } }),
      run: el('button', { text: 'Run the sweep', attrs: { id: 'sensitivity-run', type: 'button' } }),
      cancel: el('button', { text: 'Cancel', attrs: { id: 'sensitivity-cancel', type: 'button' } }),
      bar: el('progress', { attrs: { id: 'sensitivity-progress', max: '1' } }),
      status: el('span', { class: 'muted', attrs: { id: 'sensitivity-status', role: 'status', 'aria-live': 'polite' } }),
      summary: el('div', { class: 'activation-summary', attrs: { id: 'sensitivity-summary' } }),
      chart: el('div', { class: 'charts activation-chart', attrs: { 'data-field': 'sensitivity-chart' } }),
      suggestion: el('div', { attrs: { id: 'sensitivity-suggestion' } }),
      exports: el('div', { class: 'activation-save', attrs: { id: 'sensitivity-exports' } }),
      snippet: el('pre', { class: 'snippet', attrs: { id: 'sensitivity-snippet' } }),
      picked: el('div', { class: 'muted', attrs: { id: 'sensitivity-picked' } }),
      tableBox: el('div', { class: 'table-scroll' }),
    };
    const table = el('table', { class: 'layer-table sensitivity-table', attrs: { id: 'sensitivity-table' } });
    p.tableBox.append(table);
    this.table = new SensitivityTable(table, (e: SensitivityEntry) => this.actions.select(e.entry), (entry, on) => this.setPicked(entry, on));
    this.runStatus = new RunStatus(p.run, p.cancel, p.bar, p.status);
    p.snippet.hidden = true;
    host.replaceChildren(
      el('div', { class: 'activation-controls' },
        el('label', { title: 'The suggestion adds entries until the output SQNR reaches this (the command line\'s --target-sqnr)' }, 'Target output SQNR ', p.target, ' dB'),
        el('label', { class: 'check', title: 'Also keep only the weights, and only the activations, of each entry in float, and quantize it alone in the float model: which part is the culprit (4 runs per entry)' }, p.split, ' Weights / activations split'),
        el('label', { title: 'Keep each aligned entry in float, or every entry of a name-scope block of the float model together (the command line\'s --unit, --block-depth)' },
          'Sweep ', p.unit, ' ', el('span', { class: 'depth' }, 'levels ', p.depth)),
        p.run, p.cancel, p.bar, p.status),
      p.inputs, p.summary, p.chart, p.suggestion, p.exports, p.snippet, p.picked, p.tableBox);
    p.run.addEventListener('click', () => void this.run());
    p.cancel.addEventListener('click', () => this.actions.cancel());
    const depth = p.depth.parentElement!;
    depth.hidden = true;
    p.unit.addEventListener('change', () => { depth.hidden = p.unit.value !== 'block'; });
    this.setPair(false);
  }

  /** A new pair (or none): what was shown goes. `unavailable` says why this pair cannot be swept (not a float model and its quantized version). */
  setPair(open: boolean, unavailable = ''): void {
    this.unavailable = unavailable;
    this.report = null;
    this.text = '';
    this.pickedSet.clear();
    this.onPicksChanged?.();
    const p = this.parts;
    for (const part of [p.summary, p.chart, p.suggestion, p.exports, p.picked]) part.replaceChildren();
    p.snippet.hidden = true;
    p.tableBox.hidden = true;
    this.table.setReport(null);
    p.status.textContent = open ? 'Not run yet.' : '';
    delete p.status.dataset.state;
    this.refreshInputs();
  }

  /** The Activations tab's inputs changed. */
  refreshInputs(): void {
    const p = this.parts;
    const inputs = this.actions.inputs();
    p.inputs.textContent = inputs.ready ? `Runs on the inputs chosen in the Activations tab: ${inputs.text}.`
      : inputs.problems.length ? `The inputs chosen in the Activations tab do not fit: ${inputs.problems.join('; ')}` : 'Open two models first.';
    p.run.disabled = !inputs.ready || this.running || !!this.unavailable;
    if (this.unavailable) p.inputs.textContent = this.unavailable;
  }

  select(entry: number | null): void {
    this.table.select(entry);
  }

  isPicked(entry: number): boolean {
    return this.pickedSet.has(entry);
  }

  pickedEntries(): number[] {
    return [...this.pickedSet].sort((a, b) => a - b);
  }

  /** Called when the picks change (the Activations tab's what-if box follows). */
  onPicksChanged: (() => void) | null = null;

  /** Picks an entry to keep in float (or not): the table's box and the exports follow. */
  setPicked(entry: number, on: boolean): void {
    if (on) this.pickedSet.add(entry);
    else this.pickedSet.delete(entry);
    this.table.setPicked(this.pickedSet);
    this.picked(this.pickedEntries());
    this.onPicksChanged?.();
  }

  private async run(chosen?: number[]) {
    if (this.running) return;
    const inputs = this.actions.inputs();
    if (!inputs.ready) return;
    const p = this.parts;
    this.running = true;
    this.runStatus.start();
    const started = performance.now();
    try {
      const target = Number(p.target.value);
      const params: SensitivityParams = {
        ...(await inputs.read()),
        ...(Number.isFinite(target) && p.target.value !== '' ? { targetSqnrDb: target } : {}),
        split: p.split.checked,
        ...(chosen ? { chosen, onlyChosen: true } : {}),
        ...(!chosen && p.unit.value === 'block' ? { unit: 'block' as const, blockDepth: Math.max(1, Math.min(64, Math.floor(Number(p.depth.value) || 2))) } : {}),
      };
      const text = await this.actions.run(params, this.runStatus.progress);
      const report = JSON.parse(text) as SensitivityReport;
      if (chosen) this.showChosen(report, chosen, (performance.now() - started) / 1000);
      else this.show(report, text, (performance.now() - started) / 1000);
    } catch (e) {
      this.runStatus.failed(e);
    } finally {
      this.running = false;
      this.runStatus.end();
      this.refreshInputs();
    }
  }

  private show(report: SensitivityReport, text: string, seconds: number) {
    this.report = report;
    this.text = text;
    const p = this.parts;
    this.runStatus.done(report.cancelled
      ? `Cancelled after ${report.runtime.runs} runs: what was measured is below.`
      : `Done in ${seconds.toFixed(1)} s: ${report.runtime.runs} model runs with ${report.runtime.engine}, graph optimisation ${report.runtime.graph_optimization}.`);
    const all = report.all_in_float;
    const variantWords = (v: SensitivityReport['baseline']) => (v.status === 'measured' ? scoreText(v.error?.sqnr_db) : `${v.status}${v.reason ? `: ${v.reason}` : ''}`);
    p.summary.replaceChildren(
      report.inputs.synthetic
        ? el('p', { class: 'synthetic-note', attrs: { 'data-field': 'synthetic' }, text: `Synthetic inputs (${report.inputs.samples.length} sample${report.inputs.samples.length === 1 ? '' : 's'}, seeded, from the declared types and shapes): every figure is directional only. Give real inputs for real figures.` })
        : el('p', { attrs: { 'data-field': 'inputs' }, text: `Inputs: ${report.inputs.samples.join('; ')}` }),
      el('ul', { class: 'activation-facts' },
        el('li', { attrs: { 'data-field': 'baseline' }, text: `The quantized model as it is: output SQNR ${variantWords(report.baseline)} (${report.score}).` }),
        el('li', { attrs: { 'data-field': 'all-in-float' }, text: `Every entry that can be kept in float (${all.entries_kept}) so kept: ${variantWords(all)}` +
          (all.entries_not_kept ? `; ${all.entries_not_kept} cannot be kept (see the table)` : '') +
          (all.float_ops_missing.length ? `; the quantized model lacks ${all.float_ops_missing.length} float ops that no entry brings back (${all.float_ops_missing.slice(0, 3).join(', ')}${all.float_ops_missing.length > 3 ? ', …' : ''})` : '') + '.' }),
        ...(report.note ? [el('li', { text: report.note })] : [])));
    this.showSuggestion(report);
    p.tableBox.hidden = false;
    this.table.setReport(report);
    this.table.setPicked(this.pickedSet);
    p.chart.replaceChildren(el('p', { class: 'muted', text: 'Drawing the chart…' }));
    const entries = report.ranking.map((r) => report.entries.find((e) => e.entry === r)!).filter(Boolean);
    void import('./sensitivity_chart').then((m) => m.renderSensitivityChart(p.chart, entries,
      report.entries.some((e) => e.keep_in_float.weights.status !== 'not run'), (e) => this.actions.select(e.entry)));
    this.showExports(report.exports.set, report.exports.set_from === 'chosen' ? 'the entries you picked' : 'the suggested set');
  }

  private showSuggestion(report: SensitivityReport) {
    const s = report.suggestion;
    const steps = s.steps.map((st) => el('li', { class: st.kept ? '' : 'muted' },
      `${st.kept ? '+' : '−'} entry ${st.entry}: predicted ${scoreText(st.predicted_sqnr_db)}, measured ` +
      (st.measured_sqnr_db !== undefined ? scoreText(st.measured_sqnr_db) : st.measured?.status ?? '–') +
      (st.kept ? '' : ': no better, left out') + (st.near_ties.length ? ` (near-tie with entries ${st.near_ties.join(', ')})` : '')));
    const verdict = s.reached
      ? s.set.length ? `Reached with ${s.set.length} entr${s.set.length === 1 ? 'y' : 'ies'} kept in float: ${s.set.join(', ')}; measured ${scoreText(s.final?.sqnr_db)}.`
        : 'The quantized model already reaches the target: nothing to keep in float.'
      : s.why_not_reached ? `Not reached: ${s.why_not_reached}. Best measured: ${scoreText(s.best_reached_sqnr_db)}.`
        : report.cancelled ? 'The sweep was cancelled before the suggestion.' : '';
    this.parts.suggestion.replaceChildren(
      el('h4', { text: `Suggestion: the smallest set that reaches ${s.target.sqnr_db} dB${s.target.set_by === 'default' ? ' (the default target)' : ''}` }),
      el('p', { class: 'muted', text: s.method }),
      ...(steps.length ? [el('ol', { class: 'mono-list' }, ...steps)] : []),
      el('p', { attrs: { 'data-field': 'suggestion-verdict' }, text: verdict }),
      ...(report.chosen ? [el('p', { attrs: { 'data-field': 'chosen' }, text: `The entries you picked (${report.chosen.set.join(', ') || 'none'}): ` +
        (report.chosen.status === 'measured' ? scoreText(report.chosen.error?.sqnr_db) : `${report.chosen.status}: ${report.chosen.reason ?? ''}`) })] : []));
  }

  private showExports(entries: number[], what: string) {
    const p = this.parts;
    const buttons = FORMATS.map(({ format, label, file }) => {
      const b = el('button', { text: `${label} exclusions`, attrs: { type: 'button', 'data-format': format } });
      b.addEventListener('click', () => void this.actions.snippet(entries, format).then((text) => {
        p.snippet.hidden = false;
        p.snippet.textContent = text;
        p.snippet.dataset.format = format;
        const save = el('button', { text: `Save ${file}`, attrs: { type: 'button', id: 'sensitivity-save-snippet' } });
        save.addEventListener('click', () => download(file, text, 'text/x-python'));
        p.exports.querySelector('#sensitivity-save-snippet')?.remove();
        p.exports.append(save);
      }).catch((e) => this.fail(e)));
      b.disabled = entries.length === 0;
      return b;
    });
    const model = el('button', { text: 'Save mixed-precision model', attrs: { type: 'button', id: 'sensitivity-save-model' } });
    model.addEventListener('click', () => void this.actions.mixedModel(entries).then(({ base64 }) => {
      const bytes = Uint8Array.from(atob(base64), (ch) => ch.charCodeAt(0));
      download(`${(this.report?.quantized_model ?? 'model').replace(/\.onnx$/i, '')}-mixed.onnx`, new Blob([bytes], { type: 'application/octet-stream' }), 'application/onnx');
    }).catch((e) => this.fail(e)));
    model.disabled = entries.length === 0;
    const json = el('button', { text: 'Save JSON', attrs: { type: 'button', id: 'sensitivity-json' } });
    // The core's own bytes: the same as `visualquant sensitivity --engine web --json` on these inputs.
    json.addEventListener('click', () => download('sensitivity.json', this.text, 'application/json'));
    p.exports.replaceChildren(el('span', { class: 'muted', text: `Export ${what} (${entries.length} entr${entries.length === 1 ? 'y' : 'ies'}): ` }), ...buttons, model, json);
  }

  private picked(entries: number[]) {
    const p = this.parts;
    if (!entries.length) {
      p.picked.replaceChildren();
      if (this.report) this.showExports(this.report.exports.set, this.report.exports.set_from === 'chosen' ? 'the entries you picked' : 'the suggested set');
      else p.exports.replaceChildren();
      return;
    }
    const measure = el('button', { text: `Measure these ${entries.length} together`, attrs: { type: 'button', id: 'sensitivity-measure-picked' } });
    measure.addEventListener('click', () => void this.run(entries));
    measure.disabled = this.running || !this.actions.inputs().ready;
    p.picked.replaceChildren(el('span', { text: `Picked by hand: ${entries.join(', ')}. ` }), measure);
    this.showExports(entries, 'the entries you picked (not measured together yet)');
  }

  /** The hand-picked set measured alone: said beside the pick, the sweep's results kept. */
  private showChosen(report: SensitivityReport, entries: number[], seconds: number) {
    const p = this.parts;
    const c = report.chosen;
    this.runStatus.done(`Measured the ${entries.length} entries you picked in ${seconds.toFixed(1)} s (${report.runtime.runs} model runs).`);
    const words = c?.status === 'measured' ? `output SQNR ${scoreText(c.error?.sqnr_db)} against ${scoreText(report.baseline.error?.sqnr_db)} for the quantized model`
      : `${c?.status ?? 'not run'}: ${c?.reason ?? ''}`;
    p.picked.querySelector('[data-field="picked-result"]')?.remove();
    p.picked.append(el('span', { attrs: { 'data-field': 'picked-result' }, text: ` Together: ${words}${report.inputs.synthetic ? ' (synthetic inputs: directional only)' : ''}.` }));
    this.showExports(entries, 'the entries you picked');
  }

  private fail(e: unknown) {
    this.runStatus.failed(e);
  }
}
