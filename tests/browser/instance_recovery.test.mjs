// The page after files that fail the core's wasm instance (tests/node/instance_recovery.test.mjs has
// the wrapper's side): the worker replaces the instance, each file gets a clear error that names it
// and says the core was restarted (not "the browser ran out of memory"), and the example pair then
// opens and is drawn. Real failures, no mock: the recursive model (a stack overflow until the core
// refused it cleanly; either passes), and a real wasm trap, the core's test hook, run by a worker
// bundled with one addition (tests/node/trap_worker.mjs): opening a file named trap* runs it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { trapWorkerSource } from '../node/trap_worker.mjs';
import { assertClean, cliCompare, newPage, root, screenshot, useBrowser, waitDrawn } from './harness.mjs';

const env = useBrowser([]);
const example = (f) => path.join(root, 'examples', f);
const reference = cliCompare(example('float.onnx'), example('quant_qdq.onnx'));
const recursive = readFileSync(path.join(root, 'tests/fixtures/malformed/recursive_function.onnx'));
const escaped = (name) => name.replace(/\./g, '\\.');

/** The page, with the example's quantized model picked; with `trapWorker`, its worker is the test bundle. */
async function openPage(trapWorker = false) {
  const page = await newPage(env.browser.context);
  if (trapWorker) {
    const source = await trapWorkerSource('web');
    // The served worker's headers (its CSP) with the test bundle's text.
    await page.route('**/worker.js', async (route) => route.fulfill({ response: await route.fetch(), body: source }));
  }
  await page.goto(env.server.url);
  await page.setInputFiles('#file-quant', example('quant_qdq.onnx'));
  return page;
}

/** Opens `bytes` as the float model and returns the error shown, once it names `name`. */
async function openBad(page, name, bytes) {
  await page.setInputFiles('#file-float', { name, mimeType: 'application/octet-stream', buffer: bytes });
  await page.waitForFunction((name) => {
    const box = document.getElementById('error');
    return !box.hidden && box.textContent.includes(name);
  }, name, { timeout: 60000 });
  return { code: await page.getAttribute('#error', 'data-code'), text: await page.textContent('#error') };
}

/** The error of a file on which the instance failed: it names the file and says the core was restarted. */
function assertRestarted({ code, text }, name) {
  assert.equal(code, 'core_failed', text);
  assert.match(text, new RegExp(`^Could not open ${escaped(name)} and quant_qdq\\.onnx\\. `));
  assert.match(text, /internal failure on this model, and its core has been restarted \[core_failed\]: RuntimeError: unreachable/);
  assert.match(text, new RegExp(`while loading ${escaped(name)} and quant_qdq\\.onnx`));
  assert.doesNotMatch(text, /ran out of memory/);
}

async function assertExampleDrawn(page) {
  await page.setInputFiles('#file-float', example('float.onnx'));
  await waitDrawn(page);
  assert.equal(await page.isHidden('#error'), true);
  assert.equal(await page.textContent('#name-float'), 'float.onnx');
  assert.equal(await page.textContent('#name-quant'), 'quant_qdq.onnx');
  assert.match(await page.textContent('#summary'), new RegExp(`^${reference.summary.entries} matches`));
  for (const side of ['float', 'quant']) {
    const ids = await page.$$eval(`#graph-${side} li[data-id]`, (lis) => lis.map((li) => li.dataset.id));
    for (const op of reference.logical_graphs[side]) assert.ok(ids.includes(op.op), `${side}: ${op.op} drawn`);
  }
}

test('the recursive model five times, each a clear error naming it, then the example pair opens and is drawn', async () => {
  const page = await openPage();
  for (let i = 1; i <= 5; i++) {
    const name = `recursive_function_${i}.onnx`;
    const shown = await openBad(page, name, recursive);
    // The core's own refusal, or (before it refused) the instance failing: either names the file.
    if (shown.code !== 'core_failed') {
      assert.ok(!['out_of_memory', 'internal', 'transport'].includes(shown.code), shown.text);
      assert.match(shown.text, new RegExp(`^Could not open ${escaped(name)} and quant_qdq\\.onnx\\. .*\\[${shown.code}\\]`));
    }
    if (i === 1) await screenshot(page, 'recovery-01-recursive-error');
  }
  await assertExampleDrawn(page);
  await screenshot(page, 'recovery-02-example-after-recursive');
  await assertClean(page);
  await page.close();
});

test('a file that traps the instance, five times, each a clear error naming it (the pair shown is closed); then the example pair opens', async () => {
  const page = await openPage(true);
  await assertExampleDrawn(page);
  for (let i = 1; i <= 5; i++) {
    const name = `trap_${i}.onnx`;
    const shown = await openBad(page, name, recursive);
    assertRestarted(shown, name);
    // The first time, the example pair was on screen: the page says that comparison is closed.
    if (i === 1) {
      assert.match(shown.text, /quant_qdq\.onnx\. The comparison shown is closed: open the models again\./);
      await screenshot(page, 'recovery-03-trap-error');
    }
  }
  await assertExampleDrawn(page);
  await screenshot(page, 'recovery-04-example-after-traps');
  await assertClean(page);
  await page.close();
});
