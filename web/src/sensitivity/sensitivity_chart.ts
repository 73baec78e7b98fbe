// The sensitivity chart, with uPlot (loaded on first use): per entry, best first, the output SQNR
// gained when it is kept in float, and, when the sweep split them, when only its weights or only its
// activations are. An entry that gives back the float model exactly is drawn at the top of the
// scale and marked so in the legend. Clicking a bar selects the entry in both graphs.
import type { SensitivityEntry } from 'visualquant-core';
import { chart, loadUPlot, palette } from '../ui/charts';
import { entryLabel, gainOf, PARTS, type Part } from './sensitivity_model';

const LABELS: Record<Part, string> = { both: 'kept in float', weights: 'weights only', activations: 'activations only' };

export async function renderSensitivityChart(host: HTMLElement, entries: SensitivityEntry[], split: boolean, onPick: (e: SensitivityEntry) => void): Promise<void> {
  const uPlot = await loadUPlot();
  if (!host.isConnected) return;
  const c = palette(host);
  host.replaceChildren();
  const shown = entries.slice(0, 60);
  const parts = split ? PARTS : (['both'] as Part[]);
  let top = 0;
  for (const e of shown)
    for (const p of parts) {
      const g = gainOf(e.keep_in_float[p]);
      if (typeof g === 'number') top = Math.max(top, g);
    }
  const exactAt = top > 0 ? top * 1.15 : 1;
  const bars = uPlot.paths.bars!({ size: [0.6, 48] });
  const colours: Record<Part, string> = { both: c.error, weights: c.quant, activations: c.float };
  const plot = chart(uPlot, host, c, {
    name: 'sensitivity',
    caption: `Output SQNR gained with each entry kept in float, best first (${shown.length} of ${entries.length} entries; ` +
      `purple bars: weights and activations in float${split ? '; orange points: only its weights; blue points: only its activations' : ''}; ` +
      'a bar above the others: the float model\'s outputs exactly; hover for the entry)',
    xLabel: 'rank', yLabel: 'gain dB', height: 190, x: shown.map((_, i) => i + 1), xIntegers: true,
    xValue: (v) => (v === null || !shown[v - 1] ? '' : `${v}: entry ${shown[v - 1].entry}, ${entryLabel(shown[v - 1])}`),
    series: parts.map((p) => ({
      label: LABELS[p], stroke: colours[p], width: p === 'both' ? 1 : 0,
      ...(p === 'both' ? { fill: `${colours[p]}99`, paths: bars } : { paths: () => null, points: { show: true, size: 7, fill: colours[p] } }),
      data: shown.map((e) => {
        const g = gainOf(e.keep_in_float[p]);
        return g === 'exact' ? exactAt : g;
      }),
      value: (_u: unknown, v: number | null) => (v === null ? '–' : v === exactAt ? 'exact' : `${v.toFixed(2)} dB`),
    })),
  });
  plot.over.addEventListener('click', () => {
    const i = plot.cursor.idx;  // the data index: rank - 1
    if (i !== null && i !== undefined && shown[i]) onPick(shown[i]);
  });
  host.dataset.loaded = 'true';
}
