// The page: opens two models through a CoreConnection (here the Web Worker), draws both graphs side
// by side, links selection, and fills the overlays, the detail panel and the layer table.
import { ActivationPanel } from './activations/activation_panel';
import { SensitivityPanel } from './sensitivity/sensitivity_panel';
import { uiHost, type UiHost, type UiState } from './host';
import { ActivationIndex, onOpenPair } from './model/activations';
import { Comparison, nodeGroupsOf, other, SIDES, type NodeGroups, type NodeInfo, type Side } from './model/comparison';
import { GroupState, layerStackView } from './model/groups';
import { pairNotice, sideLetter, sideTitle, weightsTitle } from './model/pair_case';
import { CoreRequestError, type CoreConnection } from './protocol/connection';
import {
  describeError, type ActivationParams, type SensitivityParams, type CompareReport, type LayoutEdge, type LayoutParams, type LayoutView, type LintFinding, type PairName,
  type ProgressMessage, type ThreeWayReport, type UnrankedWeightLayer, type WeightsReport,
} from './protocol/messages';
import { PageExports } from './export/page_exports';
import { DetailPanel } from './ui/detail_panel';
import { afterNextFrame, byId, el } from './ui/dom';
import { FusionView } from './ui/fusion_view';
import { GraphView } from './ui/graph_view';
import type { Shortcuts } from './ui/keyboard';
import { measureLabels, type MeasuredSizes } from './ui/label_sizes';
import { Minimap } from './ui/minimap';
import { LayerTable, type TableMeasures } from './ui/layer_table';
import { paced } from './ui/paced';
import { worthPaintingPartial } from './ui/progress_forecast';
import { LintView } from './ui/lint_view';
import { NodeSearch, type SearchItem } from './ui/search';
import { OVERLAYS, paintsFor, setSqnrThresholds, type OverlayName, type ThemeName } from './ui/overlays';
import { pageShortcuts } from './ui/page_keys';
import { nameOf, sourcesFromFiles, sourcesFromQuery, streamSources, type ModelSources } from './ui/sources';
import { bindTabs } from './ui/tabs';
import { ExportMenu } from './ui/export_menu';
import { ViewCameras } from './ui/view_cameras';
import { pageCoreConnection } from './worker/page_core';
import { threeWayNotice, versionTag } from './versions/three_way_case';
import { ThreeWayTable } from './versions/three_way_table';
import { VersionPane } from './versions/version_pane';

type Selection = Record<Side, number[]> & { primary: { side: Side; index: number } | null };
/** Why the graphs are drawn anew: new models, another view of them, or groups opened or closed. */
type Redraw = 'fresh' | 'view' | 'groups';
/** What the nodes and groups of a view tell (every node, drawn or not), kept for its layouts. */
interface ViewBase {
  nodeGroups: NodeGroups;
  /** Every node of both sides, drawn or hidden in a closed group: what Find a node searches. */
  nodes: SearchItem[];
  sizes: MeasuredSizes;
}
const NO_SELECTION: Selection = { float: [], quant: [], primary: null };
/** How often the weight analysis' progress (the filling table, the status line) is painted at most. */
const PROGRESS_PAINT_MS = 250;

class App {
  private readonly core: CoreConnection = uiHost()?.connection ?? pageCoreConnection();
  private readonly views: Record<Side, GraphView>;
  private readonly cameras: ViewCameras;
  private readonly detail: DetailPanel;
  private readonly table: LayerTable;
  private readonly search: NodeSearch;
  private readonly fusions: FusionView;
  private readonly lintView: LintView;
  private readonly activations: ActivationPanel;
  private readonly sensitivity: SensitivityPanel;
  /** The core's id of the sensitivity sweep running, if one is. */
  private sensitivityRequest: number | null = null;
  /** The activation comparison of the open pair: its report, indexed (kept across relayouts). */
  private activationIndex: ActivationIndex | null = null;
  /** The core's id of the activation comparison running, if one is. */
  private activationRequest: number | null = null;
  private readonly exports: PageExports;
  private readonly exportMenu = new ExportMenu(byId<HTMLButtonElement>('export-graphs'), byId('export-menu'));
  private readonly keys: Shortcuts;
  private report: CompareReport | null = null;
  private coreVersion = '';
  private comparison: Comparison | null = null;
  private weights: WeightsReport | null = null;
  private lint: LintFinding[] | null = null;
  private names = { first: '', second: '' };
  private overlay: OverlayName = 'status';
  private view: LayoutView = 'logical';
  private groups = new GroupState();
  private bases: Partial<Record<LayoutView, ViewBase>> = {};
  /**
   * A three-way comparison's version B: its pane (following the float pane), its pair's report and
   * view bases (the float model with B), and the three-way table once made. Null reportB: two models.
   */
  private readonly version: VersionPane;
  private readonly versionsTable: ThreeWayTable;
  private reportB: CompareReport | null = null;
  private basesB: Partial<Record<LayoutView, ViewBase>> = {};
  private threeWay: ThreeWayReport | null = null;
  /** The selection came from a click in B's pane: B keeps the node clicked, not what the float nodes map to. */
  private pickedInVersion = false;
  /** The node lists of the drawn comparison are complete (see showComparison). */
  private listed = false;
  /** The weight analysis and lint of the open pair are in (with `listed`: the page is 'ready'). */
  private analysed = false;
  private selection: Selection = NO_SELECTION;
  /**
   * The model node the user last selected (not a group): groups closed around it and opened again
   * select it again, where the drawn selection alone would stay on the group.
   */
  private lastNode: { side: Side; id: string } | null = null;
  private running: { id: number | null; abort: AbortController } | null = null;
  private opening = 0;
  private pendingFiles: { float?: File; quant?: File; version?: File; external: File[] } = { external: [] };
  private themeChoice: ThemeName | null = null;
  /** The host's saved view state, applied to the first comparison drawn. */
  private restored: UiState | null = uiHost()?.state?.restored ?? null;

