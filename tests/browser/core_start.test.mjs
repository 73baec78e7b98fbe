// How the page starts its core (web/src/worker/core_module.ts, page_core.ts): the wasm is fetched
// once, by the page, compiled there while the worker's script loads, and handed to the worker,
// whose URL carries the hash that makes it wait for the module instead of fetching its own. A page
// that stopped handing it over would fetch the 3 MB module a second time, from the worker, after
// its script had loaded: a quarter of a small pair's time to the first drawing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertClean, newPage, pairUrl, useBrowser, waitDrawn } from './harness.mjs';

const env = useBrowser();

test('the core\'s wasm is fetched once, by the page, and its worker gets it compiled', async () => {
  const page = await newPage(env.browser.context);
  const wasmFetches = [];
  // The context sees the requests of the page and of its workers alike.
  const onRequest = (request) => {
    if (new URL(request.url()).pathname.endsWith('/visualquant_core.wasm')) wasmFetches.push(request.url());
  };
  env.browser.context.on('request', onRequest);
  try {
    await page.goto(env.server.url + pairUrl('ort_qdq_cnn_uint8'));
    await waitDrawn(page);
    const workers = page.workers().map((w) => w.url());
    assert.ok(workers.some((url) => url.endsWith('worker.js#compiled-core')), `the core's worker waits for the page's module: ${workers.join(', ')}`);
    assert.equal(wasmFetches.length, 1, `one fetch of the wasm: ${wasmFetches.join(', ')}`);
    // Compiled on the page: a WebAssembly.Module came to the worker (it says 'ready' only after
    // instantiating one; without it the page's first request would still be waiting).
    const marks = await page.evaluate(() => performance.getEntriesByType('mark').map((m) => m.name));
    for (const mark of ['vq:core-starting', 'vq:core-ready', 'vq:drawn']) assert.ok(marks.includes(mark), `${mark} in ${marks.join(', ')}`);
    await assertClean(page);
  } finally {
    env.browser.context.off('request', onRequest);
    await page.close();
  }
});
