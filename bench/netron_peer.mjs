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
    createReadStream(file, { highWaterMark: 1 << 20 }).pipe(res);  // as web/serve.mjs serves ours
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({
    url: `http://127.0.0.1:${server.address().port}/`,
    stop: () => new Promise((done) => server.close(() => done())),
  })));
}

// Logs `vq-bench-<name> <ms>` at the second animation frame after each of `tests` (name: test)
// first holds. Times are from navigation; with `afterFile`, from the last change of a file input
// (the files given to a page already open), and a test counts only once it has failed since then
// (the page leaves the state it was in before the files came).
function probe(tests, { afterFile = false } = {}) {
  return `(() => {
    const tests = { ${Object.entries(tests).map(([name, test]) => `${JSON.stringify(name)}: ${test}`).join(', ')} };
    const afterFile = ${afterFile};
    let start = afterFile ? null : 0;
    const pending = new Set(Object.keys(tests)), armed = new Set();
    const check = () => {
      if (!document.body || start === null) return;
      for (const name of [...pending]) {
        const holds = tests[name]();
        if (!holds) { armed.add(name); continue; }
        if (afterFile && !armed.has(name)) continue;
        pending.delete(name);
        requestAnimationFrame(() => requestAnimationFrame(() => console.log('vq-bench-' + name + ' ' + (performance.now() - start))));
      }
    };
    document.addEventListener('change', (e) => {
      if (!afterFile || !(e.target instanceof HTMLInputElement) || e.target.type !== 'file') return;
      start = performance.now();
      check();
    }, true);
    const watch = () => {
      check();
      new MutationObserver(check).observe(document.documentElement, { subtree: true, attributes: true, attributeFilter: ['class', 'data-state'] });
    };
    if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', watch); else watch();
  })();`;
}
const NETRON = { drawn: "() => document.body.classList.contains('default')" };
const PAGE = { drawn: "() => ['drawn', 'ready'].includes(document.body.dataset.state)", analysed: "() => document.body.dataset.state === 'ready'" };

/**
 * Seconds to each of the probe's moments ({ drawn, analysed? }), in a fresh browser; a moment not
 * reached within `timeoutMs` (or when the renderer died: Netron runs out of memory on a
 * 20,000-node graph) is null. `give(page)`, when given, hands the page its files once it has loaded.
 */
async function timed(url, names, script, { cookieUrl = null, timeoutMs = 120000, give = null } = {}) {
  const browser = await launchBrowser();
  try {
    if (cookieUrl) await browser.context.addCookies([{ name: 'consent', value: 'yes', url: cookieUrl }]);
    const page = await newPage(browser.context);
    await page.addInitScript({ content: script });
    const times = Object.fromEntries(names.map((n) => [n, null]));
    const done = new Promise((resolve) => {
      page.on('console', (m) => {
        const hit = /^vq-bench-(\w+) (\S+)$/.exec(m.text());
        if (!hit || !(hit[1] in times)) return;
        times[hit[1]] = Number(hit[2]) / 1000;
        if (Object.values(times).every((t) => t !== null)) resolve();
      });
      page.on('crash', () => resolve());
      setTimeout(resolve, timeoutMs);
    });
    await page.goto(url, { waitUntil: give ? 'load' : 'commit' }).catch(() => {});
    if (give) await give(page).catch(() => {});
    await done;
    return times;
  } finally {
    await browser.close().catch(() => {});
  }
}

/** Netron drawing one model (`modelUrl` relative to its server), in a fresh browser: { drawn }. */
export function netronDrawn(server, modelUrl, options = {}) {
  return timed(`${server.url}index.html?url=${encodeURIComponent(modelUrl)}`, ['drawn'], probe(NETRON), { ...options, cookieUrl: server.url });
}

// Netron draws every node: our page is asked to open every group too (?groups=open), as a stack of
// layers would otherwise open closed, on its layers (web/src/model/groups.ts), and draw less.
const WHOLE = 'groups=open';

/** Our page drawing a pair from `?float=&quant=` URLs, in a fresh browser, measured as Netron is: { drawn, analysed }. */
export function pageDrawn(server, floatUrl, quantUrl, options = {}) {
  return timed(`${server.url}?float=${encodeURIComponent(floatUrl)}&quant=${encodeURIComponent(quantUrl)}&${WHOLE}`, ['drawn', 'analysed'], probe(PAGE), options);
}

// An open page has been open a while before the user has picked the files: both get the same time
// to finish starting (ours: its core's worker and warm-up; Netron: its scripts) before they come.
const SETTLE_MS = 2000;

/** Netron, open on its start page, given one model file (its Open dialog's input): { drawn } from the file's arrival. */
export function netronGiven(server, file, options = {}) {
  return timed(`${server.url}index.html`, ['drawn'], probe(NETRON, { afterFile: true }), {
    ...options, cookieUrl: server.url, give: async (page) => {
      await page.waitForTimeout(SETTLE_MS);
      await page.setInputFiles('#open-file-dialog', file);
    },
  });
}

/** Our page, open without models, given both files (the float one, then the quantized one, from which it is timed): { drawn, analysed }. */
export function pageGiven(server, floatFile, quantFile, options = {}) {
  return timed(`${server.url}?${WHOLE}`, ['drawn', 'analysed'], probe(PAGE, { afterFile: true }), {
    ...options,
    give: async (page) => {
      await page.waitForTimeout(SETTLE_MS);
      await page.setInputFiles('#file-float', floatFile);
      await page.setInputFiles('#file-quant', quantFile);
    },
  });
}