  constructor() {
    this.views = {
      float: this.makeView('float', 'Float'),
      quant: this.makeView('quant', 'Quantized'),
    };
    this.cameras = new ViewCameras(SIDES.map((s) => this.views[s]), () => byId<HTMLInputElement>('link-views').checked);
    this.version = new VersionPane(byId('graph-version'), {
      selected: (floatIds) => this.selectFromVersion(floatIds),
      moved: (y) => {
        if (!byId<HTMLInputElement>('link-views').checked) return;
        const f = this.views.float, cam = f.camera;
        f.setCamera({ ...cam, ty: f.size.height / 2 - y * cam.scale }, true);
      },
      toggleGroup: (group) => void this.toggleVersionGroup(group),
    });
    this.versionsTable = new ThreeWayTable(byId<HTMLTableElement>('versions-table'), byId('versions-count'), (row) => {
      const [first] = row.float_ops;
      if (first) this.selectId('float', first);
    });
    this.detail = new DetailPanel(byId('detail'), {
      selectId: (side, id) => this.selectId(side, id),
      loadWeights: (info, host) => void this.loadWeights(info, host),
      loadNode: (side, nodeId) => this.core.request('node', { side, nodeId }).promise.catch((e: unknown) => {
        this.showRestart(e, 'The node detail failed.');
        throw e;
      }),
      plotQuantParams: (q, host) => void import('./ui/weight_chart').then((m) => m.renderQuantParams(host, q)),
      plotActivation: (point, host) => void import('./activations/activation_charts').then((m) => m.renderPointCharts(host, point)),
      keptInFloat: (entry) => this.sensitivity.isPicked(entry),
      keepInFloat: (entry, on) => this.sensitivity.setPicked(entry, on),
    });
    this.activations = new ActivationPanel(byId('activations-panel'), {
      run: (params, onProgress) => this.runActivations(params, onProgress),
      cancel: () => {
        if (this.activationRequest !== null) this.core.cancel(this.activationRequest);
      },
      select: (point) => {
        if (point.entries.length) this.selectEntry(point.entries[0]);
        else if (point.quant_nodes.length) this.selectId('quant', point.quant_nodes[0]);
      },
      // The Sensitivity tab's picks (made after this panel: none before it exists).
      keptInFloat: () => (this.sensitivity ? this.sensitivity.pickedEntries() : []),
      onOpenPair: (report) => (this.report ? onOpenPair(report, this.report.mapping) : report),
      shown: (report) => {
        this.activationIndex = new ActivationIndex(report);
        if (this.comparison) this.comparison.activations = this.activationIndex;
        this.repaint();
        this.refreshDetail();
      },
    });
    this.sensitivity = new SensitivityPanel(byId('sensitivity-panel'), {
      inputs: () => this.activations.inputChoice(),
      run: (params, onProgress) => this.runSensitivity(params, onProgress),
      cancel: () => {
        if (this.sensitivityRequest !== null) this.core.cancel(this.sensitivityRequest);
      },
      snippet: async (entries, format) => (await this.core.request('exclusionSnippet', { entries, format }).promise).text,
      mixedModel: (entries) => this.core.request('mixedModel', { entries }).promise,
      select: (entry) => this.selectEntry(entry),
    });
    this.activations.onInputsChanged = () => this.sensitivity.refreshInputs();
    this.sensitivity.onPicksChanged = () => this.activations.refreshWhatIf();
    this.search = new NodeSearch(byId<HTMLInputElement>('search'), byId<HTMLUListElement>('search-results'), (side, id) => this.selectId(side, id));
    this.table = new LayerTable(byId<HTMLTableElement>('layer-table'), byId('table-count'), (layer) => this.selectEntry(layer.entry));
    this.lintView = new LintView(byId<HTMLTableElement>('lint-table'), byId('lint-count'), (f) => {
      const index = this.comparison?.drawnHolding('quant', f.node);
      if (index !== undefined) this.selectNode('quant', index);
    });
    this.fusions = new FusionView(byId<HTMLTableElement>('fusion-table'), byId('fusion-detail'), byId('fusion-count'), (f) => this.selectEntry(f.entry));
    bindTabs(byId('table-panel').querySelector('[role="tablist"]')!, (panel) => {
      byId('layer-tools').hidden = panel !== 'layers-panel';
      byId('table-status').hidden = panel === 'activations-panel' || panel === 'sensitivity-panel';
    });
    this.exports = new PageExports(this.core, () => this.report && {
      report: this.report, weights: this.weights, lint: this.lint, activations: this.activationIndex?.report ?? null, coreVersion: this.coreVersion, overlayTitle: OVERLAYS[this.overlay].title,
      views: this.views, tableCsv: () => this.table.toCsv(), threeWay: this.threeWay, versionsCsv: () => this.versionsTable.toCsv(),
      scope: this.exportMenu.scope, selected: { float: this.selection.float, quant: this.selection.quant },
    }, (text, work) => this.busy(text, work), (message) => this.showError(message, 'export'));
    this.keys = pageShortcuts({
      comparison: () => this.comparison,
      primary: () => this.selection.primary,
      layerEntries: () => this.table.rows().map((l) => l.entry),
      selectNode: (side, index) => this.selectNode(side, index),
      selectEntry: (entry) => this.selectEntry(entry),
      clearSelection: () => this.setSelection(NO_SELECTION, false),
      toggleSelectedGroup: () => this.toggleSelectedGroup(),
      zoom: (factor) => this.cameras.zoom(factor),
      fit: () => this.cameras.fit(),
      focusSearch: () => byId('search').focus(),
    }, byId('key-help'));
    this.bindControls();
    const host = uiHost();
    host?.theme?.onChange(() => this.themeChanged());
    const stored = host?.theme ? null : localStorage.getItem('vq-theme');
    this.applyTheme(stored === 'light' || stored === 'dark' ? stored : null);
    const query = sourcesFromQuery(location.search, location.href);
    if (typeof query === 'string') this.showError(query);
    else if (query) void this.open(query);
    if (host) this.startFromHost(host);
  }

  /** A host page (VS Code): its settings and the saved view state, then the pair it holds. */
  private startFromHost(host: UiHost) {
    const options = host.options ?? {};
    if (options.sqnrThresholds) setSqnrThresholds(options.sqnrThresholds);
    this.overlay = this.restored?.overlay ?? options.overlay ?? this.overlay;
    byId<HTMLSelectElement>('overlay').value = this.overlay;
    this.view = this.restored?.view ?? options.view ?? this.view;
    byId<HTMLInputElement>('raw-view').checked = this.view === 'nodes';
    this.repaint();
    if (host.files) void this.open({ ...host.files, external: [] });
  }

  /** Hands the view state to the host, which keeps it while the page is hidden (no host: nothing). */
  private persist() {
    const save = uiHost()?.state?.save, c = this.comparison, p = this.selection.primary;
    if (!save || !c) return;
    save({
      overlay: this.overlay, view: this.view, selected: p ? { side: p.side, id: c.nodes[p.side][p.index].node.id } : null,
      cameras: { float: this.views.float.camera, quant: this.views.quant.camera },
    });
  }

  private makeView(side: Side, label: string): GraphView {
    const view = new GraphView(byId(`graph-${side}`), label, {
      select: (index) => (index === null ? this.setSelection(NO_SELECTION, false) : this.selectNode(side, index)),
      camera: (camera) => {
        this.cameras.sync(this.views[side], camera);
        if (this.reportB && byId<HTMLInputElement>('link-views').checked) this.version.followCamera(this.views.float.camera, this.views.float.size.height);
        this.persist();
      },
      badgeHover: (edge, x, y) => this.showBadgeTooltip(side, edge, x, y),
      toggleGroup: (group) => void this.toggleGroup(side, group),
    });
    new Minimap(byId(`graph-${side}`), view);
    return view;
  }

