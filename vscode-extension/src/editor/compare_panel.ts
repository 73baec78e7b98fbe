// The comparison tab: a webview panel showing the web UI for two models (or three: a float model
// and two quantized versions of it, the three-way comparison), its core session in the
// extension host, the Swap action, the exports, and the status bar's count of damaged layers. The
// page keeps its view state with setState; a window reload brings the tab back (the serializer).
import * as vscode from 'vscode';
import type { ActivationsReport, CompareReport, LintFinding, Method, Result, ThreeWayReport, WeightsReport } from '../../../web/src/protocol/messages';
import type { ExtensionEnv } from '../env';
import { htmlReport, type FullReport } from '../../../web/src/export/html_report';
import { csvReport, jsonReport, threeWayCsv, threeWayJson } from '../export/reports';
import { baseName, referenceTo } from '../host/files';
import { CoreSession } from '../host/session';
import { damagedLayers, uiOptionsOf } from '../host/settings';
import { guessOrder } from '../pairing/pairing';
import { saveExport } from '../commands/save';
import { pageHtml } from './webview_html';

export const COMPARE_VIEW_TYPE = 'visualquant.compare';

export class ComparePanel {
  private static readonly panels = new Set<ComparePanel>();
  private static lastActive: ComparePanel | undefined;
  private readonly session: CoreSession;
  private report: CompareReport | null = null;
  private version = '';
  private weights: WeightsReport | null = null;
  private activations: ActivationsReport | null = null;
  /** A three-way comparison's second version's report, and its three-way report once the page asked for it. */
  private versionB: CompareReport | null = null;
  private threeWay: ThreeWayReport | null = null;
  /** After a Swap: the float file the core had chosen, to say so if it chooses it again. */
  private swappedFrom: string | null = null;

  /**
   * Opens a new tab comparing two models (the order given to the core: float first by their names),
   * or three (the core finds the float one; the versions are A and B in the order given).
   */
  static open(env: ExtensionEnv, files: vscode.Uri[]): ComparePanel {
    const panel = vscode.window.createWebviewPanel(COMPARE_VIEW_TYPE, titleOf(files), vscode.ViewColumn.Active, env.webviewOptions());
    return new ComparePanel(env, panel, files);
  }

  /** The tab shown last (the commands' target). */
  static current(): ComparePanel | undefined {
    return ComparePanel.lastActive;
  }

  static all(): ComparePanel[] {
    return [...ComparePanel.panels];
  }

  constructor(private readonly env: ExtensionEnv, private readonly panel: vscode.WebviewPanel, private files: vscode.Uri[]) {
    panel.webview.options = env.webviewOptions();
    this.session = new CoreSession(env.workerScript, panel.webview, files, {
      save: (m) => void saveExport(m.name, m.mime, m.base64 !== undefined ? Buffer.from(m.base64, 'base64') : m.text ?? '', this.files[0]),
      action: (a) => {
        if (a === 'swap') this.swap();
      },
      answered: (method, result) => this.answered(method, result),
      // A tab whose load was cancelled from the notification would hold nothing but that news: it is
      // closed, and the notification says what happened and how to open the pair again.
      cancelled: (title) => {
        void vscode.window.showInformationMessage(`VisualQuant: ${title.charAt(0).toLowerCase()}${title.slice(1)} was cancelled; nothing is open. Run Compare Quantization again to open them.`);
        this.panel.dispose();
      },
    });
    ComparePanel.panels.add(this);
    ComparePanel.lastActive = this;
    panel.onDidChangeViewState(() => this.focusChanged());
    panel.onDidDispose(() => this.dispose());
    this.render();
    this.focusChanged();
  }

  /** (Re)loads the page: its settings and files. Its view state survives (setState in the page). */
  render(): void {
    this.panel.title = titleOf(this.files);
    this.panel.webview.html = pageHtml(this.env.assets('compare', this.panel.webview), {
      page: 'compare',
      files: { first: referenceTo(this.files[0]), second: referenceTo(this.files[1]), ...(this.files[2] ? { third: referenceTo(this.files[2]) } : {}) },
      options: uiOptionsOf(this.env.settings()),
    });
  }

  /** Gives the core the files in the other order. It decides by content; the order only settles a tie. */
  swap(): void {
    if (this.files.length === 3) {
      void vscode.window.showInformationMessage('VisualQuant: a three-way comparison has no sides to swap: the core finds the float model by its content, and A and B are the versions in the order they were selected.');
      return;
    }
    this.swappedFrom = this.report?.float.file ?? null;
    this.files = [this.files[1], this.files[0]];
    this.report = null;
    this.weights = null;
    this.render();
  }

  private answered(method: Method, result: Result<Method>) {
    if (method === 'open') {
      const opened = result as Result<'open'>;
      this.report = opened.report;
      this.version = opened.version;
      this.activations = null;
      this.versionB = opened.versionB ?? null;
      this.threeWay = null;
      this.panel.title = [opened.report.float.file, opened.report.quant.file, ...(this.versionB ? [this.versionB.quant.file] : [])].join(' ↔ ');
      if (this.swappedFrom !== null && opened.report.float.file === this.swappedFrom) {
        const r = opened.report;
        void vscode.window.showInformationMessage(r.case === 'float_vs_quantized'
          ? `${r.quant.file} stays the quantized model: the core tells float from quantized by ` +
            'their content (quantized weights and ops), whatever the order. The order decides only between models quantized alike.'
          : `${r.float.file} stays the reference side: of two ${r.case === 'float_vs_float' ? 'float' : 'quantized'} models the core picks it ` +
            'from their content (the less fused one), whatever the order; A and B name the files in the order given.');
      }
      this.swappedFrom = null;
    } else if (method === 'threeWay') {
      this.threeWay = result as Result<'threeWay'>;
    } else if (method === 'weights') {
      this.weights = result as Result<'weights'>;
    } else if (method === 'activations') {
      // The last activation comparison of this pair goes into the JSON export.
      this.activations = JSON.parse((result as Result<'activations'>).text) as ActivationsReport;
    }
    this.showStatus();
  }

