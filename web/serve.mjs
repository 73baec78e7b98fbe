// A tiny static file server for the web page, on 127.0.0.1 only: web/dist at /, and optionally the
// two models (and their external-data files) under /models/. No logic beyond serving files.
//   node web/serve.mjs [--port N] [--root DIR] [--float FILE --quant FILE] [--data FILE]... [--mount /prefix/=DIR]...
// Prints the page's URL (with ?float=&quant= when models are given) and serves until stopped.
import { createServer } from 'node:http';
import { createReadStream, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

// Models are read from disk in 1 MiB pieces: with Node's default of 64 KiB the server, not the
// browser, set the pace (about 200 MB/s here against 600 MB/s), and a page opening two 80 MB
// models waited on it. bench/netron_peer.mjs serves Netron's models the same way.
const READ_CHUNK = 1 << 20;

const web = path.dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const all = (name) => args.flatMap((a, i) => (a === name && i + 1 < args.length ? [args[i + 1]] : []));
const one = (name, fallback) => all(name).at(-1) ?? fallback;

const root = path.resolve(one('--root', path.join(web, 'dist')));
const files = new Map();  // URL path -> file
const mounts = [];        // [URL prefix, folder]
const query = [];  // [key, URL path] pairs, printed as ?float=...&quant=...&data=...
for (const [flag, key] of [['--float', 'float'], ['--quant', 'quant']]) {
  const f = one(flag);
  if (!f) continue;
  const url = `/models/${key}/${encodeURIComponent(path.basename(f))}`;
  files.set(url, path.resolve(f));
  query.push([key, url.slice(1)]);
}
for (const f of all('--data')) {
  const url = `/models/data/${encodeURIComponent(path.basename(f))}`;
  files.set(url, path.resolve(f));
  query.push(['data', url.slice(1)]);
}
for (const m of all('--mount')) {
  const at = m.indexOf('=');
  mounts.push([m.slice(0, at), realpathSync(path.resolve(m.slice(at + 1)))]);
}
mounts.push(['/', realpathSync(root)]);
if (query.filter(([k]) => k !== 'data').length === 1) {
  console.error('serve: give both --float and --quant');
  process.exit(2);
}

const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8', '.wasm': 'application/wasm', '.json': 'application/json', '.map': 'application/json',
  '.txt': 'text/plain; charset=utf-8', '.png': 'image/png', '.svg': 'image/svg+xml',
};
// The page's own policy (its <meta> tag in src/index.html), and frame-ancestors, which only a header
// can carry: no other site may frame the page (clickjacking). The header also covers the worker.
const CSP = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; worker-src 'self'; style-src 'self'; img-src 'self' data: blob:; " +
  "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

// The file a URL path names, or null: only inside a mounted folder (no '..', no symbolic link out).
function resolve(urlPath) {
  if (files.has(urlPath)) return files.get(urlPath);
  let decoded;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return null;
  }
  if (decoded.includes('\0')) return null;
  for (const [prefix, dir] of mounts) {
    if (!decoded.startsWith(prefix)) continue;
    const rel = decoded.slice(prefix.length) || 'index.html';
    const file = path.resolve(dir, rel);
    if (!file.startsWith(dir + path.sep)) return null;
    try {
      const real = realpathSync(file);
      if (!real.startsWith(dir + path.sep)) return null;
      return statSync(real).isDirectory() ? path.join(real, 'index.html') : real;
    } catch {
      continue;
    }
  }
  return null;
}

const server = createServer((req, res) => {
  const headers = { 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff', 'Content-Security-Policy': CSP, 'Referrer-Policy': 'no-referrer' };
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.writeHead(405, headers).end();
    return;
  }
  const file = resolve(new URL(req.url, 'http://127.0.0.1').pathname);
  let size;
  try {
    size = file && statSync(file).isFile() ? statSync(file).size : -1;
  } catch {
    size = -1;
  }
  if (size < 0) {
    res.writeHead(404, { ...headers, 'Content-Type': 'text/plain; charset=utf-8' }).end('not found\n');
    return;
  }
  const type = TYPES[path.extname(file)] ?? 'application/octet-stream';
  // One byte range (RFC 9110): the page reads a large model's external-data files a weight at a
  // time, never whole. Anything else in a Range header is answered with the whole file.
  const range = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '');
  if (range) {
    const start = Number(range[1]);
    const end = Math.min(range[2] === '' ? size - 1 : Number(range[2]), size - 1);
    if (start >= size || end < start) {
      res.writeHead(416, { ...headers, 'Content-Range': `bytes */${size}` }).end();
      return;
    }
    res.writeHead(206, { ...headers, 'Content-Type': type, 'Content-Length': end - start + 1, 'Content-Range': `bytes ${start}-${end}/${size}`, 'Accept-Ranges': 'bytes' });
    if (req.method === 'HEAD') res.end();
    else createReadStream(file, { start, end, highWaterMark: READ_CHUNK }).pipe(res);
    return;
  }
  res.writeHead(200, { ...headers, 'Content-Type': type, 'Content-Length': size, 'Accept-Ranges': 'bytes' });
  if (req.method === 'HEAD') res.end();
  else createReadStream(file, { highWaterMark: READ_CHUNK }).pipe(res);
});

function listen(port) {
  server.once('error', (e) => {
    if (e.code === 'EADDRINUSE' && port !== 0 && !all('--port').length) listen(0);
    else {
      console.error(`serve: ${e.message}`);
      process.exit(1);
    }
  });
  server.listen(port, '127.0.0.1', () => {
    const { port: actual } = server.address();
    const q = query.map(([k, v]) => `${k}=${v.replace(/[&#%+ ]/g, encodeURIComponent)}`).join('&');
    console.log(`VisualQuantization web UI: http://127.0.0.1:${actual}/${q ? `?${q}` : ''}`);
    console.log('(serving on 127.0.0.1 only; Ctrl+C stops)');
  });
}
listen(Number(one('--port', '8417')));
for (const s of ['SIGINT', 'SIGTERM']) process.on(s, () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
