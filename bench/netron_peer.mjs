// The page's peer, Netron 9.2.1 (an unmodified copy of its source/ in ../shared/peers/netron, for
// measurement only: nothing of it is part of the product), opening one model in Chromium, and the
// same "drawn" moment measured on our page. Both are timed the same way: from navigation to the
// second animation frame after the page says it has drawn (Netron: <body> gets class `default`
// once its SVG is laid out and shown; ours: body[data-state] becomes `drawn`), read by an init
// script that logs it (Netron replaces window.eval, which breaks page.evaluate).
import { createServer } from 'node:http';
import { createReadStream, existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchBrowser, newPage } from '../tests/browser/harness.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));

/** Netron's source/ folder, or null when the peer is not there (the bench then says so and skips it). */
export function netronSource() {
  const dir = path.resolve(here, '../../shared/peers/netron/source');
  return existsSync(path.join(dir, 'index.html')) ? dir : null;
}

const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.mjs': 'text/javascript', '.json': 'application/json', '.css': 'text/css',
  '.svg': 'image/svg+xml', '.png': 'image/png', '.ico': 'image/x-icon', '.woff': 'font/woff', '.woff2': 'font/woff2' };

/** A static server on 127.0.0.1: Netron's files at /, `mounts` ([prefix, folder]) beside them. */
export function startStatic(root, mounts = []) {
  const server = createServer((req, res) => {
    const url = new URL(req.url, 'http://127.0.0.1');
    const pathname = decodeURIComponent(url.pathname);
    let file = null;
    for (const [prefix, dir] of mounts) if (pathname.startsWith(prefix)) file = path.join(dir, pathname.slice(prefix.length));
    if (!file) file = path.join(root, pathname === '/' ? 'index.html' : pathname);
    const base = file.startsWith(root) ? root : mounts.map(([, d]) => d).find((d) => file.startsWith(d));
    if (!base || !existsSync(file) || !statSync(file).isFile()) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream', 'content-length': statSync(file).size });
    createReadStream(file).pipe(res);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({
    url: `http://127.0.0.1:${server.address().port}/`,
    stop: () => new Promise((done) => server.close(() => done())),
  })));
}

// Logs `vq-bench-drawn <ms since navigation>` at the second animation frame after `drawn()` holds.
function drawnProbe(drawnTest) {
  return `(() => {
    const drawn = ${drawnTest};
    const check = () => {
      if (!document.body || !drawn()) return false;
      requestAnimationFrame(() => requestAnimationFrame(() => console.log('vq-bench-drawn ' + performance.now())));
      return true;
    };
    const watch = () => {
      if (check()) return;
      const o = new MutationObserver(() => { if (check()) o.disconnect(); });
      o.observe(document.documentElement, { subtree: true, attributes: true, attributeFilter: ['class', 'data-state'] });
    };
    if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', watch); else watch();
  })();`;
}
const NETRON_DRAWN = "() => document.body.classList.contains('default')";
const PAGE_DRAWN = "() => ['drawn', 'ready'].includes(document.body.dataset.state)";

// Seconds from navigation to drawn, in a fresh browser; null when not drawn within `timeoutMs` (or
// the renderer died: Netron runs out of memory on a 20,000-node graph).
async function timedDrawn(url, probe, { cookieUrl = null, timeoutMs = 120000 } = {}) {
  const browser = await launchBrowser();
  try {
    if (cookieUrl) await browser.context.addCookies([{ name: 'consent', value: 'yes', url: cookieUrl }]);
    const page = await newPage(browser.context);
    await page.addInitScript({ content: probe });
    const seen = new Promise((resolve) => {
      page.on('console', (m) => {
        const hit = /^vq-bench-drawn (\S+)$/.exec(m.text());
        if (hit) resolve(Number(hit[1]) / 1000);
      });
      page.on('crash', () => resolve(null));
      setTimeout(() => resolve(null), timeoutMs);
    });
    await page.goto(url).catch(() => {});
    return await seen;
  } finally {
    await browser.close().catch(() => {});
  }
}

/** Netron drawing one model (`modelUrl` relative to its server), in a fresh browser. */
export function netronDrawn(server, modelUrl, options = {}) {
  return timedDrawn(`${server.url}index.html?url=${encodeURIComponent(modelUrl)}`, drawnProbe(NETRON_DRAWN), { ...options, cookieUrl: server.url });
}

/** Our page drawing a pair from `?float=&quant=` URLs, in a fresh browser, measured as Netron is. */
export function pageDrawn(server, floatUrl, quantUrl, options = {}) {
  return timedDrawn(`${server.url}?float=${encodeURIComponent(floatUrl)}&quant=${encodeURIComponent(quantUrl)}`, drawnProbe(PAGE_DRAWN), options);
}
