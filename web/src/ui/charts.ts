// uPlot, loaded on first use (in its own chunk, with the charts that use it), and the one way every
// chart of the page is drawn: a captioned figure, the theme's colours, no drag-zoom.
import { el, fmt } from './dom';

const importUPlot = () => import('uplot').then((m) => m.default);
export type UPlot = Awaited<ReturnType<typeof importUPlot>>;
export type Series = import('uplot').Series;
let uplot: Promise<UPlot> | null = null;
export const loadUPlot = () => (uplot ??= importUPlot());

export interface Palette { text: string; grid: string; float: string; quant: string; error: string }

export function palette(host: HTMLElement): Palette {
  const css = getComputedStyle(host);
  const v = (n: string) => css.getPropertyValue(n).trim();
  return { text: v('--text-muted'), grid: v('--grid'), float: v('--chart-float'), quant: v('--chart-quant'), error: v('--chart-error') };
}

/** One chart in a captioned figure: x values, then one data array per series. Returns the plot. */
export function chart(uPlot: UPlot, host: HTMLElement, c: Palette, spec: {
  name: string; caption: string; xLabel: string; yLabel: string; height: number; fromZero?: boolean;
  x: number[]; series: Array<Series & { data: Array<number | null> }>;
  /** How x values read on the axis and in the legend (default: fmt). */
  xValue?: (v: number | null) => string;
  /** Drawn over the plot after each redraw (marks, bounds), in uPlot's canvas context. */
  draw?: (u: InstanceType<UPlot>) => void;
  /** x values are positions (ranks): ticks only at whole numbers, and a margin of half a slot each side. */
  xIntegers?: boolean;
}): InstanceType<UPlot> {
  const figure = el('figure', { class: 'chart', attrs: { 'data-chart': spec.name } }, el('figcaption', { text: spec.caption }));
  host.append(figure);
  const axis = { stroke: c.text, grid: { stroke: c.grid, width: 1 }, ticks: { stroke: c.grid, width: 1 }, font: '11px system-ui, sans-serif',
    labelFont: '11px system-ui, sans-serif', labelSize: 16 };
  return new uPlot({
    width: Math.max(Math.floor(host.getBoundingClientRect().width) - 4, 240),
    height: spec.height,
    scales: { x: { time: false, ...(spec.xIntegers ? { range: (_u: unknown, min: number, max: number) => [min - 0.5, max + 0.5] as [number, number] } : {}) },
      ...(spec.fromZero ? { y: { range: (_u: unknown, _min: number, max: number) => [0, max * 1.05 || 1] as [number, number] } } : {}) },
    axes: [{ ...axis, label: spec.xLabel, ...(spec.xIntegers ? { incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000] } : {}) },
      { ...axis, label: spec.yLabel, size: 52 }],
    cursor: { drag: { x: false, y: false } },
    ...(spec.draw ? { hooks: { draw: [spec.draw] } } : {}),
    series: [{ label: spec.xLabel, value: (_u: unknown, v: number | null) => (spec.xValue ?? fmt)(v) }, ...spec.series.map(({ data: _data, ...s }) => ({ points: { show: false }, ...s }))],
  }, [spec.x, ...spec.series.map((s) => s.data)], figure);
}