  // ---- opening -----------------------------------------------------------------------------------
  private bindControls() {
    const pick = (id: string, slot: 'float' | 'quant' | 'version') => byId<HTMLInputElement>(id).addEventListener('change', (e) => {
      const file = (e.target as HTMLInputElement).files?.[0];
      if (file) this.pendingFiles[slot] = file;
      this.openPicked();
    });
    pick('file-float', 'float');
    pick('file-quant', 'quant');
    pick('file-version', 'version');
    byId<HTMLInputElement>('file-external').addEventListener('change', (e) => {
      this.pendingFiles.external = [...((e.target as HTMLInputElement).files ?? [])];
      this.openPicked();
    });
    const hint = byId('drop-hint');
    let depth = 0;
    document.addEventListener('dragenter', (e) => {
      if (!e.dataTransfer?.types.includes('Files')) return;
      depth++;
      hint.hidden = false;
    });
    document.addEventListener('dragleave', () => {
      if (--depth <= 0) { depth = 0; hint.hidden = true; }
    });
    document.addEventListener('dragover', (e) => e.preventDefault());
    document.addEventListener('drop', (e) => {
      e.preventDefault();
      depth = 0;
      hint.hidden = true;
      const files = [...(e.dataTransfer?.files ?? [])];
      if (files.length === 0) return;
      const sources = sourcesFromFiles(files);
      if (typeof sources === 'string') this.showError(sources);
      else void this.open(sources);
    });
    byId('cancel').addEventListener('click', () => this.cancel());
    byId<HTMLSelectElement>('overlay').addEventListener('change', (e) => this.setOverlay((e.target as HTMLSelectElement).value as OverlayName));
    byId<HTMLInputElement>('raw-view').addEventListener('change', (e) => void this.setView((e.target as HTMLInputElement).checked ? 'nodes' : 'logical'));
    byId<HTMLInputElement>('link-views').addEventListener('change', (e) => {
      if ((e.target as HTMLInputElement).checked) this.cameras.sync(this.views.float, this.views.float.camera);
    });
    byId('zoom-in').addEventListener('click', () => this.cameras.zoom(1.25));
    byId('zoom-out').addEventListener('click', () => this.cameras.zoom(0.8));
    byId('zoom-fit').addEventListener('click', () => this.cameras.fit());
    const exported = (what: string, done: Promise<void> | void) => void Promise.resolve(done).catch((e: unknown) =>
      this.showError(`The ${what} export failed. ${e instanceof CoreRequestError ? describeError(e) : String(e)}${this.coreRestarted(e)}`, 'export'));
    byId('export-json').addEventListener('click', () => exported('JSON', this.exports.json()));
    byId('export-csv').addEventListener('click', () => exported('CSV', this.exports.csv()));
    byId('export-png').addEventListener('click', () => exported('PNG', this.exports.png()));
    byId('export-svg').addEventListener('click', () => exported('SVG', this.exports.svg()));
    byId('export-html').addEventListener('click', () => exported('HTML', this.exports.html()));
    byId('keys').addEventListener('click', () => this.keys.toggleHelp());
    byId('collapse-all').addEventListener('click', () => void this.setAllGroups(false));
    byId('expand-all').addEventListener('click', () => void this.setAllGroups(true));
    byId('theme').addEventListener('click', () => {
      const order: Array<ThemeName | null> = [null, 'light', 'dark'];
      this.applyTheme(order[(order.indexOf(this.themeChoice) + 1) % order.length]);
    });
    matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => this.themeChanged());
    byId<HTMLInputElement>('table-filter').addEventListener('input', (e) => this.table.setFilter((e.target as HTMLInputElement).value));
  }

  private openPicked() {
    const { float, quant, version, external } = this.pendingFiles;
    if (float && quant) void this.open({ first: float, second: quant, ...(version ? { third: version } : {}), external });
  }

  private progress(text: string, fraction?: number) {
    byId('progress').hidden = false;
    byId('progress-stage').textContent = text;
    const bar = byId<HTMLProgressElement>('progress-bar');
    if (fraction === undefined) bar.removeAttribute('value');
    else bar.value = fraction;
  }

  /**
   * Shows the progress card while `work` runs: for what takes a while but is not one of the core's
   * cancellable steps (an export), so without Cancel.
   */
  private async busy<T>(text: string, work: (update: (text: string, fraction?: number) => void) => Promise<T>): Promise<T> {
    this.progress(text);
    byId('cancel').hidden = true;
    try {
      await afterNextFrame();  // the card is painted before the work holds the page
      return await work((t, f) => this.progress(t, f));
    } finally {
      byId('progress').hidden = true;
      byId('cancel').hidden = false;
    }
  }

  private cancel() {
    if (!this.running) return;
    this.running.abort.abort();
    if (this.running.id !== null) this.core.cancel(this.running.id);
  }

  /** Runs one core request as the current long task (cancellable); the core's progress words show with the bar at `fraction`. */
  private async step<T>(fraction: number, start: (onProgress: (p: ProgressMessage) => void) => { id: number; promise: Promise<T> }): Promise<T> {
    const request = start((p) => this.progress(p.detail, fraction));
    if (this.running) this.running.id = request.id;
    return request.promise;
  }

  async open(sources: ModelSources): Promise<void> {
    const ticket = ++this.opening;
    this.running?.abort.abort();
    const abort = new AbortController();
    this.running = { id: null, abort };
    this.hideError();
    // The models an activation comparison ran on are going: the core ends it before it opens these.
    this.activations.setInputs(null);
    this.sensitivity.setPair(false);
    // What is on screen is no longer the pair asked for: 'ready' again once the new one is analysed.
    document.body.dataset.state = 'loading';
    this.names = { first: nameOf(sources.first), second: sources.third ? `${nameOf(sources.second)} and ${nameOf(sources.third)}` : nameOf(sources.second) };
    const three = sources.third !== undefined;
    try {
      this.progress(`Reading ${this.names.first} and ${this.names.second}`, 0);
      mark('open');
      // The core's worker reads the files itself, straight into the core's memory (FileStream):
      // reading is the first 30 % of the bar, then aligning.
      const files = streamSources(sources);
      let read = false;
      const request = this.core.request('open', files, {
        onProgress: (p) => {
          if (p.stage !== 'reading') {
            if (!read) mark('read');  // the worker has read both files
            read = true;
            return this.progress(three ? `Aligning the three models (${p.detail})` : 'Aligning the two models', 0.35);
          }
          this.progress(`Reading ${p.detail.replace(/^reading /, '')}`,  // each file still being read, with its bytes
            p.fraction === undefined ? undefined : p.fraction * 0.3);
        },
      });
      if (this.running) this.running.id = request.id;
      const opened = await request.promise;
      if (ticket !== this.opening) return;
      mark('aligned');
      this.report = opened.report;
      this.reportB = opened.versionB ?? null;
      this.threeWay = null;
      this.basesB = {};
      this.coreVersion = opened.version;
      this.weights = null;
      this.analysed = false;
      this.lint = null;
      this.lintView.set(null);
      this.activationIndex = null;
      this.groups = new GroupState();
      this.bases = {};
      this.progress(three ? 'Laying out the three graphs' : 'Laying out both graphs', 0.7);
      const comparison = await this.layoutFor(this.view, 0.7);
      const versionB = this.reportB ? await this.layoutFor(this.view, 0.85, 'B') : null;
      if (ticket !== this.opening) return;
      mark('laid-out');
      this.showComparison(comparison, 'fresh', versionB);
      mark('drawn');
      byId('progress').hidden = true;
      this.running = null;
      void this.core.request('activationInputs', {}).promise.then((inputs) => {
        if (ticket !== this.opening) return;
        // Runs compare a quantized model with its float model; two versions of a model are not that.
        const unavailable = opened.report.case === 'float_vs_quantized' ? ''
          : `This needs a float model and its quantized version; ${opened.report.case === 'float_vs_float' ? 'both models are float' : 'both models are quantized'}.`;
        this.activations.setInputs(inputs, unavailable);
        this.sensitivity.setPair(true, unavailable);
      }, (e: unknown) => this.showRestart(e, 'Reading the model inputs failed.'));
      // The weight analysis keeps the core busy for a while: asked once the graphs are on screen,
      // it does not slow the first frame down. (Asked as the layouts came back instead, to run
      // while this thread draws, it made the segmentation pair's analysis 0.05 s sooner and the
      // ResNet-18 pair's drawing up to 0.03 s later: not worth it.)
      await afterNextFrame();
      if (ticket !== this.opening) return;
      await this.loadAnalysis(ticket);
    } catch (e) {
      if (ticket !== this.opening) return;
      byId('progress').hidden = true;
      this.running = null;
      document.body.dataset.state = 'error';
      if (isCancel(e)) this.showError('Cancelled. Open the models again when ready.', 'cancelled');
      else if (e instanceof CoreRequestError) this.showError(`Could not open ${this.names.first} and ${this.names.second}. ${describeError(e)}${this.coreRestarted(e)}`, e.code);
      else this.showError(`Could not open the models: ${e instanceof Error ? e.message : String(e)}`, 'io');
    }
  }

  /** After the graphs are drawn: the weight analysis (table, heat) and the lint, in the background. */
  private async loadAnalysis(ticket: number) {
    const status = byId('table-status');
    try {
      status.textContent = 'Analysing weights…';
      const bins = uiHost()?.options?.bins;
      const found: UnrankedWeightLayer[] = [];
      let lastSlice: TableMeasures | null = null, tableBehind = false;
      let howFar: { cores: string, text: string } | null = null;
      // How far the analysis is (parameters), for the forecast of its end (progress_forecast.ts).
      const started = performance.now();
      let fraction = 0, failed = false;
      // The table and the status line as the progress stands, painted at most every
      // PROGRESS_PAINT_MS (paced.ts says why); the table's found layers only when the ranked
      // table is not expected within that interval.
      const paint = paced(PROGRESS_PAINT_MS, () => {
        if (ticket !== this.opening) return;
        if (tableBehind && lastSlice && (failed || worthPaintingPartial(performance.now() - started, fraction, PROGRESS_PAINT_MS))) {
          this.table.setFound({ ...lastSlice, layers: found });
          tableBehind = false;
        }
        if (!howFar) return;
        status.textContent = `Analysing weights${howFar.cores}: ${howFar.text}`;
        this.detail.analysisProgress(howFar.text);
      });
      const weightsRequest = this.core.request('weights', bins ? { bins } : {}, {
        onProgress: (p) => {
          if (ticket !== this.opening) return;
          if (p.slice) {
            // The layers analysed so far, unranked, while the rest are analysed (largest first).
            found.push(...p.slice.layers);
            lastSlice = p.slice;
            tableBehind = true;
            paint.request();
            return;
          }
          if (p.fraction === undefined) return;
          fraction = p.fraction;
          // "120 of 560 layers, 40 %": the fraction counts parameters, the better measure of the time left.
          const cores = /^analysing weights on two cores: /.test(p.detail) ? ' on two cores' : '';
          howFar = { cores, text: `${p.detail.replace(/^analysing weights( on two cores)?: /, '')}, ${Math.floor(p.fraction * 100)} %` };
          paint.request();
        },
      });
      // Asked with the weights, so that the core checks the parameters right after the analysis,
      // while this thread fills the table, rather than once it has.
      const lintRequest = this.core.request('lint', {});
      lintRequest.promise.catch(() => {});  // seen below, unless the weights failed first
      // The last progress is shown (flush), but after a success without the table's found layers:
      // the ranked table replaces them at once, and drawing them cost the main thread a whole table
      // (15-20 ms on the segmentation pair) just before the table itself.
      // After a failure, the layers found are painted whatever the forecast said.
      const weights = await weightsRequest.promise.then((w) => {
        tableBehind = false;
        return w;
      }, (e: unknown) => {
        failed = true;
        if (tableBehind) paint.request();
        throw e;
      }).finally(() => {
        paint.flush();
        this.detail.analysisProgress(null);
      });
      if (ticket !== this.opening) return;
      this.weights = weights;
      this.comparison?.setWeights(weights);
      byId('tab-layers').textContent = this.layersTitle(weights);
      this.table.setLayers(weights, weights.invalid?.length ?? 0);
      this.activations.setWeights(weights.layers);
      mark('weights');
      status.textContent = 'Checking quantization parameters…';
      const lint = await lintRequest.promise;
      if (ticket !== this.opening) return;
      this.lint = lint;
      this.lintView.set(lint);
      mark('lint');
      this.comparison?.setLint(lint);
      status.textContent = lint.length ? `${lint.length} lint finding${lint.length === 1 ? '' : 's'}` : 'no lint findings';
      byId<HTMLButtonElement>('export-json').disabled = false;
      byId<HTMLButtonElement>('export-csv').disabled = false;
      byId<HTMLButtonElement>('export-html').disabled = false;
      if (this.reportB) await this.loadThreeWay(ticket);
      if (ticket !== this.opening) return;
      this.repaint();
      this.refreshDetail();
      this.analysed = true;
      if (this.listed) document.body.dataset.state = 'ready';
    } catch (e) {
      if (ticket !== this.opening) return;
      status.textContent = '';
      if (!isCancel(e)) this.showError(`The weight analysis failed. ${e instanceof CoreRequestError ? describeError(e) : String(e)}${this.coreRestarted(e)}`, 'analysis');
    }
  }

  /** The three-way table (both versions' weights and lint): the Versions tab, B's heat and lint overlays. */
  private async loadThreeWay(ticket: number, activations = false) {
    if (!activations) this.versionsTable.set(null);
    const status = byId('table-status');
    try {
      const report = await this.core.request('threeWay', activations ? { activations } : {}, {
        onProgress: (p) => {
          if (ticket === this.opening) status.textContent = p.fraction === undefined ? p.detail : `${p.detail}, ${Math.floor(p.fraction * 100)} %`;
        },
      }).promise;
      if (ticket !== this.opening) return;
      this.threeWay = report;
      this.versionsTable.set(report);
      const b = report.versions[1];
      this.version.setAnalysis(b.weights, b.lint);
      status.textContent = `${this.lint?.length ?? 0} lint findings in A, ${b.lint?.length ?? 0} in B · ${report.summary.differing} of ${report.summary.rows} rows differ`;
      mark('versions');
      this.setSelection(this.selection, false);
    } catch (e) {
      if (ticket !== this.opening) return;
      this.versionsTable.set(`The versions could not be compared. ${e instanceof CoreRequestError ? describeError(e) : String(e)}${this.coreRestarted(e)}`);
      if (!isCancel(e)) this.showError(`The three-way comparison failed. ${e instanceof CoreRequestError ? describeError(e) : String(e)}`, 'analysis');
    }
  }

  /**
   * Lays out both graphs of the open pair in `view`, with the groups open as chosen. The first time
   * a view is asked, its nodes and groups come first, not laid out: which group each node is in (a
   * collapsed layout leaves hidden nodes out) and the labels to measure, so that the one layout made
   * has boxes that fit them.
   */
  private async layoutFor(view: LayoutView, fraction: number, pair: PairName = 'A'): Promise<Comparison> {
    const bases = pair === 'B' ? this.basesB : this.bases;
    let base = bases[view];
    if (!base) {
      const labels = await this.step(fraction, (onProgress) => this.core.request('labels', { view, ...(pair === 'B' ? { pair } : {}) }, { onProgress }));
      mark('labels');
      const nodes = SIDES.flatMap((side) => labels[side].nodes.map((n) => ({ side, id: n.id, label: n.label })));
      base = bases[view] = { nodeGroups: nodeGroupsOf(labels), nodes, sizes: measureLabels(labels) };
      // ?groups=open opens every pair whole (links to a full drawing, the benchmarks against Netron).
      const layers = pair === 'A' && new URLSearchParams(location.search).get('groups') !== 'open' ? layerStackView(labels) : null;
      if (layers) this.groups.startOn(layers);
    }
    const params: LayoutParams = { view, ...this.groups.params(), ...base.sizes, ...(pair === 'B' ? { pair } : {}) };
    const layout = await this.step(fraction, (onProgress) => this.core.request('layout', params, { onProgress }));
    if (pair === 'A') this.search.setItems(base.nodes);
    return new Comparison(pair === 'B' ? this.reportB! : this.report!, layout, base.nodeGroups);
  }

  /** The weights tab's title: of version A in a three-way comparison (B's figures are in the Versions tab). */
  private layersTitle(weights: WeightsReport | null): string {
    const title = weightsTitle(weights, this.report);
    return this.reportB ? `Version A: ${title[0].toLowerCase()}${title.slice(1)}` : title;
  }

  /** What kind of pair is open, and whether it is one network: said above the graphs, before anything is read. */
  private showPairCase(r: CompareReport) {
    const notice = this.reportB ? threeWayNotice(r, this.reportB) : pairNotice(r), box = byId('pair-notice');
    box.hidden = !notice;
    box.textContent = notice?.text ?? '';
    if (notice) box.dataset.kind = notice.kind;
    else delete box.dataset.kind;
    byId('tab-layers').textContent = this.layersTitle(null);
    this.search.letters = { float: sideLetter(r, 'float'), quant: sideLetter(r, 'quant') };
  }

  private showComparison(comparison: Comparison, mode: Redraw, versionB: Comparison | null = null) {
    const fresh = mode === 'fresh';
    const previous = this.selection;
    const previousIds = this.comparison ? SIDES.map((s) => previous[s].map((i) => this.comparison!.nodes[s][i].node.id)) : null;
    this.comparison = comparison;
    if (fresh) this.fusions.setReport(comparison.report);
    for (const id of ['export-graphs', 'export-png', 'export-svg']) byId<HTMLButtonElement>(id).disabled = false;
    const grouped = SIDES.some((side) => comparison.layout[side].groups.length > 0);
    for (const id of ['collapse-all', 'expand-all']) byId<HTMLButtonElement>(id).disabled = !grouped;
    if (this.weights) comparison.setWeights(this.weights);
    if (this.lint) comparison.setLint(this.lint);
    comparison.activations = this.activationIndex;
    byId('welcome').hidden = true;
    byId('graphs').hidden = false;
    byId('graphs').dataset.view = comparison.layout.float.view;
    const r = comparison.report;
    if (fresh) this.showPairCase(r);
    for (const side of SIDES) {
      byId(`tag-${side}`).textContent = this.reportB && side === 'quant' ? versionTag('A', r) : sideTitle(r, side);
      byId(`name-${side}`).textContent = r[side].file;
      byId(`count-${side}`).textContent = `${comparison.layout[side].nodes.length} nodes drawn · ${r[side].nodes} in the model`;
      this.views[side].setLayout(comparison.layout[side], []);
    }
    this.showVersion(versionB, fresh);
    const k = r.summary.by_kind;
    byId('summary').textContent = `${r.summary.entries} matches: ${Object.entries(k).filter(([, n]) => n > 0).map(([kind, n]) => `${n} ${kind}`).join(', ')} · ` +
      `${r.fusions.length} fusion${r.fusions.length === 1 ? '' : 's'} · mean confidence ${Math.round(r.summary.mean_confidence * 100)} %` +
      (r.argument_order_swapped && r.case === 'float_vs_quantized' ? ' · the files were given in the other order' : '');
    // Drawn now: the graphs are on screen with this frame. The accessible node lists are built after
    // it, over several tasks (node_list.ts; 63,000 items take about 0.9 s) while the page answers,
    // so they do not hold up 'drawn'; data-listed says when they are whole. 'ready' is analysed and
    // listed.
    document.body.dataset.state = 'drawn';
    document.body.dataset.listed = 'no';
    this.listed = false;
    const views = [...SIDES.map((side) => this.views[side]), ...(this.reportB ? [this.version.view] : [])];
    void Promise.all(views.map((v) => v.listReady)).then(() => {
      if (this.comparison !== comparison) return;
      this.listed = true;
      mark('listed');
      document.body.dataset.listed = 'yes';
      if (this.analysed) document.body.dataset.state = 'ready';
    });
    this.repaint();
    requestAnimationFrame(() => mark('painted'));  // after this frame's drawing of both graphs
    if (mode !== 'groups') this.cameras.first();
    if (this.reportB && byId<HTMLInputElement>('link-views').checked) this.version.followCamera(this.views.float.camera, this.views.float.size.height);
    const restored = fresh ? this.restored : null;
    this.restored = null;
    // The host's saved view (the page reloaded): its cameras, and its selection as it was, not scrolled to.
    if (restored?.cameras) for (const s of SIDES) this.views[s].setCamera(restored.cameras[s]);
    if (fresh) {
      this.setSelection(NO_SELECTION, false);
      const sel = restored?.selected;
      const [index] = sel ? comparison.indicesOf(sel.side, sel.id) : [];
      if (sel && index !== undefined) this.setSelection({ ...comparison.selectionFor(sel.side, index), primary: { side: sel.side, index } }, !restored.cameras);
    } else if (previous.primary && previousIds) {
      // Same models in another view: select again what was clicked, with its entry as this view draws it.
      const keep = mode === 'groups' ? this.lastNode : null;
      const side = keep?.side ?? previous.primary.side;
      const id = keep?.id ?? previousIds[SIDES.indexOf(side)][previous[side].indexOf(previous.primary.index)];
      const [index] = id === undefined ? [] : comparison.indicesOf(side, id);
      if (index === undefined) this.setSelection(NO_SELECTION, false);
      else if (mode === 'groups') this.setSelection({ ...comparison.selectionFor(side, index), primary: { side, index } }, false);
      else this.selectNode(side, index);
    } else {
      this.setSelection(NO_SELECTION, false);
    }
  }

  /** The third pane and the Versions tab: shown with version B's layout, hidden for two models. */
  private showVersion(versionB: Comparison | null, fresh: boolean) {
    const three = versionB !== null && this.reportB !== null;
    byId('pane-version').hidden = !three;
    byId('tab-versions').hidden = !three;
    if (three) byId('graphs').dataset.three = 'true';
    else delete byId('graphs').dataset.three;
    if (!three) {
      this.version.clear();
      if (byId('tab-versions').getAttribute('aria-selected') === 'true') byId('tab-layers').click();
      return;
    }
    const b = this.reportB!;
    byId('tag-version').textContent = versionTag('B', b);
    byId('name-version').textContent = b.quant.file;
    byId('count-version').textContent = `${versionB.layout.quant.nodes.length} nodes drawn · ${b.quant.nodes} in the model`;
    if (fresh) this.versionsTable.set(null);
    this.version.show(b, versionB.layout, this.basesB[this.view]!.nodeGroups, this.comparison!.layout.float, fresh);
  }

  /** A click in B's pane: the float nodes aligned with B's node are selected (and A's with them); B keeps its node. */
  private selectFromVersion(floatIds: string[]) {
    const c = this.comparison;
    if (!c) return;
    const picked = new Set<number>();
    for (const id of floatIds) for (const i of c.indicesOf('float', id)) picked.add(i);
    const [first] = picked;
    this.pickedInVersion = true;
    try {
      if (first === undefined) this.setSelection(NO_SELECTION, false);
      else {
        const s = c.selectionFor('float', first);
        for (const i of picked) for (const q of c.selectionFor('float', i).quant) if (!s.quant.includes(q)) s.quant.push(q);
        this.setSelection({ float: [...new Set([...s.float, ...picked])], quant: s.quant, primary: { side: 'float', index: first } }, true);
      }
    } finally {
      this.pickedInVersion = false;
    }
  }

  /** A group opened or closed in B's pane: on every pane (groups are name scopes, shared by all three). */
  private async toggleVersionGroup(group: number) {
    const layout = this.version.pair?.layout.quant, c = this.comparison;
    const g = layout?.groups[group];
    if (!layout || !g || !c) return;
    const every = [...SIDES.flatMap((s) => c.layout[s].groups.map((x) => x.name)), ...layout.groups.map((x) => x.name)];
    if (g.state === 'collapsed') this.groups.expand(layout.groups, group, every);
    else this.groups.collapse(g.name, every);
    await this.relayout('groups');
  }

  private async setView(view: LayoutView) {
    if (!this.report || view === this.view) return;
    this.view = view;
    // Kept at once: a tab hidden before the new layout arrives keeps the toggle.
    this.persist();
    await this.relayout('view');
  }

  /** Opens or closes a group (by its index on `side`), on both sides, keeping it where it was on screen. */
  private async toggleGroup(side: Side, group: number) {
    const c = this.comparison;
    const g = c?.layout[side].groups[group];
    if (!c || !g) return;
    const every = SIDES.flatMap((s) => c.layout[s].groups.map((x) => x.name));
    if (g.state === 'collapsed') this.groups.expand(c.layout[side].groups, group, every);
    else this.groups.collapse(g.name, every);
    const before = this.groupCorner(c, side, g.name);
    await this.relayout('groups');
    const after = this.comparison && this.groupCorner(this.comparison, side, g.name);
    if (before && after) {
      const cam = this.views[side].camera;
      this.views[side].setCamera({ ...cam, tx: cam.tx + (before[0] - after[0]) * cam.scale, ty: cam.ty + (before[1] - after[1]) * cam.scale }, true);
    }
  }

  private async setAllGroups(open: boolean) {
    if (!this.report || (open && this.groups.allOpen)) return;
    if (open) this.groups.expandAll();
    else this.groups.collapseAll();
    await this.relayout('groups');
    // Every group closed, a graph may be a tenth of its height: a camera scrolled far down would
    // show empty space on both sides. Then the views start again from the graph's start.
    if (SIDES.some((s) => !this.views[s].showsDrawing())) this.cameras.first();
  }

  /** Enter: opens the selected collapsed group, or closes the group around the selected node. */
  private toggleSelectedGroup() {
    const c = this.comparison, p = this.selection.primary;
    if (!c || !p) return;
    const n = c.layout[p.side].nodes[p.index];
    if (n.kind === 'group') void this.toggleGroup(p.side, n.group);
    else if (n.parent !== null) void this.toggleGroup(p.side, n.parent);
  }

  /** Top-left corner of a group as drawn (its box when open, its node when collapsed), in drawing units. */
  private groupCorner(c: Comparison, side: Side, name: string): [number, number] | null {
    const layout = c.layout[side];
    const gi = layout.groups.findIndex((g) => g.name === name);
    const box = layout.groups[gi]?.box;
    if (box) return [box[0], box[1]];
    const n = layout.nodes.find((m) => m.kind === 'group' && m.group === gi);
    return n ? [n.x - n.w / 2, n.y - n.h / 2] : null;
  }

  /** Lays out the open pair again (another view, groups opened or closed) and draws it. */
  private async relayout(mode: Redraw) {
    if (!this.report) return;
    const ticket = this.opening;
    this.running = { id: null, abort: new AbortController() };
    try {
      this.progress(this.reportB ? 'Laying out the three graphs' : 'Laying out both graphs', 0.5);
      const comparison = await this.layoutFor(this.view, 0.5);
      const versionB = this.reportB ? await this.layoutFor(this.view, 0.5, 'B') : null;
      if (ticket !== this.opening) return;
      byId('progress').hidden = true;
      this.running = null;
      this.showComparison(comparison, mode, versionB);
    } catch (e) {
      byId('progress').hidden = true;
      this.running = null;
      this.showError(isCancel(e) ? 'Cancelled: the core was restarted. Open the models again.' : `Layout failed. ${e instanceof CoreRequestError ? describeError(e) : String(e)}${this.coreRestarted(e)}`, 'layout');
    }
  }

  // ---- selection ---------------------------------------------------------------------------------
  selectNode(side: Side, index: number) {
    if (!this.comparison) return;
    if (this.comparison.nodes[side][index].node.kind === 'group') this.lastNode = null;
    const s = this.comparison.selectionFor(side, index);
    this.setSelection({ ...s, primary: { side, index } }, true);
  }

  /** Selects a model node by id: the node, or the closed group it is hidden in (which then opens onto it). */
  selectId(side: Side, id: string) {
    const [index] = this.comparison?.indicesOf(side, id) ?? [];
    if (index === undefined) return;
    this.selectNode(side, index);
    this.lastNode = { side, id };
  }

  selectEntry(entry: number) {
    if (!this.comparison) return;
    const s = this.comparison.selectionForEntry(entry);
    const side: Side = s.float.length ? 'float' : 'quant';
    this.setSelection({ ...s, primary: s[side].length ? { side, index: s[side][0] } : null }, true);
  }

  private setSelection(selection: Selection, reveal: boolean) {
    this.selection = selection;
    const p = selection.primary, picked = p && this.comparison?.nodes[p.side][p.index].node;
    if (!picked) this.lastNode = null;
    else if (picked.kind !== 'group') this.lastNode = { side: p.side, id: picked.id };
    this.persist();
    const c = this.comparison;
    for (const side of SIDES) {
      const primary = selection.primary?.side === side ? selection.primary.index : null;
      this.views[side].setSelection(selection[side], primary);
    }
    const status = byId('selection-status');
    const ids = (side: Side) => (c ? selection[side].map((i) => c.nodes[side][i].node.id) : []);
    status.dataset.float = JSON.stringify(ids('float'));
    status.dataset.quant = JSON.stringify(ids('quant'));
    // Version B follows the float nodes selected (unless its own click made this selection).
    const floatIds = c ? selection.float.map((i) => c.nodes.float[i].node.id) : [];
    if (this.reportB) {
      const versionIds = this.pickedInVersion ? this.version.selectedIds() : this.version.follow(floatIds, reveal);
      status.dataset.version = JSON.stringify(versionIds);
      this.versionsTable.select(floatIds);
    } else {
      delete status.dataset.version;
    }
    if (!c || !selection.primary) {
      const inB = this.reportB ? this.version.describeSelection() : '';
      status.textContent = inB ? `B: ${inB} (no float counterpart)` : 'Nothing selected';
      status.dataset.kind = '';
      this.detail.clear();
      this.table.select(null);
      this.fusions.showEntry(null);
      this.activations.select(null);
      this.sensitivity.select(null);
      this.lintView.select([]);
      return;
    }
    const info = c.nodes[selection.primary.side][selection.primary.index];
    const entry = c.entry(info.entry);
    const describe = (side: Side) => selection[side].map((i) => c.nodes[side][i].node.label).join(' + ') || 'nothing';
    const inB = this.reportB ? `  ↔  B: ${this.version.describeSelection() || 'nothing'}` : '';
    status.textContent = `${describe('float')}  ↔  ${this.reportB ? 'A: ' : ''}${describe('quant')}${inB}${entry ? `  (${entry.kind}, ${Math.round(entry.confidence * 100)} %)` : ''}`;
    status.dataset.kind = entry?.kind ?? info.status;
    this.refreshDetail();
    this.table.select(info.entry);
    this.fusions.showEntry(info.entry);
    this.activations.select(info.entry);
    this.sensitivity.select(info.entry);
    this.lintView.select(selection.quant.flatMap((i) => c.nodes.quant[i].logicalOp?.nodes ?? [c.nodes.quant[i].node.id]));
    if (reveal) this.cameras.reveal(SIDES.map((s) => selection[s]), SIDES.map((s) => (selection.primary?.side === s ? selection.primary.index : selection[s][0] ?? null)));
  }

  private refreshDetail() {
    const c = this.comparison, p = this.selection.primary;
    if (!c || !p) return;
    const info = c.nodes[p.side][p.index];
    const n = info.node;
    if (n.kind === 'group') {
      this.detail.clear(`${n.label}: a closed group of ${n.members} node${n.members === 1 ? '' : 's'}. Click it, or press Enter, to open it.`);
      return;
    }
    this.detail.show(info, c, this.selection[other(p.side)].map((i) => c.nodes[other(p.side)][i]));
  }

  private setOverlay(name: OverlayName) {
    this.overlay = name;
    this.repaint();
    this.persist();
  }

  /** The theme drawn: html[data-theme], always set (from the choice, or the system's preference). */
  private theme(): ThemeName {
    return document.documentElement.dataset.theme === 'dark' ? 'dark' : 'light';
  }

  /** Applies a theme choice: 'light', 'dark', or null to follow the system. */
  private applyTheme(choice: ThemeName | null) {
    this.themeChoice = choice;
    if (choice) localStorage.setItem('vq-theme', choice);
    else localStorage.removeItem('vq-theme');
    byId('theme').textContent = `Theme: ${choice ?? 'auto'}`;
    this.themeChanged();
  }

  private themeChanged() {
    const hostTheme = uiHost()?.theme?.current();
    document.documentElement.dataset.theme = this.themeChoice ?? hostTheme ?? (matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light');
    for (const s of SIDES) this.views[s].refreshTheme();
    this.version.refreshTheme();
    this.fusions.refresh();
    this.repaint();
    this.refreshDetail();
  }

  private repaint() {
    const c = this.comparison;
    const legend = byId('legend');
    document.body.dataset.overlay = this.overlay;
    if (!c) return;
    const overlay = OVERLAYS[this.overlay];
    const theme = this.theme();
    if (this.reportB) this.version.repaint(overlay, theme);
    // One counting rule, said in the legend: boxes drawn, per side (the summary counts entries).
    const counts = { float: new Map<string, number>(), quant: new Map<string, number>() };
    for (const side of SIDES) {
      const { paints, keys } = paintsFor(overlay, theme, c.nodes[side], c);
      this.views[side].setPaints(paints);
      this.views[side].setNodeData('overlay', keys);
      this.views[side].setNodeData('status', c.nodes[side].map((n) => n.status));
      for (const k of keys) counts[side].set(k, (counts[side].get(k) ?? 0) + 1);
    }
    const waiting = (this.overlay === 'heat' && !this.weights) || (this.overlay === 'lint' && !this.lint);
    const activation = this.overlay === 'activations' || this.overlay === 'activations-local';
    const notRun = activation && !c.activations;
    legend.replaceChildren(el('span', { class: 'legend-title', text: overlay.title }),
      ...(activation && c.activations?.synthetic ? [el('span', { class: 'legend-rule synthetic', text: 'synthetic inputs: directional only;' })] : []),
      ...(activation && c.activations && this.report && c.activations.report.quantized_model !== this.report.quant.file
        ? [el('span', { class: 'legend-rule synthetic', attrs: { 'data-field': 'what-if' }, text: `a what-if: ${c.activations.report.quantized_model};` })] : []),
      el('span', { class: 'legend-rule muted', text: `boxes drawn, ${this.report ? `${this.report.float.label} + ${this.report.quant.label}` : 'float + quantized'}:` }),
      ...(notRun ? [el('span', { class: 'muted', text: 'not run yet: run both models in the Activations tab' })]
        : waiting ? [el('span', { class: 'muted', text: 'analysing…' })] : overlay.legend(theme).map((item) => {
        const swatch = el('span', { class: 'swatch' });
        swatch.style.background = item.color;
        const [f, q] = SIDES.map((side) => counts[side].get(item.key) ?? 0);
        return el('span', { class: 'legend-item', attrs: { 'data-key': item.key, 'data-float': String(f), 'data-quant': String(q) } },
          swatch, `${item.label} (${f} + ${q})`);
      })));
  }

  private showBadgeTooltip(side: Side, edge: LayoutEdge | null, x: number, y: number) {
    const tip = byId('tooltip');
    if (!edge || !this.comparison) {
      tip.hidden = true;
      return;
    }
    const reader = this.comparison.nodes[side][edge.to];
    const q = reader?.logicalOp?.quantization?.inputs.filter((i) => i) ?? [];
    tip.replaceChildren(el('strong', { text: edge.badge ?? '' }),
      ...q.map((t) => el('div', { text: `${t!.type}, ${t!.granularity.replace('_', ' ')}: scale ${rangeText(t!.scale_range)}, zero point ${rangeText(t!.zero_point_range)}` })),
      el('div', { class: 'muted', text: (edge.badge_nodes ?? []).join(', ') }));
    tip.hidden = false;
    tip.style.left = `${Math.min(x + 14, window.innerWidth - tip.offsetWidth - 8)}px`;
    tip.style.top = `${y + 14}px`;
  }

  // ---- activations -------------------------------------------------------------------------------
  /** Runs the activation comparison of the open pair in the core (in the background: the page stays usable). */
  private async runActivations(params: ActivationParams, onProgress: (detail: string, fraction?: number) => void): Promise<string> {
    if (this.activationRequest !== null) throw new CoreRequestError('usage', 'an activation comparison is already running');
    // A three-way comparison runs version B on the same inputs after A (not a what-if: that is A's
    // own): the Versions tab then compares the two versions' activation error row by row.
    const withB = this.reportB !== null && !params.keepInFloat?.length;
    const filesB = withB ? params.files.map((f) => ({ name: f.name, bytes: f.bytes.slice(0) })) : [];
    const run = (p: ActivationParams, label: string) => {
      const request = this.core.request('activations', p, { transfer: p.files.map((f) => f.bytes), onProgress: (m) => onProgress(`${label}${m.detail}`, m.fraction) });
      this.activationRequest = request.id;
      return request.promise;
    };
    try {
      const text = (await run(params, withB ? 'version A: ' : '')).text;
      if (withB) {
        await run({ ...params, files: filesB, pair: 'B' }, 'version B: ');
        void this.loadThreeWay(this.opening, true);
      }
      return text;
    } catch (e) {
      this.showRestart(e, 'The activation comparison failed.');
      throw e;
    } finally {
      this.activationRequest = null;
    }
  }

  /** Runs the sensitivity sweep of the open pair in the core (in the background, as the activation comparison). */
  private async runSensitivity(params: SensitivityParams, onProgress: (detail: string, fraction?: number) => void): Promise<string> {
    if (this.sensitivityRequest !== null) throw new CoreRequestError('usage', 'a sensitivity sweep is already running');
    const request = this.core.request('sensitivity', params, { transfer: params.files.map((f) => f.bytes), onProgress: (p) => onProgress(p.detail, p.fraction) });
    this.sensitivityRequest = request.id;
    try {
      return (await request.promise).text;
    } catch (e) {
      this.showRestart(e, 'The sensitivity sweep failed.');
      throw e;
    } finally {
      this.sensitivityRequest = null;
    }
  }

  // ---- weights and export ------------------------------------------------------------------------
  private async loadWeights(info: NodeInfo, host: HTMLElement) {
    const c = this.comparison!;
    const invalid = c.weightLayer(info) ? null : c.invalidWeight(info);
    if (invalid) {
      // Not analysed, and said so: numbers made from parameters that break the spec would be invented.
      host.replaceChildren(el('p', { class: 'muted', text: 'Not analysed: the quantized weight\'s quantization parameters break the spec.' }),
        el('ul', { class: 'violations' }, ...invalid.violations.map((v) => el('li', { text: v.message }))));
      host.dataset.loaded = 'true';
      return;
    }
    const layer = c.weightLayer(info);
    const entry = c.entry(info.entry);
    const nodeId = layer?.quant_node ?? entry?.quant_ops[0] ?? info.node.id;
    try {
      const detail = await this.core.request('weightLayer', { nodeId, bins: uiHost()?.options?.bins ?? 48 }).promise;
      if (!host.isConnected) return;
      const { renderWeightCharts } = await import('./ui/weight_chart');
      if (!host.isConnected) return;
      await renderWeightCharts(host, detail);
      host.dataset.loaded = 'true';
    } catch (e) {
      this.showRestart(e, 'The weight analysis failed.');
      if (!host.isConnected) return;
      const text = e instanceof CoreRequestError && e.code === 'not_found' ? 'This op has no quantized weight to compare.' : `Weight analysis failed: ${e instanceof Error ? e.message : String(e)}`;
      host.replaceChildren(el('p', { class: 'muted', text }));
    }
  }

  /**
   * After an error: when it says the core's wasm instance failed and was replaced (`restarted`), the
   * pair the core held is gone, so what needs it (layouts, views, groups, exports) stops until the
   * models are opened again. Returns what the error shown adds about it.
   */
  private coreRestarted(e: unknown): string {
    if (!(e instanceof CoreRequestError && e.restarted) || !this.report) return '';
    this.report = null;
    return '. The comparison shown is closed: open the models again.';
  }

  /** A lazy request (a node's detail, a layer's charts) failed with the core's instance: says so where everyone sees it. */
  private showRestart(e: unknown, what: string) {
    if (e instanceof CoreRequestError && e.restarted && this.report) this.showError(`${what} ${describeError(e)}${this.coreRestarted(e)}`, e.code);
  }

  private showError(text: string, code = 'error') {
    const box = byId('error');
    box.dataset.code = code;
    box.replaceChildren(el('span', { text }), (() => {
      const b = el('button', { class: 'close', text: '×', attrs: { type: 'button', 'aria-label': 'Dismiss' } });
      b.addEventListener('click', () => this.hideError());
      return b;
    })());
    box.hidden = false;
  }

  private hideError() {
    byId('error').hidden = true;
  }
}


/** Marks a stage of opening a pair on the page's performance timeline ("vq:aligned"), for the page benchmark's breakdown. */
function mark(stage: string) {
  performance.mark(`vq:${stage}`);
}

function isCancel(e: unknown): boolean {
  return (e instanceof CoreRequestError && e.code === 'cancelled') || (e instanceof DOMException && e.name === 'AbortError');
}

function rangeText(r: [number, number] | null): string {
  if (!r) return '–';
  return r[0] === r[1] ? String(Number(r[0].toPrecision(4))) : `${Number(r[0].toPrecision(4))} … ${Number(r[1].toPrecision(4))}`;
}

new App();
