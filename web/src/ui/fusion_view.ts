// The Fusions tab: every fusion group of the compare report (pattern, verification, detail) in a
// list; the one picked is drawn small, the fused float ops with their edges on the left and the
// quantized op they became on the right, under its verification result, and is selected in the
// main graphs. Every model string goes onto the canvas with fillText or into the DOM as text.
import { fusionGraph } from '../model/fusion_graph';
import type { CompareReport, FusionGroup } from '../protocol/messages';
import { el } from './dom';
import { themeOf } from './graph_view';
import { OVERLAYS, textOn, type ThemeName } from './overlays';

const FONT = '11px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
const NODE_H = 22, ROW_GAP = 16, COL_GAP = 8, ARROW = 70, PAD = 10;

export class FusionView {
  private report: CompareReport | null = null;
  private selected: number | null = null;
  private readonly tbody: HTMLTableSectionElement;
  private readonly canvas: HTMLCanvasElement;
  private readonly caption: HTMLElement;

  constructor(table: HTMLTableElement, private readonly detail: HTMLElement, private readonly count: HTMLElement,
              private readonly onSelect: (fusion: FusionGroup) => void) {
    table.replaceChildren(el('thead', {}, el('tr', {}, ...['Pattern', 'Float ops', 'Became', 'Verification', 'Detail'].map((t) => el('th', { text: t, attrs: { scope: 'col' } })))),
      (this.tbody = el('tbody')));
    this.canvas = el('canvas', { class: 'fusion-canvas', attrs: { role: 'img', 'aria-label': 'The fused float ops and the quantized op they became' } });
    this.caption = el('div', { class: 'fusion-caption' });
    detail.replaceChildren(el('p', { class: 'muted', text: 'Pick a fusion to see the float subgraph and what it became.' }));
  }

  setReport(report: CompareReport | null): void {
    this.report = report;
    this.selected = null;
    const fusions = report?.fusions ?? [];
    this.count.textContent = String(fusions.length);
    this.tbody.replaceChildren(...fusions.map((f, k) => {
      // The quantized op(s) the fusion became, without the Q/DQ nodes that the fusion also lists.
      const became = (report!.mapping[f.entry]?.quant_ops ?? f.quant).join(', ');
      const tr = el('tr', { attrs: { tabindex: '0', 'data-index': String(k), 'data-entry': String(f.entry), 'aria-selected': 'false' } },
        el('td', { text: f.pattern }), el('td', { class: 'num', text: String(f.float.length) }), el('td', { text: became, title: became }),
        el('td', {}, el('span', { class: `verification v-${f.verification}`, text: f.verification })),
        el('td', { text: f.detail, title: f.detail }));
      tr.addEventListener('click', () => this.pick(k));
      tr.addEventListener('keydown', (e) => {
        if (e.key === 'Enter' || e.key === ' ') {
          e.preventDefault();
          this.pick(k);
        }
      });
      return tr;
    }));
    if (!fusions.length) this.tbody.append(el('tr', {}, el('td', { class: 'muted', text: 'No fusion between these models.', attrs: { colspan: '5' } })));
  }

  /** Shows the fusion of a mapping entry (the main graphs' selection), without selecting it again. */
  showEntry(entry: number | null): void {
    const k = entry === null ? -1 : this.report?.fusions.findIndex((f) => f.entry === entry) ?? -1;
    this.show(k >= 0 ? k : null);
  }

  /** Draws the picked fusion again (after a theme change). */
  refresh(): void {
    this.show(this.selected);
  }

  private pick(k: number) {
    this.show(k);
    this.onSelect(this.report!.fusions[k]);
  }

  private show(k: number | null) {
    this.selected = k;
    for (const row of this.tbody.rows) row.setAttribute('aria-selected', String(row.dataset.index === String(k)));
    const f = k === null ? null : this.report?.fusions[k];
    if (!f || !this.report) return;
    this.tbody.rows[k!]?.scrollIntoView({ block: 'nearest' });
    const g = fusionGraph(this.report, f);
    this.caption.replaceChildren(
      el('div', {}, el('strong', { text: f.pattern }), ' ', el('span', { class: `verification v-${f.verification}`, text: f.verification, attrs: { 'data-field': 'verification' } })),
      el('p', { text: f.detail }),
      el('details', {}, el('summary', { text: `${g.float.length} float ops → ${g.quant.map((q) => q.op_type).join(', ')}` }),
        el('ul', { class: 'mono-list' }, ...g.float.map((op) => el('li', { text: `${op.op_type} ${op.op}` })), ...g.quant.map((op) => el('li', { text: `→ ${op.op_type} ${op.op}` })))));
    this.detail.replaceChildren(this.canvas, this.caption);
    this.draw(g, f.verification);
  }

