// Weight charts of one layer, with uPlot (loaded on first use, in its own chunk): the float and
// dequantised histograms on shared bins, and the error per output channel.
import type { WeightLayer } from '../protocol/messages';
import { el, fmt } from './dom';

type UPlotModule = typeof import('uplot');
let uplot: Promise<UPlotModule> | null = null;
const loadUPlot = () => (uplot ??= import('uplot').then((m) => (m as unknown as { default: UPlotModule }).default ?? m));

function colors(host: HTMLElement) {
  const css = getComputedStyle(host);
  const v = (n: string) => css.getPropertyValue(n).trim();
  return { text: v('--text-muted'), grid: v('--grid'), float: v('--chart-float'), quant: v('--chart-quant'), error: v('--chart-error') };
}

function axes(c: ReturnType<typeof colors>, xLabel: string, yLabel: string) {
  const axis = { stroke: c.text, grid: { stroke: c.grid, width: 1 }, ticks: { stroke: c.grid, width: 1 }, font: '11px system-ui, sans-serif', labelFont: '11px system-ui, sans-serif' };
  return [{ ...axis, label: xLabel, labelSize: 16 }, { ...axis, label: yLabel, labelSize: 16, size: 48 }];
}

/** Draws the layer's charts into `host` (replacing what was there). */
export async function renderWeightCharts(host: HTMLElement, layer: WeightLayer): Promise<void> {
  const uPlot = await loadUPlot();
  const width = Math.max(Math.floor(host.getBoundingClientRect().width) - 4, 240);
  const c = colors(host);
  host.replaceChildren();

  const h = layer.histogram;
  const centres = h.float.map((_, i) => (h.edges[i] + h.edges[i + 1]) / 2);
  const histBox = el('figure', { class: 'chart', attrs: { 'data-chart': 'histogram' } },
    el('figcaption', { text: `Float vs dequantised values (${h.float.length} bins)` }));
  host.append(histBox);
  const stepped = uPlot.paths.stepped!({ align: 1 });
  new uPlot({
    width, height: 170,
    scales: { x: { time: false }, y: { range: (_u, _min, max) => [0, max * 1.05 || 1] } },
    axes: axes(c, 'value', 'count') as never,
    cursor: { drag: { x: false, y: false } },
    series: [
      { label: 'value', value: (_u, v) => fmt(v) },
      { label: 'float', stroke: c.float, fill: `${c.float}33`, width: 1.5, paths: stepped, points: { show: false } },
      { label: 'dequantised', stroke: c.quant, fill: `${c.quant}33`, width: 1.5, paths: stepped, points: { show: false } },
    ],
  }, [centres, h.float, h.dequantized], histBox);

  const sqnr = layer.channels.sqnr_db;
  if (sqnr && sqnr.length > 0) {
    const channels = sqnr.map((_, i) => i);
    const chBox = el('figure', { class: 'chart', attrs: { 'data-chart': 'channels' } },
      el('figcaption', { text: `Error per output channel (${sqnr.length} channels; SQNR, higher is better)` }));
    host.append(chBox);
    const bars = uPlot.paths.bars!({ size: [0.8, 12] });
    new uPlot({
      width, height: 150,
      scales: { x: { time: false } },
      axes: axes(c, 'channel', 'SQNR dB') as never,
      cursor: { drag: { x: false, y: false } },
      series: [
        { label: 'channel' },
        { label: 'SQNR dB', stroke: c.error, fill: `${c.error}99`, paths: bars, points: { show: false }, value: (_u, v) => (v === null ? '∞' : v.toFixed(1)) },
      ],
    }, [channels, sqnr.map((v) => (v === null ? null : v))], chBox);
  } else {
    host.append(el('p', { class: 'muted', text: 'One scale for the whole tensor: no per-channel series.' }));
  }

  // Quantiles of both sides.
  const keys = Object.keys(layer.float.quantiles);
  const table = el('table', { class: 'quantiles' },
    el('thead', {}, el('tr', {}, el('th', { text: 'quantile' }), el('th', { class: 'num', text: 'float' }), el('th', { class: 'num', text: 'dequantised' }))),
    el('tbody', {}, ...keys.map((k) => el('tr', {}, el('td', { text: k }), el('td', { class: 'num', text: fmt(layer.float.quantiles[k], 4) }),
      el('td', { class: 'num', text: fmt(layer.dequantized.quantiles[k], 4) })))));
  host.append(el('details', {}, el('summary', { text: 'Quantiles' }), table));
}
