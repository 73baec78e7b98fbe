// The Activations tab: the user's inputs (or labelled synthetic ones), Run and Cancel with progress,
// then what the run found: the model outputs' error, where it first jumps, the error along the
// depth, and every compared tensor in a table. It asks nothing of the core itself: the page runs
// the request (main.ts), so that it is one request among the others, cancelled as they are.
import {
  type ActivationParams, type ActivationPoint, type ActivationsReport, type FilePayload, type InspectValue, type WeightLayer,
} from '../protocol/messages';
import { download, el } from '../ui/dom';
import { RunStatus } from '../ui/run_status';
import { bindInputFiles, declaredText, symbolicDims } from './input_binding';
import { PointTable } from './point_table';

export interface ActivationActions {
  /** Runs the comparison; resolves with the report's JSON text, rejects with the core's error. */
  run(params: ActivationParams, onProgress: (detail: string, fraction?: number) => void): Promise<string>;
  cancel(): void;
  /** Selects a compared tensor's ops in both graphs. */
  select(p: ActivationPoint): void;
  /** The report arrived: the overlay and the detail panel show it. */
  shown(report: ActivationsReport): void;
  /** A what-if's report with its points' entries given as the open pair's (model/activations.ts onOpenPair). */
  onOpenPair?(report: ActivationsReport): ActivationsReport;
  /** The entries picked in the Sensitivity tab to keep in float (a what-if to run instead). */
  keptInFloat?(): number[];
}

export class ActivationPanel {
  private inputs: InspectValue[] | null = null;
  private files: File[] = [];
  private running = false;
  private lastParams: ActivationParams | null = null;
  private clearButton!: HTMLButtonElement;
  private readonly table: PointTable;
  private readonly runStatus: RunStatus;
  private readonly parts: {
    declared: HTMLElement; picker: HTMLInputElement; picked: HTMLElement; dims: HTMLElement; samples: HTMLInputElement; seed: HTMLInputElement;
    synthetic: HTMLElement; local: HTMLInputElement; whatIf: HTMLInputElement; whatIfLabel: HTMLElement; run: HTMLButtonElement; cancel: HTMLButtonElement; bar: HTMLProgressElement; status: HTMLElement;
    summary: HTMLElement; chart: HTMLElement; caption: HTMLElement; tableBox: HTMLElement; unobserved: HTMLElement; save: HTMLElement;
  };

  /** Why the open pair cannot be run, or '' when it can. */
  private unavailable = '';