  /** Everything the exports need: the open report, the weight analysis and the lint (kept by the host when the page asked). */
  async fullReport(): Promise<FullReport> {
    if (!this.report) throw new Error('the comparison is still opening');
    const settings = this.env.settings();
    // With every layer's detail (histograms, series): the page's table keeps only the summary.
    const weights = await this.session.dispatcher.call('weights', { bins: settings.histogramBins, detail: true });
    const lint: LintFinding[] = await this.session.dispatcher.call('lint', {});
    return { report: this.report, weights, lint, activations: this.activations };
  }

  async export(kind: 'json' | 'csv' | 'html'): Promise<void> {
    if (this.versionB && kind !== 'html') return this.exportThreeWay(kind);
    const full = await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: 'VisualQuant: preparing the report' }, () => this.fullReport());
    const base = full.report.float.file.replace(/\.onnx$/i, '');
    if (kind === 'json') await saveExport(`${base}-compare.json`, 'application/json', jsonReport(full), this.files[0]);
    else if (kind === 'csv') await saveExport(`${base}-layers.csv`, 'text/csv', csvReport(full), this.files[0]);
    else await saveExport(`${base}-report.html`, 'text/html', htmlReport(full, this.env.settings(), this.version), this.files[0]);
  }

  /** A three-way comparison's JSON (its report) and CSV (the Versions table), as the page exports them. */
  private async exportThreeWay(kind: 'json' | 'csv'): Promise<void> {
    const report = this.threeWay ?? await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: 'VisualQuant: comparing the versions' },
      () => this.session.dispatcher.call('threeWay', {}));
    const base = report.float.file.replace(/\.onnx$/i, '');
    if (kind === 'json') await saveExport(`${base}-three-way.json`, 'application/json', threeWayJson(report), this.files[0]);
    else await saveExport(`${base}-versions.csv`, 'text/csv', threeWayCsv(report), this.files[0]);
  }

  private focusChanged() {
    if (this.panel.active) ComparePanel.lastActive = this;
    ComparePanel.refresh(this.env);
  }

  /** The context key of the title-bar actions, and the status bar for the active tab. */
  private static refresh(env: ExtensionEnv) {
    const active = [...ComparePanel.panels].find((p) => p.panel.active);
    void vscode.commands.executeCommand('setContext', 'visualquant.compareActive', !!active);
    if (active) active.showStatus();
    else env.status.hide();
  }

  private showStatus() {
    const status = this.env.status;
    if (!this.panel.active) return;
    if (!this.weights) {
      status.text = this.report ? '$(loading~spin) VisualQuant: analysing weights' : '$(loading~spin) VisualQuant: opening';
      status.tooltip = undefined;
    } else if (this.weights.measures !== 'quantization_error') {
      // Between two versions of a model, or two different networks, nothing is "damaged".
      const changed = this.weights.layers.filter((l) => l.error.changed_fraction > 0).length;
      status.text = this.weights.not_compared ? '$(warning) weights not compared: not the same network'
        : `$(info) ${changed} of ${this.weights.layers.length} weights changed`;
      status.tooltip = this.weights.not_compared ?? this.weights.ranking;
    } else {
      const s = this.env.settings();
      const damaged = damagedLayers(this.weights.layers, s);
      status.text = `${damaged.length ? '$(warning)' : '$(check)'} ${damaged.length} of ${this.weights.layers.length} layers damaged`;
      status.tooltip = damaged.length
        ? `Weight SQNR below ${s.damagedSqnrDb} dB:\n${damaged.slice(0, 20).map((l) => `${l.quant_node}: ${l.error.sqnr_db?.toFixed(1)} dB`).join('\n')}`
        : `No quantized weight below ${s.damagedSqnrDb} dB SQNR`;
    }
    status.show();
  }

  private dispose() {
    this.session.dispose();
    ComparePanel.panels.delete(this);
    if (ComparePanel.lastActive === this) ComparePanel.lastActive = undefined;
    ComparePanel.refresh(this.env);
  }
}

function titleOf(files: vscode.Uri[]): string {
  return files.map(baseName).join(' ↔ ');
}

/** Brings comparison tabs back after a window reload, from the files the page's saved state names. */
export class ComparePanelSerializer implements vscode.WebviewPanelSerializer {
  constructor(private readonly env: ExtensionEnv) {}

  async deserializeWebviewPanel(panel: vscode.WebviewPanel, state: unknown): Promise<void> {
    const refs = (() => {
      try {
        return JSON.parse((state as { key?: string })?.key ?? '') as unknown;
      } catch {
        return null;
      }
    })();
    if (!Array.isArray(refs) || (refs.length !== 2 && refs.length !== 3) || !refs.every((r) => typeof r === 'string')) {
      panel.dispose();
      return;
    }
    const uris = refs.map((r: string) => vscode.Uri.parse(r, true));
    if (uris.length === 3) {
      new ComparePanel(this.env, panel, uris);
      return;
    }
    const [a, b] = uris;
    const [first, second] = guessOrder({ path: a.path, uri: a }, { path: b.path, uri: b });
    new ComparePanel(this.env, panel, [first.uri, second.uri]);
  }
}