  private draw(g: ReturnType<typeof fusionGraph>, verification: FusionGroup['verification']) {
    const theme = themeOf(this.canvas);
    const name: ThemeName = document.documentElement.dataset.theme === 'dark' ? 'dark' : 'light';
    const fill = OVERLAYS.status.legend(name).find((i) => i.key === 'fused')!.color;
    const ctx = this.canvas.getContext('2d')!;
    ctx.font = FONT;
    const width = (op: { op_type: string }) => Math.max(ctx.measureText(op.op_type).width + 14, 36);
    // Rows of the float subgraph, each centred in the float column.
    const rows: number[][] = [];
    g.layer.forEach((l, k) => (rows[l] ??= []).push(k));
    const rowWidth = (row: number[]) => row.reduce((s, k) => s + width(g.float[k]), 0) + COL_GAP * (row.length - 1);
    // Each column as wide as its widest box and its bold title; the arrow as its verification word.
    const boxesW = Math.max(...rows.map(rowWidth), 40), quantBoxesW = Math.max(...g.quant.map(width), 40);
    ctx.font = `600 ${FONT}`;
    const floatW = Math.max(boxesW, ctx.measureText('float').width + 2);
    const quantW = Math.max(quantBoxesW, ctx.measureText('quantized').width + 2);
    ctx.font = FONT;
    const arrowW = Math.max(ARROW, ctx.measureText(verification).width + 20);
    const height = Math.max(rows.length, g.quant.length) * (NODE_H + ROW_GAP) - ROW_GAP + 2 * PAD + 14;
    const cssW = PAD + floatW + arrowW + quantW + PAD;
    const pos = new Map<number, { x: number; y: number; w: number }>();
    rows.forEach((row, r) => {
      let x = PAD + (floatW - rowWidth(row)) / 2;
      for (const k of row) {
        const w = width(g.float[k]);
        pos.set(k, { x, y: PAD + 14 + r * (NODE_H + ROW_GAP), w });
        x += w + COL_GAP;
      }
    });
    const dpr = window.devicePixelRatio || 1;
    this.canvas.width = Math.round(cssW * dpr);
    this.canvas.height = Math.round(height * dpr);
    // The width only: the height follows the canvas's own aspect ratio when the panel is narrower.
    this.canvas.style.width = `${cssW}px`;
    this.canvas.dataset.nodes = String(g.float.length);
    this.canvas.dataset.edges = String(g.edges.length);
    this.canvas.dataset.quant = g.quant.map((q) => q.op).join('\n');
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.fillStyle = theme.background;
    ctx.fillRect(0, 0, cssW, height);
    ctx.font = FONT;
    ctx.strokeStyle = theme.edge;
    ctx.fillStyle = theme.edge;
    ctx.lineWidth = 1;
    for (const [a, b] of g.edges) {
      const p = pos.get(a)!, q = pos.get(b)!;
      arrow(ctx, p.x + p.w / 2, p.y + NODE_H, q.x + q.w / 2, q.y);
    }
    const box = (x: number, y: number, w: number, label: string, color: string) => {
      ctx.fillStyle = color;
      ctx.beginPath();
      ctx.roundRect(x, y, w, NODE_H, 4);
      ctx.fill();
      ctx.strokeStyle = theme.edge;
      ctx.stroke();
      ctx.fillStyle = textOn(color);
      ctx.textAlign = 'center';
      ctx.textBaseline = 'middle';
      ctx.fillText(label, x + w / 2, y + NODE_H / 2 + 0.5);
    };
    g.float.forEach((op, k) => {
      const p = pos.get(k)!;
      box(p.x, p.y, p.w, op.op_type, fill);
    });
    // The quantized op(s), middle right, with the arrow from the float subgraph labelled by the verification.
    const qx = PAD + floatW + arrowW;
    const qTop = PAD + 14 + (height - PAD - 14 - PAD - g.quant.length * (NODE_H + ROW_GAP) + ROW_GAP) / 2;
    g.quant.forEach((op, k) => box(qx, qTop + k * (NODE_H + ROW_GAP), width(op), op.op_type, fill));
    const midY = qTop + (g.quant.length * (NODE_H + ROW_GAP) - ROW_GAP) / 2;
    ctx.strokeStyle = verification === 'mismatch' ? '#dc2626' : theme.selection;
    ctx.fillStyle = ctx.strokeStyle;
    ctx.lineWidth = 2;
    arrow(ctx, PAD + floatW + 8, midY, qx - 4, midY);
    ctx.font = FONT;
    ctx.textAlign = 'center';
    ctx.textBaseline = 'bottom';
    ctx.fillText(verification, PAD + floatW + arrowW / 2, midY - 4);
    ctx.font = `600 ${FONT}`;
    ctx.textAlign = 'left';
    ctx.textBaseline = 'top';
    ctx.fillStyle = theme.groupText;
    ctx.fillText('float', PAD, 2);
    ctx.fillText('quantized', qx, 2);
  }
}

function arrow(ctx: CanvasRenderingContext2D, x0: number, y0: number, x1: number, y1: number) {
  ctx.beginPath();
  ctx.moveTo(x0, y0);
  ctx.lineTo(x1, y1);
  ctx.stroke();
  const a = Math.atan2(y1 - y0, x1 - x0), s = 5;
  ctx.beginPath();
  ctx.moveTo(x1, y1);
  ctx.lineTo(x1 - s * Math.cos(a - 0.5), y1 - s * Math.sin(a - 0.5));
  ctx.lineTo(x1 - s * Math.cos(a + 0.5), y1 - s * Math.sin(a + 0.5));
  ctx.closePath();
  ctx.fill();
}