  constructor(host: HTMLElement, private readonly actions: ActivationActions) {
    const picker = el('input', { attrs: { id: 'activation-inputs', type: 'file', multiple: '', accept: '.npy,.pb' } });
    const p = this.parts = {
      declared: el('div', { class: 'muted', attrs: { 'data-field': 'declared-inputs' } }),
      picker,
      picked: el('div', { class: 'picked', attrs: { 'data-field': 'picked' } }),
      dims: el('span', { class: 'dims' }),
      samples: el('input', { attrs: { id: 'activation-samples', type: 'number', min: '1', max: '64', value: '1', 'aria-label': 'Synthetic samples' } }),
      seed: el('input', { attrs: { id: 'activation-seed', type: 'number', min: '0', value: '1', 'aria-label': 'Seed of the synthetic inputs' } }),
      synthetic: el('span', { class: 'synthetic-options' }),
      local: el('input', { attrs: { id: 'activation-local', type: 'checkbox', checked: '' } }),
      whatIf: el('input', { attrs: { id: 'activation-what-if', type: 'checkbox' } }),
      whatIfLabel: el('label', { class: 'check', title: "Run the quantized model with the entries picked in the Sensitivity tab kept in float instead (a what-if: the command line's --keep)" }),
      run: el('button', { text: 'Run both models', attrs: { id: 'activation-run', type: 'button' } }),
      cancel: el('button', { text: 'Cancel', attrs: { id: 'activation-cancel', type: 'button' } }),
      bar: el('progress', { attrs: { id: 'activation-progress', max: '1' } }),
      status: el('span', { class: 'muted', attrs: { id: 'activation-status', role: 'status', 'aria-live': 'polite' } }),
      summary: el('div', { class: 'activation-summary', attrs: { id: 'activation-summary' } }),
      chart: el('div', { class: 'charts activation-chart', attrs: { 'data-field': 'activation-chart' } }),
      caption: el('div', { class: 'muted table-caption', attrs: { id: 'activation-count' } }),
      tableBox: el('div', { class: 'table-scroll' }),
      unobserved: el('div', {}),
      save: el('span', { class: 'activation-save' }),
    };
    p.synthetic.append(el('label', { text: 'Samples ' }, p.samples), el('label', { text: ' Seed ' }, p.seed));
    const table = el('table', { class: 'layer-table point-table', attrs: { id: 'point-table' } });
    p.tableBox.append(table);
    this.table = new PointTable(table, p.caption, (point) => this.actions.select(point));
    this.runStatus = new RunStatus(p.run, p.cancel, p.bar, p.status);
    this.refreshWhatIf();
    const pickLabel = el('label', { class: 'file-button', title: 'Input tensors: .npy or ONNX TensorProto .pb, one file per input and sample' }, 'Inputs…', picker);
    const clear = el('button', { text: 'Clear', attrs: { type: 'button', id: 'activation-clear' } });
    host.replaceChildren(
      el('div', { class: 'activation-controls' },
        pickLabel, clear, p.synthetic, p.dims,
        el('label', { class: 'check', title: "Also run each quantized op on the float model's values at its inputs: tells the error made there from the error inherited" }, p.local, ' Local error'),
        p.whatIfLabel,
        p.run, p.cancel, p.bar, p.status),
      p.declared, p.picked, p.summary, p.chart, p.save, p.caption, p.tableBox, p.unobserved);
    picker.addEventListener('change', () => {
      this.files = [...(picker.files ?? [])];
      picker.value = '';
      this.refreshInputs();
    });
    this.clearButton = clear;
    clear.addEventListener('click', () => {
      this.files = [];
      this.refreshInputs();
    });
    p.run.addEventListener('click', () => void this.run());
    p.cancel.addEventListener('click', () => this.actions.cancel());
    this.setInputs(null);
  }

  /** A new pair (its float model's inputs), or none: what was shown goes. `unavailable` says why this pair cannot be run (not a float model and its quantized version). */
  setInputs(inputs: InspectValue[] | null, unavailable = ''): void {
    this.unavailable = unavailable;
    this.inputs = inputs;
    this.files = [];
    const p = this.parts;
    p.summary.replaceChildren();
    p.chart.replaceChildren();
    p.save.replaceChildren();
    p.caption.textContent = '';
    p.unobserved.replaceChildren();
    this.table.setPoints([]);
    p.tableBox.hidden = true;
    p.dims.replaceChildren(...(inputs ? symbolicDims(inputs) : []).map((d) => el('label', { title: `The value of ${d.label} (the command line's --dim ${d.key}=N)` },
      `${d.label} `, el('input', { attrs: { type: 'number', min: '1', value: '1', 'data-dim': d.key, 'aria-label': `Value of ${d.label}` } }))));
    p.declared.textContent = inputs ? `Model inputs: ${inputs.map(declaredText).join('; ')}` : 'Open two models first.';
    p.status.textContent = inputs ? 'Not run yet.' : '';
    this.refreshInputs();
  }

  setWeights(layers: WeightLayer[]): void {
    this.table.setWeights(layers);
  }

  select(entry: number | null): void {
    this.table.select(entry);
  }

  private refreshInputs() {
    const p = this.parts;
    const bound = this.inputs ? bindInputFiles(this.inputs, this.files.map((f) => f.name)) : { bindings: [], problems: [] };
    p.synthetic.hidden = this.files.length > 0;
    p.picked.replaceChildren(...(this.files.length === 0
      ? [el('span', { text: 'No input files: seeded synthetic inputs are made from the declared types and shapes (figures from them are directional only).' })]
      : [el('span', { text: `${this.files.length} input file${this.files.length === 1 ? '' : 's'}: ` +
          bound.bindings.map((b) => `${b.file} → ${b.name || this.inputs?.[0]?.name || 'the input'}`).join(', ') }),
        ...bound.problems.map((m) => el('div', { class: 'problem', text: m }))]));
    p.run.disabled = !this.inputs || this.running || bound.problems.length > 0 || !!this.unavailable;
    if (this.unavailable) p.status.textContent = this.unavailable;
    this.clearButton.disabled = this.files.length === 0 || this.running;
    this.onInputsChanged?.();
  }

