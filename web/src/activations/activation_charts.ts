// The activation comparison's charts, with uPlot (loaded with the other charts, on first use): the
// error along the model's depth (accumulated, and made here), and one compared tensor's values
// (float against quantized on shared bins) and error per channel.
import type { ActivationPoint } from '../protocol/messages';
import { chart, loadUPlot, palette, type UPlot } from '../ui/charts';
import { fmt } from '../ui/dom';

/**
 * The output quantizer on a histogram: its clip bounds (dashed), and its grid of representable
 * values where the steps are at least 6 px apart (an int8 grid over a narrow range would be a smear).
 */
function drawQuantizer(u: InstanceType<UPlot>, q: NonNullable<ActivationPoint['output_quantizer']>, bound: string, grid: string) {
  const ctx = u.ctx;
  const { left, top, width, height } = u.bbox;
  const x = (v: number) => u.valToPos(v, 'x', true);
  ctx.save();
  ctx.beginPath();
  ctx.rect(left, top, width, height);
  ctx.clip();
  const step = Math.abs(x(q.scale) - x(0));
  if (step >= 6 * devicePixelRatio && Number.isFinite(step)) {
    ctx.strokeStyle = grid;
    ctx.lineWidth = 1;
    const [lo, hi] = [u.scales.x.min ?? q.low, u.scales.x.max ?? q.high];
    const first = Math.max(q.qmin, Math.ceil(lo / q.scale + q.zero_point)), last = Math.min(q.qmax, Math.floor(hi / q.scale + q.zero_point));
    ctx.beginPath();
    for (let code = first; code <= last; code++) {
      const px = x((code - q.zero_point) * q.scale);
      ctx.moveTo(px, top);
      ctx.lineTo(px, top + height);
    }
    ctx.stroke();
  }
  ctx.strokeStyle = bound;
  ctx.lineWidth = 1.5 * devicePixelRatio;
  ctx.setLineDash([5 * devicePixelRatio, 4 * devicePixelRatio]);
  ctx.beginPath();
  for (const v of [q.low, q.high]) {
    const px = x(v);
    ctx.moveTo(px, top);
    ctx.lineTo(px, top + height);
  }
  ctx.stroke();
  ctx.restore();
}

const dbValue = (_u: unknown, v: number | null) => (v === null ? '–' : `${v.toFixed(1)} dB`);

/**
 * SQNR against depth, one point per compared tensor in the quantized model's order: where the
 * accumulated line falls is where the output's error grows; where the local line is low, it is made.
 * Clicking the chart selects the tensor under the cursor.
 */
export async function renderErrorChart(host: HTMLElement, points: ActivationPoint[], hasLocal: boolean, onPick: (p: ActivationPoint) => void): Promise<void> {
  const uPlot = await loadUPlot();
  if (!host.isConnected) return;
  const c = palette(host);
  host.replaceChildren();
  const names = points.map((p) => p.quant_nodes.join(' + ') || p.quantized_tensor);
  const series = [
    { label: 'accumulated', stroke: c.error, width: 1.5, data: points.map((p) => p.accumulated.sqnr_db), points: { show: points.length <= 80, size: 4 }, value: dbValue },
    ...(hasLocal ? [{ label: 'made here (local)', stroke: c.float, width: 1, dash: [4, 3], data: points.map((p) => p.local?.sqnr_db ?? null),
      points: { show: points.length <= 80, size: 3 }, value: dbValue }] : []),
  ];
  const plot = chart(uPlot, host, c, {
    name: 'activation-error', caption: `SQNR of each compared tensor, inputs to outputs (${points.length} tensors; higher is better; a gap: no error)`,
    xLabel: 'depth', yLabel: 'SQNR dB', height: 180, x: points.map((_, i) => i), series,
    xValue: (v) => (v === null ? '' : `${v}: ${names[v] ?? ''}`),
  });
  plot.over.addEventListener('click', () => {
    const i = plot.cursor.idx;
    if (i !== null && i !== undefined && points[i]) onPick(points[i]);
  });
  host.dataset.loaded = 'true';
}

/** One compared tensor: its values' histogram (float against quantized), and its SQNR per channel. */
export async function renderPointCharts(host: HTMLElement, p: ActivationPoint): Promise<void> {
  const uPlot = await loadUPlot();
  if (!host.isConnected) return;
  const c = palette(host);
  host.replaceChildren();
  const h = p.histogram;
  if (h && h.float.length > 0) {
    const width = (h.hi - h.lo) / h.float.length;
    const stepped = uPlot.paths.stepped!({ align: 1 });
    const outside = h.float_outside.below + h.float_outside.above + h.quantized_outside.below + h.quantized_outside.above;
    const q = p.output_quantizer;
    chart(uPlot, host, c, {
      name: 'activation-histogram',
      caption: `Float vs quantized values (${h.float.length} shared bins${outside ? `; ${outside} values outside them` : ''})` +
        (q ? `; dashed: the output quantizer's range, ${fmt(q.low, 4)} … ${fmt(q.high, 4)}` : ''),
      draw: q ? (u) => drawQuantizer(u, q, c.error, c.grid) : undefined,
      xLabel: 'value', yLabel: 'count', height: 160, fromZero: true, x: h.float.map((_, i) => h.lo + (i + 0.5) * width),
      series: [
        { label: 'float', stroke: c.float, fill: `${c.float}33`, width: 1.5, paths: stepped, data: h.float },
        { label: 'quantized', stroke: c.quant, fill: `${c.quant}33`, width: 1.5, paths: stepped, data: h.quantized },
      ],
    });
  }
  const ch = p.channels;
  if (ch && ch.sqnr_db.length > 1) {
    chart(uPlot, host, c, {
      name: 'activation-channels', caption: `SQNR per channel (axis ${ch.axis}, ${ch.sqnr_db.length} channels${ch.worst ? `; worst: ${ch.worst.index}` : ''})`,
      xLabel: 'channel', yLabel: 'SQNR dB', height: 130, x: ch.sqnr_db.map((_, i) => i),
      series: [{ label: 'SQNR', stroke: c.error, width: 1.5, data: ch.sqnr_db, points: { show: ch.sqnr_db.length <= 64, size: 4 }, value: dbValue }],
    });
  }
  host.dataset.loaded = 'true';
}
