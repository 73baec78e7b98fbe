// Both graphs as they are shown, side by side under their title lines, as one PNG (the canvases'
// pixels, at the screen's resolution).
import { EXPORT_HEAD, EXPORT_GAP, type PageChrome } from './svg';

export async function viewsPng(panes: Array<{ title: string; canvas: HTMLCanvasElement }>, chrome: PageChrome): Promise<Blob | null> {
  const dpr = window.devicePixelRatio || 1;
  const head = Math.round(EXPORT_HEAD * dpr), gap = Math.round(EXPORT_GAP * dpr);
  const out = document.createElement('canvas');
  out.width = panes.reduce((w, p) => w + p.canvas.width, 0) + gap * Math.max(panes.length - 1, 0);
  out.height = head + Math.max(...panes.map((p) => p.canvas.height));
  const ctx = out.getContext('2d')!;
  ctx.fillStyle = chrome.border;
  ctx.fillRect(0, 0, out.width, out.height);
  let x = 0;
  for (const { title, canvas } of panes) {
    ctx.fillStyle = chrome.panel;
    ctx.fillRect(x, 0, canvas.width, head - gap);
    ctx.fillStyle = chrome.text;
    ctx.font = `600 ${13 * dpr}px system-ui, sans-serif`;
    ctx.textBaseline = 'middle';
    ctx.fillText(title, x + 10 * dpr, (head - gap) / 2, canvas.width - 20 * dpr);
    ctx.drawImage(canvas, x, head);
    x += canvas.width + gap;
  }
  return new Promise<Blob | null>((resolve) => out.toBlob(resolve, 'image/png'));
}