  private params(files: FilePayload[]): ActivationParams {
    const keep = this.parts.whatIf.checked ? this.actions.keptInFloat?.() ?? [] : [];
    return { ...this.inputParams(files), local: this.parts.local.checked, ...(keep.length ? { keepInFloat: keep } : {}) };
  }

  /** The Sensitivity tab's picks changed: the what-if box says how many (and is off without any). */
  refreshWhatIf(): void {
    const p = this.parts;
    const n = this.actions.keptInFloat?.().length ?? 0;
    p.whatIf.disabled = n === 0;
    if (n === 0) p.whatIf.checked = false;
    p.whatIfLabel.replaceChildren(p.whatIf, n ? ` With the ${n} entr${n === 1 ? 'y' : 'ies'} picked in the Sensitivity tab kept in float` : ' With entries kept in float (pick them in the Sensitivity tab)');
  }

  /** The inputs chosen here (files, or synthetic samples and seed, and dims), as a run takes them. */
  private inputParams(files: FilePayload[]): Pick<ActivationParams, 'files' | 'bindings' | 'dims' | 'samples' | 'seed'> {
    const p = this.parts;
    const dims: Record<string, number> = {};
    for (const input of p.dims.querySelectorAll<HTMLInputElement>('input[data-dim]')) dims[input.dataset.dim!] = Math.max(1, Math.floor(Number(input.value) || 1));
    const bound = bindInputFiles(this.inputs ?? [], this.files.map((f) => f.name));
    return {
      files, bindings: bound.bindings, dims,
      ...(files.length ? {} : { samples: Math.min(64, Math.max(1, Math.floor(Number(p.samples.value) || 1))), seed: Math.max(0, Math.floor(Number(p.seed.value) || 0)) }),
    };
  }

  /**
   * The inputs chosen in this tab, for the other runs of the pair (the sensitivity sweep): what they
   * are in words, what is wrong with them, and a way to read them as a run takes them.
   */
  inputChoice(): { ready: boolean; text: string; problems: string[]; read(): Promise<Pick<ActivationParams, 'files' | 'bindings' | 'dims' | 'samples' | 'seed'>> } {
    const bound = this.inputs ? bindInputFiles(this.inputs, this.files.map((f) => f.name)) : { bindings: [], problems: [] };
    const files = [...this.files];
    const synthetic = `seeded synthetic inputs (${this.parts.samples.value || 1} sample(s), seed ${this.parts.seed.value || 0}): figures from them are directional only`;
    return {
      ready: this.inputs !== null && bound.problems.length === 0,
      text: files.length ? `${files.length} input file${files.length === 1 ? '' : 's'}: ${files.map((f) => f.name).join(', ')}` : synthetic,
      problems: bound.problems,
      read: async () => this.inputParams(await Promise.all(files.map(async (f) => ({ name: f.name, bytes: await f.arrayBuffer() })))),
    };
  }

  /** Called when the inputs change: the sensitivity tab shows which ones it will run on. */
  onInputsChanged: (() => void) | null = null;

  private async run() {
    if (!this.inputs || this.running) return;
    this.running = true;
    this.runStatus.start();
    const started = performance.now();
    try {
      const files = await Promise.all(this.files.map(async (f) => ({ name: f.name, bytes: await f.arrayBuffer() })));
      this.lastParams = this.params(files);
      const text = await this.actions.run(this.lastParams, this.runStatus.progress);
      const params = this.lastParams;
      const parsed = JSON.parse(text) as ActivationsReport;
      // A what-if names its own entries: the table, the chart and the graphs read the open pair's.
      const keep = params?.keepInFloat ?? [];
      this.table.setKeptInFloat(new Set(keep));
      this.show(keep.length && this.actions.onOpenPair ? this.actions.onOpenPair(parsed) : parsed, text, (performance.now() - started) / 1000, keep.length > 0);
    } catch (e) {
      this.runStatus.failed(e, 'Cancelled: nothing was measured.');
    } finally {
      this.running = false;
      this.runStatus.end();
      this.refreshInputs();
    }
  }

