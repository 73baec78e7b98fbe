// Weight charts of one layer, with uPlot (loaded on first use, in its own chunk): the float and
// dequantised histograms on shared bins, the integer codes used, and per output channel the error
// (SQNR) and the quantization step and zero point. A quantile table follows.
import type { TensorQuantization, WeightLayer } from '../protocol/messages';
import { chart, loadUPlot, palette } from './charts';
import { el, fmt } from './dom';

/**
 * A per-channel weight's scales and zero points as the compare report lists them, along the channel
 * axis (the quantization section of the detail panel; `host` is replaced).
 */
export async function renderQuantParams(host: HTMLElement, q: TensorQuantization): Promise<void> {
  const uPlot = await loadUPlot();
  if (!host.isConnected) return;
  const c = palette(host);
  host.replaceChildren();
  const plot = (name: string, caption: string, label: string, data: number[], color: string) => chart(uPlot, host, c, {
    name, caption, xLabel: `channel (axis ${q.axis})`, yLabel: label, height: 110, x: data.map((_, i) => i),
    series: [{ label, stroke: color, width: 1.5, data, points: { show: true, size: 5 }, value: (_u, v) => fmt(v, 4) }],
  });
  if (q.scales) plot('quant-scales', `Scale per channel (${q.scales.length} channels)`, 'scale', q.scales, c.float);
  if (q.zero_points) plot('quant-zero-points', 'Zero point per channel', 'zero point', q.zero_points, c.quant);
  host.dataset.loaded = 'true';
}

/** Draws the layer's charts into `host` (replacing what was there). */
export async function renderWeightCharts(host: HTMLElement, layer: WeightLayer): Promise<void> {
  const uPlot = await loadUPlot();
  const c = palette(host);
  host.replaceChildren();
  const stepped = uPlot.paths.stepped!({ align: 1 });
  const bars = uPlot.paths.bars!({ size: [0.8, 12] });

  // Layers come from weightLayer(), which always has the detail; a summary layer has no histogram.
  const h = layer.histogram;
  if (h) chart(uPlot, host, c, {
    name: 'histogram', caption: `Float vs dequantised values (${h.float.length} bins)`, xLabel: 'value', yLabel: 'count', height: 170, fromZero: true,
    x: h.float.map((_, i) => (h.edges[i] + h.edges[i + 1]) / 2),
    series: [
      { label: 'float', stroke: c.float, fill: `${c.float}33`, width: 1.5, paths: stepped, data: h.float },
      { label: 'dequantised', stroke: c.quant, fill: `${c.quant}33`, width: 1.5, paths: stepped, data: h.dequantized },
    ],
  });

  const codes = layer.codes;
  if (codes?.counts && codes.counts.length > 0) {
    chart(uPlot, host, c, {
      name: 'codes', caption: `Integer codes used (${codes.type}: ${codes.levels_used} of ${codes.levels_total} levels)`,
      xLabel: 'code', yLabel: 'count', height: 130, fromZero: true,
      x: codes.counts.map((_, i) => codes.qmin + i),
      series: [{ label: 'count', stroke: c.quant, fill: `${c.quant}99`, paths: bars, data: codes.counts }],
    });
  }

  const ch = layer.channels;
  const channels = (values: ArrayLike<unknown>) => Array.from(values, (_, i) => i);
  if (ch.sqnr_db && ch.sqnr_db.length > 0) {
    chart(uPlot, host, c, {
      name: 'channels', caption: `Error per output channel (${ch.sqnr_db.length} channels; SQNR, higher is better)`,
      xLabel: 'channel', yLabel: 'SQNR dB', height: 150, x: channels(ch.sqnr_db),
      series: [{ label: 'SQNR dB', stroke: c.error, width: 1.5, data: ch.sqnr_db, points: { show: ch.sqnr_db.length <= 64, size: 4 },
        value: (_u, v) => (v === null ? '–' : v.toFixed(1)) }],
    });
  } else {
    host.append(el('p', { class: 'muted', text: 'One scale for the whole tensor: no per-channel series.' }));
  }
  if (ch.step && ch.step.length > 1) {
    const zp = ch.zero_point;
    const constantZp = !zp || new Set(zp).size <= 1;
    const perChannel = (name: string, caption: string, label: string, data: number[], color: string) => chart(uPlot, host, c, {
      name, caption, xLabel: 'channel', yLabel: label, height: 120, x: channels(data),
      series: [{ label, stroke: color, width: 1.5, data, points: { show: data.length <= 64, size: 4 }, value: (_u, v) => fmt(v, 4) }],
    });
    perChannel('scales', `Quantization step (scale) per channel${constantZp && zp ? `; zero point ${fmt(zp[0])} throughout` : ''}`, 'step', ch.step, c.float);
    if (!constantZp) perChannel('zero-points', 'Zero point per channel', 'zero point', zp!, c.quant);
  }

  // A layer's detail has them (weightLayer); a summary's layer does not.
  const floatQuantiles = layer.float.quantiles, quantQuantiles = layer.dequantized.quantiles;
  if (!floatQuantiles || !quantQuantiles) return;
  const table = el('table', { class: 'quantiles' },
    el('thead', {}, el('tr', {}, el('th', { text: 'quantile' }), el('th', { class: 'num', text: 'float' }), el('th', { class: 'num', text: 'dequantised' }))),
    el('tbody', {}, ...Object.keys(floatQuantiles).map((k) => el('tr', {}, el('td', { text: k }), el('td', { class: 'num', text: fmt(floatQuantiles[k], 4) }),
      el('td', { class: 'num', text: fmt(quantQuantiles[k], 4) })))));
  host.append(el('details', {}, el('summary', { text: 'Quantiles' }), table));
}
