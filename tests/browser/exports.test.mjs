// The SVG and HTML exports in Chromium, with the pair whose names are HTML and script payloads: the
// SVG holds both graphs as shown with every model string as text; the HTML report is one file that
// opens offline (no request leaves it), carries a CSP that allows no script, shows the payloads as
// text and runs nothing.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { assertClean, clickNode, exportGraphs, generatePair, launchBrowser, newPage, screenshot, startServer, waitDrawn } from './harness.mjs';

const CONV = '<script>window.__pwned=1;alert(1)</script>';
const RELU = '<img src=x onerror="window.__pwned=2;alert(2)">';
const OUT = '"><svg onload="window.__pwned=3;alert(3)">';
const IN = '<iframe src=javascript:alert(4)>';
let server, browser, payloadDir, outDir;

before(async () => {
  payloadDir = generatePair('make_payload_pair.py', 'vq-payload-');
  outDir = mkdtempSync(path.join(tmpdir(), 'vq-exports-'));
  server = await startServer([['/payload/', payloadDir]]);
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.stop();
  for (const d of [payloadDir, outDir]) if (d) rmSync(d, { recursive: true, force: true });
});

async function openPayloadPair() {
  const page = await newPage(browser.context);
  await page.goto(`${server.url}?float=payload/float.onnx&quant=payload/quant.onnx`);
  await waitDrawn(page);
  await clickNode(page, 'float', CONV);
  return page;
}

/** Exports the graphs in `format` (as in view) and keeps the file under `name` (its extension gives file:// its type). */
async function exported(page, format, name) {
  const download = await exportGraphs(page, format);
  const file = path.join(outDir, name);
  copyFileSync(await download.path(), file);
  return file;
}

/** Opens an exported file in a fresh page that refuses every request but the file's own, and lists what was asked. */
async function openOffline(file) {
  const page = await newPage(browser.context);
  const requests = [];
  const own = pathToFileURL(file).href;
  await page.route('**/*', (route) => {
    const url = route.request().url();
    if (url === own) return route.continue();
    requests.push(url);
    return route.abort();
  });
  await page.goto(own);
  return { page, requests };
}

/** What a script would have left: a global, a dialog, elements that run or load things. */
function injected(page) {
  return page.evaluate(() => ({
    pwned: window.__pwned ?? null,
    active: document.querySelectorAll('script, iframe, img, object, embed, foreignObject').length,
    handlers: [...document.querySelectorAll('*')].filter((e) => [...e.attributes].some((a) => a.name.startsWith('on'))).length,
  }));
}

test('SVG of the view: both graphs as shown, every model string as text, nothing runs', async () => {
  const page = await openPayloadPair();
  const file = await exported(page, 'svg', 'view.svg');
  const text = readFileSync(file, 'utf8');
  assert.match(text, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
  // The nodes each view has in sight, as the page's node list places them.
  const inSight = await page.evaluate(() => ['float', 'quant'].map((side) => {
    const host = document.getElementById(`graph-${side}`);
    const [s, tx, ty] = host.querySelector('.graph-canvas').dataset.transform.split(' ').map(Number);
    const r = host.querySelector('.graph-canvas').getBoundingClientRect();
    return [...host.querySelectorAll('.node-list li')].filter((li) => {
      const x = Number(li.dataset.x), y = Number(li.dataset.y), w = Number(li.dataset.w), h = Number(li.dataset.h);
      return (x + w / 2) * s + tx >= 0 && (x - w / 2) * s + tx <= r.width && (y + h / 2) * s + ty >= 0 && (y - h / 2) * s + ty <= r.height;
    }).map((li) => li.dataset.id).sort();
  }));
  await page.close();

  const { page: view, requests } = await openOffline(file);
  const svg = await view.evaluate(() => {
    const panes = [...document.documentElement.children].filter((e) => e.tagName === 'g');
    return {
      titles: panes.map((g) => g.querySelector(':scope > text').textContent),
      nodes: panes.map((g) => [...g.querySelectorAll('g.node > title')].map((t) => t.textContent).sort()),
      labels: [...document.querySelectorAll('g.node text')].map((t) => t.textContent),
    };
  });
  assert.deepEqual(svg.titles, ['Float: float.onnx (match status)', 'Quantized · QDQ: quant.onnx (match status)']);
  assert.deepEqual(svg.nodes, inSight, 'each pane holds the nodes in view');
  for (const name of [CONV, RELU]) assert.ok(svg.nodes.flat().includes(name), `${name} as text`);
  for (const label of [IN, OUT]) assert.ok(svg.labels.includes(label), `${label} drawn as text`);
  assert.deepEqual(await injected(view), { pwned: null, active: 0, handlers: 0 });
  assert.deepEqual(requests, []);
  await screenshot(view, '27-export-svg');
  await assertClean(view);
  await view.close();
});

test('HTML report: one file that opens offline, a CSP with no script, model strings as text, the graphs inside', async () => {
  const page = await openPayloadPair();
  const file = await exported(page, 'html', 'report.html');
  await page.close();
  const html = readFileSync(file, 'utf8');
  assert.match(html, /<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">/);
  assert.doesNotMatch(html, /<script|<img|<iframe/i);

  const { page: report, requests } = await openOffline(file);
  const seen = await report.evaluate(() => ({
    csp: document.querySelector('meta[http-equiv="Content-Security-Policy"]').content,
    h1: document.querySelector('h1').textContent,
    cells: [...document.querySelectorAll('td')].map((td) => td.textContent),
    svgs: document.querySelectorAll('.graphs > svg').length,
    svgTitles: [...document.querySelectorAll('svg title')].map((t) => t.textContent),
  }));
  assert.equal(seen.csp, "default-src 'none'; style-src 'unsafe-inline'");
  assert.equal(seen.h1, 'Quantization report: float.onnx and quant.onnx');
  assert.ok(seen.cells.includes(CONV), 'the payload node name in the layer table, as text');
  assert.equal(seen.svgs, 1, 'both graphs, as one SVG');
  assert.ok(seen.svgTitles.includes(CONV), 'the graphs carry the names as text');
  assert.deepEqual(await injected(report), { pwned: null, active: 0, handlers: 0 });
  assert.deepEqual(requests, [], 'nothing fetched: the report is self-contained');
  await screenshot(report, '28-export-html');
  await assertClean(report);
  await report.close();
});