  private show(report: ActivationsReport, text: string, seconds: number, whatIf: boolean) {
    const p = this.parts;
    this.runStatus.done(`Done in ${seconds.toFixed(1)} s: ${report.runtime.runs} model runs with ${report.runtime.engine}, graph optimisation ${report.runtime.graph_optimization}` +
      (report.runtime.tap_chunks > 1 ? `, cut into ${report.runtime.tap_chunks} segments` : '') + '.');
    const s = report.summary;
    const pointButton = (point: number, text: string) => {
      const target = report.points.find((x) => x.point === point);
      const b = el('button', { class: 'link', text, attrs: { type: 'button' } });
      if (target) b.addEventListener('click', () => this.actions.select(target));
      return b;
    };
    const outputs = report.points.filter((x) => x.model_output !== undefined).sort((a, b) => a.model_output! - b.model_output!);
    const db = (v: number | null) => (v === null ? '∞ (equal)' : `${v.toFixed(2)} dB`);
    p.summary.replaceChildren(
      ...(whatIf ? [el('p', { class: 'synthetic-note', attrs: { 'data-field': 'what-if' }, text: `A what-if: ${report.quantized_model}. Every figure below is of that model against the float model.` })] : []),
      report.inputs.synthetic
        ? el('p', { class: 'synthetic-note', attrs: { 'data-field': 'synthetic' }, text: `Synthetic inputs (${report.inputs.samples.length} sample${report.inputs.samples.length === 1 ? '' : 's'}, seeded, from the declared types and shapes): every figure is directional only. Give real inputs for real figures.` })
        : el('p', { attrs: { 'data-field': 'inputs' }, text: `Inputs: ${report.inputs.samples.join('; ')}` }),
      el('ul', { class: 'activation-facts' },
        ...outputs.map((o) => el('li', {}, pointButton(o.point, `Model output ${o.model_output}`), ` (${o.quantized_tensor}): SQNR ${db(o.accumulated.sqnr_db)}, cosine ${o.accumulated.cosine === null ? '–' : o.accumulated.cosine.toFixed(6)}`)),
        el('li', {}, 'First jump: ', s.first_jump ? pointButton(s.first_jump.point, s.first_jump.quant_node ?? s.first_jump.quantized_tensor) : 'none',
          s.first_jump ? ` (${s.first_jump.sqnr_drop_db?.toFixed(1)} dB below its inputs)` : ` (${s.jump_rule})`),
        el('li', {}, 'Largest drop: ', s.largest_jump ? pointButton(s.largest_jump.point, s.largest_jump.quant_node ?? s.largest_jump.quantized_tensor) : 'none',
          s.largest_jump ? ` (${s.largest_jump.sqnr_drop_db?.toFixed(1)} dB)` : ''),
        el('li', { attrs: { 'data-field': 'tapping' }, text: report.tapping.changed_outputs.length
          ? `Tapping changed model outputs: ${report.tapping.changed_outputs.join('; ')}. The figures of the tapped runs may differ from the untapped model's.`
          : 'Tapping left every model output bit-identical to the untapped models.' }),
        el('li', { text: `${s.compared} tensors compared, ${s.failed} failed, ${s.not_observable} entries not observable.` })));
    const json = el('button', { text: 'Save JSON', attrs: { type: 'button', id: 'activation-json' } });
    // The core's own bytes: the same as `visualquant activations --engine web --json` on these inputs.
    json.addEventListener('click', () => download('activations.json', text, 'application/json'));
    const csv = el('button', { text: 'Save CSV', attrs: { type: 'button', id: 'activation-csv' } });
    csv.addEventListener('click', () => download('activations.csv', this.table.toCsv(), 'text/csv'));
    p.save.replaceChildren(json, csv);
    p.tableBox.hidden = false;
    this.table.setPoints(report.points);
    p.chart.replaceChildren(el('p', { class: 'muted', text: 'Drawing the chart…' }));
    void import('./activation_charts').then((m) => m.renderErrorChart(p.chart, report.points, report.points.some((x) => x.local !== null), (x) => this.actions.select(x)));
    const lost = [...report.failed.map((f) => `${f.quantized_tensor}: ${f.reason}`),
      ...report.not_observable.map((u) => `${[...u.quant_nodes, ...u.float_nodes].join(', ') || `entry ${u.entry}`} (${u.kind}): ${u.reason}`)];
    p.unobserved.replaceChildren(...(lost.length ? [el('details', {}, el('summary', { text: `${lost.length} not compared, with the reason` }),
      el('ul', { class: 'mono-list' }, ...lost.map((t) => el('li', { text: t }))))] : []));
    this.actions.shown(report);
  }
}
