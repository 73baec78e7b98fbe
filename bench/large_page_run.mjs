// One whole comparison of a large pair in the web page, in Debian's Chromium (the browser tests'
// harness), by one of the page's two routes:
//   url    the page opened with `?float=&quant=&data=&data=` URLs on web/serve.mjs, which answers
//          byte ranges, so the core's worker reads the data files a weight at a time;
//   given  the page opened empty, then the data files, the float and the quantized model given to
//          its file pickers (as a user picks them: the worker reads the files' slices with
//          FileReaderSync; the browser is handed the paths, nothing is copied).
// Waits (up to an hour) for the drawn pair and then the weights and lint, sampling the summed PSS of
// every Chromium process of the run's profile. Prints one JSON line: seconds to drawn and to
// analysed (from navigation for `url`, from the first file given for `given`), the peak PSS, and
// whether the page stayed clean (no CSP violation, dialog, error); a screenshot of the analysed page
// goes to tests/out/browser/large-pair-ROUTE.png.
//   node bench/large_page_run.mjs FOLDER [url|given]   (FOLDER holds float.onnx, quant.onnx and their data files)
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { memorySampler } from './chromium_memory.mjs';
import { launchBrowser, newPage, screenshot, startServer } from '../tests/browser/harness.mjs';

const [folder, route = 'url'] = process.argv.slice(2);
if (!['url', 'given'].includes(route)) throw new Error(`unknown route ${route} (url or given)`);
const HOUR = 3600 * 1000;
const server = await startServer([['/pair/', folder]]);
const browser = await launchBrowser();
try {
  const page = await newPage(browser.context);
  const dataFiles = readdirSync(folder).filter((f) => !f.endsWith('.onnx'));
  const memory = memorySampler();
  let start = 0;
  if (route === 'url') {
    const data = dataFiles.map((f) => `&data=pair/${encodeURIComponent(f)}`).join('');
    await page.goto(`${server.url}?float=pair/float.onnx&quant=pair/quant.onnx${data}`);
  } else {
    await page.goto(server.url);
    start = await page.evaluate(() => performance.now() / 1000);
    await page.setInputFiles('#file-external', dataFiles.map((f) => path.join(folder, f)));
    await page.setInputFiles('#file-float', path.join(folder, 'float.onnx'));
    await page.setInputFiles('#file-quant', path.join(folder, 'quant.onnx'));
  }
  const state = (want) => page.waitForFunction((w) => w.includes(document.body.dataset.state), want, { timeout: HOUR, polling: 500 });
  await state(['drawn', 'ready', 'error']);
  const drawn = await page.evaluate(() => performance.now() / 1000) - start;
  await state(['ready', 'error']);
  const analysed = await page.evaluate(() => performance.now() / 1000) - start;
  const peaks = memory.stop();
  const failed = await page.evaluate(() => (document.body.dataset.state === 'error' ? document.body.innerText.slice(0, 2000) : null));
  await screenshot(page, `large-pair-${route}`);
  const problems = await page.problems();
  console.error(`page: stages ${await page.evaluate(() => performance.getEntriesByType('mark').filter((m) => m.name.startsWith('vq:'))
    .map((m) => `${m.name.slice(3)} ${(m.startTime / 1000).toFixed(1)}`).join(', '))}`);
  console.log(JSON.stringify({
    route, drawn_s: drawn, analysed_s: analysed, peak_pss_bytes: peaks.peakPss, peak_pss_by_kind: peaks.peakPssByKind, peak_pss_at_s: peaks.peakAt, hwm_sum_bytes: peaks.hwm,
    clean: !failed && Object.values(problems).every((list) => list.length === 0), failed, problems,
  }));
} finally {
  await browser.close();
  await server.stop();
}
