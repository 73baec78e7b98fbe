// The page's Content-Security-Policy as served: the <meta> tag of index.html and the header of
// web/serve.mjs (which also covers the worker and the wasm). Both refuse form submissions
// (form-action 'none'); the header also refuses framing by any page (frame-ancestors 'none', which a
// <meta> tag cannot carry). Scripts stay 'self' plus 'wasm-unsafe-eval' for the core, never
// 'unsafe-eval', and nothing comes from another origin.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertClean, newPage, screenshot, useBrowser } from './harness.mjs';

const env = useBrowser([]);

/** A policy as a map: directive -> its sources. */
function directives(policy) {
  return new Map(policy.split(';').map((d) => d.trim()).filter(Boolean).map((d) => {
    const [name, ...sources] = d.split(/\s+/);
    return [name, sources];
  }));
}

function assertStrict(policy, where) {
  const d = directives(policy);
  assert.deepEqual(d.get('script-src'), ["'self'", "'wasm-unsafe-eval'"], where);
  assert.deepEqual(d.get('form-action'), ["'none'"], where);
  assert.deepEqual(d.get('object-src'), ["'none'"], where);
  assert.deepEqual(d.get('base-uri'), ["'none'"], where);
  assert.doesNotMatch(policy, /'unsafe-eval'|'unsafe-inline'/, where);
  // Only the page's own origin, and data:/blob: images: no remote source, no wildcard.
  for (const [name, sources] of d) {
    for (const s of sources) assert.ok(["'self'", "'none'", "'wasm-unsafe-eval'", 'data:', 'blob:'].includes(s), `${where}: ${name} ${s}`);
  }
  return d;
}

test('the served page and its worker carry form-action \'none\', the header frame-ancestors \'none\' too', async () => {
  const page = await newPage(env.browser.context);
  const response = await page.goto(env.server.url);
  const meta = await page.getAttribute('meta[http-equiv="Content-Security-Policy"]', 'content');
  assert.equal(directives(meta).has('frame-ancestors'), false, 'frame-ancestors is ignored in a <meta> tag: the header has it');
  assertStrict(meta, 'meta');
  for (const [what, r] of [['page', response], ['worker', await page.request.get(`${env.server.url}worker.js`)]]) {
    const header = r.headers()['content-security-policy'];
    assert.ok(header, `${what}: a Content-Security-Policy header`);
    assert.deepEqual(assertStrict(header, `${what} header`).get('frame-ancestors'), ["'none'"]);
  }
  await screenshot(page, 'csp-01-page');
  await assertClean(page);
  await page.close();
});

test('a form on the page cannot submit, and no page can frame it', async () => {
  const page = await newPage(env.browser.context);
  await page.goto(env.server.url);
  // A form injected into the page (what a markup injection would try) is refused by form-action.
  const blocked = await page.evaluate(() => new Promise((resolve) => {
    document.addEventListener('securitypolicyviolation', (e) => resolve(e.violatedDirective), { once: true });
    const form = document.createElement('form');
    form.action = '/elsewhere';
    form.method = 'get';
    document.body.append(form);
    form.submit();
  }));
  assert.equal(blocked, 'form-action');
  assert.equal(new URL(page.url()).pathname, '/', 'still on the page');
  // A page that frames it gets Chromium's error page in the frame, not the page.
  const framer = await newPage(env.browser.context);
  // setContent returns once the frame has loaded too (the load event waits for it).
  await framer.setContent(`<iframe src="${env.server.url}" width="400" height="300"></iframe>`);
  const frame = framer.frames().find((f) => f !== framer.mainFrame());
  assert.ok(frame, 'the iframe');
  assert.equal(frame.url(), 'chrome-error://chromewebdata/', 'Chromium refused to load the page in the frame');
  assert.equal(await frame.$('#file-float').catch(() => null), null, 'the page is not drawn inside the frame');
  await screenshot(framer, 'csp-02-framed');
  await framer.close();
  await page.close();
});
