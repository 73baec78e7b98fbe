// End-to-end tests of the web page in Debian's Chromium (playwright-core), served by web/serve.mjs on
// 127.0.0.1: opening pairs (URL, file inputs), linked selection both ways, overlays, the raw view,
// weight charts, the layer table, exports against the CLI's report, injected model strings, bad
// files, cancel, and no CSP violation anywhere. Screenshots go to tests/out/browser/.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import {
  assertClean, cli, clickNode, cliCompare, exportGraphs, generatePair, launchBrowser, newPage, nodeInView, pairsDir, pairUrl, screenshot, selectedIds, startServer,
  waitDrawn, waitListed,
} from './harness.mjs';

const PAIR = 'torch_eager_ptq_cnn_perchannel';
const pairFile = (pair, f) => path.join(pairsDir, pair, f);

let server, browser, payloadDir, externalDir;
const reference = cliCompare(pairFile(PAIR, 'float.onnx'), pairFile(PAIR, 'quant.onnx'));

before(async () => {
  payloadDir = generatePair('make_payload_pair.py', 'vq-payload-');
  externalDir = generatePair('make_large_pair.py', 'vq-external-', 3, '--external');
  server = await startServer([['/models/', pairsDir], ['/payload/', payloadDir]]);
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.stop();
  for (const d of [payloadDir, externalDir]) if (d) rmSync(d, { recursive: true, force: true });
});

async function openPair(pair = PAIR) {
  const page = await newPage(browser.context);
  await page.goto(server.url + pairUrl(pair));
  await waitDrawn(page);
  return page;
}

// The first fused entry with two float ops for one quantized op: a Conv+BatchNormalization fold.
const fused = reference.mapping.find((e) => e.kind === 'fused' && e.float_ops.length >= 2 && e.quant_ops.length === 1);

test('the page carries the strict Content-Security-Policy', async () => {
  const page = await newPage(browser.context);
  await page.goto(server.url);
  const csp = await page.getAttribute('meta[http-equiv="Content-Security-Policy"]', 'content');
  assert.match(csp, /default-src 'self'/);
  assert.match(csp, /script-src 'self' 'wasm-unsafe-eval'(;|$)/);
  assert.doesNotMatch(csp, /'unsafe-eval'|'unsafe-inline'/);
  assert.match(csp, /object-src 'none'/);
  await screenshot(page, '01-welcome');
  await assertClean(page);
  await page.close();
});

test('opens a pair from ?float=&quant= and draws both graphs', async () => {
  const page = await openPair();
  for (const side of ['float', 'quant']) {
    const ids = await page.$$eval(`#graph-${side} li[data-id]`, (lis) => lis.map((li) => li.dataset.id));
    const opIds = reference.logical_graphs[side].map((op) => op.op);
    for (const id of opIds) assert.ok(ids.includes(id), `${side}: ${id} drawn`);
    const stats = await page.$eval(`#graph-${side} .graph-canvas`, (c) => c.dataset.transform);
    assert.ok(stats && Number(stats.split(' ')[0]) > 0);
  }
  assert.equal(await page.textContent('#name-float'), reference.float.file);
  assert.equal(await page.textContent('#name-quant'), reference.quant.file);
  assert.match(await page.textContent('#summary'), new RegExp(`${reference.summary.entries} matches`));
  await screenshot(page, '02-opened-status-overlay');
  await assertClean(page);
  await page.close();
});

test('clicking a float node selects its counterpart on the right, a fusion group whole (and the reverse)', async () => {
  assert.ok(fused, 'the pair has a fused entry');
  const page = await openPair();
  // Float BatchNormalization (fused into the quantized Conv): the whole group is selected on both sides.
  await clickNode(page, 'float', fused.float_ops[1]);
  assert.deepEqual(await selectedIds(page, 'quant'), [...fused.quant_ops].sort());
  const floatSelected = await selectedIds(page, 'float');
  for (const id of fused.float_ops) assert.ok(floatSelected.includes(id), `float ${id} selected with its group`);
  assert.deepEqual(JSON.parse(await page.getAttribute('#selection-status', 'data-quant')), fused.quant_ops);
  assert.equal(await page.getAttribute('#selection-status', 'data-kind'), 'fused');
  assert.equal(await page.textContent('#detail [data-field="kind"]'), 'fused');
  assert.equal(await page.textContent('#detail [data-field="confidence"]'), `${Math.round(fused.confidence * 100)} %`);
  const evidence = await page.$$eval('#detail [data-field="evidence"] li', (lis) => lis.map((li) => li.textContent));
  assert.deepEqual(evidence, fused.evidence);
  await screenshot(page, '03-selected-from-float');

  // The reverse: a quantized op selects its float counterpart(s).
  const renamed = reference.mapping.find((e) => e.float_ops.length === 1 && e.quant_ops.length === 1 && e.kind !== 'fused');
  await clickNode(page, 'quant', renamed.quant_ops[0]);
  assert.deepEqual(await selectedIds(page, 'float'), [...renamed.float_ops].sort());
  assert.deepEqual(await selectedIds(page, 'quant'), [...renamed.quant_ops].sort());
  assert.equal(await page.textContent('#detail [data-field="name"]'), renamed.quant_ops[0]);
  await screenshot(page, '04-selected-from-quant');

  // Clicking empty canvas clears the selection.
  const box = await page.locator('#graph-quant .graph-canvas').boundingBox();
  await page.mouse.click(box.x + 3, box.y + box.height - 3);
  assert.deepEqual(await selectedIds(page, 'float'), []);
  await assertClean(page);
  await page.close();
});

test('a counterpart scrolled out of view is brought into view', async () => {
  const page = await openPair();
  await page.uncheck('#link-views');
  // Zoom the quantized view in and away, then select from the float side.
  for (let i = 0; i < 6; i++) await page.locator('#graph-quant .graph-canvas').dispatchEvent('wheel', { deltaY: -300, ctrlKey: true });
  const last = reference.mapping.filter((e) => e.float_ops.length && e.quant_ops.length).at(-1);
  const zoomed = await page.getAttribute('#graph-quant .graph-canvas', 'data-transform');
  await clickNode(page, 'float', last.float_ops[0]);
  const visible = await nodeInView(page, 'quant', last.quant_ops[0]);
  assert.ok(visible, `quantized ${last.quant_ops[0]} visible (camera was ${zoomed})`);
  await assertClean(page);
  await page.close();
});

test('overlays switch: weight error heat, precision, lint, each with its legend', async () => {
  const page = await openPair();
  // The legend counts boxes drawn, per side, and says so: each count is the boxes of that colour.
  for (const overlay of ['status', 'heat', 'precision']) {
    await page.selectOption('#overlay', overlay);
    assert.equal(await page.textContent('#legend .legend-rule'), 'boxes drawn, float + quantized:');
    for (const item of await page.$$eval('#legend .legend-item', (items) => items.map((i) => ({ ...i.dataset, text: i.textContent })))) {
      for (const side of ['float', 'quant']) {
        const drawn = await page.$$eval(`#graph-${side} li[data-id]`, (lis, key) => lis.filter((li) => li.dataset.overlay === key).length, item.key);
        assert.equal(Number(item[side]), drawn, `${overlay} ${item.key} ${side}`);
      }
      assert.ok(item.text.endsWith(`(${item.float} + ${item.quant})`), item.text);
    }
  }
  const weightedQuant = new Set(reference.weights.layers.map((l) => l.quant_node));
  await page.selectOption('#overlay', 'heat');
  assert.equal(await page.textContent('#legend .legend-title'), 'Weight error (SQNR)');
  const heat = await page.$$eval('#graph-quant li[data-id]', (lis) => lis.map((li) => [li.dataset.id, li.dataset.overlay]));
  for (const [id, key] of heat) {
    if (weightedQuant.has(id)) assert.match(key, /^sqnr-/, `${id} coloured by its SQNR`);
    else assert.equal(key, 'none', `${id} has no weight`);
  }
  await screenshot(page, '05-overlay-heat');

  await page.selectOption('#overlay', 'precision');
  assert.equal(await page.textContent('#legend .legend-title'), 'Precision');
  const prec = Object.fromEntries(await page.$$eval('#graph-quant li[data-id]', (lis) => lis.map((li) => [li.dataset.id, li.dataset.overlay])));
  for (const op of reference.logical_graphs.quant.filter((o) => o.quantization?.weight)) assert.equal(prec[op.op], op.quantization.weight.type);
  const floatPrec = await page.$$eval('#graph-float li[data-kind="op"]', (lis) => [...new Set(lis.map((li) => li.dataset.overlay))]);
  assert.ok(floatPrec.every((k) => k === 'float32' || k === 'other'), floatPrec.join());
  await screenshot(page, '06-overlay-precision');

  await page.selectOption('#overlay', 'lint');
  assert.equal(await page.textContent('#legend .legend-title'), 'Lint findings');
  const lintKeys = Object.fromEntries(await page.$$eval('#graph-quant li[data-id]', (lis) => lis.map((li) => [li.dataset.id, li.dataset.overlay])));
  for (const f of reference.lint) {
    const op = reference.logical_graphs.quant.find((o) => o.nodes.includes(f.node) || o.op === f.node);
    if (op && lintKeys[op.op] !== undefined) assert.notEqual(lintKeys[op.op], 'none', `${f.node} has a ${f.severity}`);
  }
  await screenshot(page, '07-overlay-lint');

  await page.selectOption('#overlay', 'status');
  const status = Object.fromEntries(await page.$$eval('#graph-float li[data-kind="op"]', (lis) => lis.map((li) => [li.dataset.id, li.dataset.overlay])));
  for (const e of reference.mapping) for (const id of e.float_ops) if (status[id] !== undefined) assert.equal(status[id], e.kind);
  await assertClean(page);
  await page.close();
});

test('hovering a Q/DQ badge shows its precision and scale', async () => {
  const page = await openPair();
  // Where the page draws a badge (the middle of its edge's longest segment, as its node list says;
  // the page lays out with its measured label sizes), and that edge in the CLI's layout.
  const r = spawnSync(cli, ['layout', pairFile(PAIR, 'float.onnx'), pairFile(PAIR, 'quant.onnx'), '--json', '-'], { encoding: 'utf8', maxBuffer: 1 << 26 });
  assert.equal(r.status, 0, r.stderr);
  const quant = JSON.parse(r.stdout).quant;
  const drawn = await page.$eval('#graph-quant li[data-badges]', (li) => {
    const [badge, at, from] = li.dataset.badges.split('\n')[0].split('@');
    const [x, y] = at.split(',');
    return { badge, x, y, from, to: li.dataset.id };
  });
  const edge = quant.edges.find((e) => e.badge === drawn.badge && !e.stub && quant.nodes[e.from].id === drawn.from && quant.nodes[e.to].id === drawn.to);
  assert.ok(edge, `the badge ${drawn.badge} on ${drawn.from} → ${drawn.to}`);
  const at = await page.evaluate(([x, y]) => {
    const c = document.querySelector('#graph-quant .graph-canvas');
    const [s, tx, ty] = c.dataset.transform.split(' ').map(Number);
    const b = c.getBoundingClientRect();
    return { x: b.left + tx + x * s, y: b.top + ty + y * s };
  }, [Number(drawn.x), Number(drawn.y)]);
  await page.mouse.move(at.x, at.y);
  await page.waitForSelector('#tooltip:not([hidden])');
  const text = await page.textContent('#tooltip');
  assert.ok(text.startsWith(edge.badge), text);
  const reader = reference.logical_graphs.quant[quant.nodes[edge.to].op];
  const input = reader.quantization.inputs.find((i) => i);
  assert.ok(text.includes(`${input.type}, ${input.granularity.replace('_', ' ')}: scale`), text);
  for (const n of edge.badge_nodes) assert.ok(text.includes(n), `${n} in ${text}`);
  await screenshot(page, '08b-badge-tooltip');
  await page.mouse.move(at.x + 300, at.y + 300);
  await assertClean(page);
  await page.close();
});

test('the raw graph toggle draws Q/DQ nodes, and back', async () => {
  const page = await openPair();
  const count = () => page.$$eval('#graph-quant li[data-id]', (lis) => lis.length);
  const folded = await count();
  const fusedNode = fused.float_ops[0];
  await clickNode(page, 'float', fusedNode);
  await page.check('#raw-view');
  await waitListed(page, (n) => document.querySelectorAll('#graph-quant li[data-id]').length > n, folded);
  const labels = await page.$$eval('#graph-quant li[data-id]', (lis) => lis.map((li) => li.textContent));
  assert.ok(labels.some((l) => l.startsWith('QuantizeLinear')), 'QuantizeLinear drawn as a node');
  assert.ok(labels.some((l) => l.startsWith('DequantizeLinear')), 'DequantizeLinear drawn as a node');
  // The selection survives the change of view, Q/DQ nodes of the entry included.
  const selected = await selectedIds(page, 'quant');
  for (const id of fused.quant_ops) assert.ok(selected.includes(id));
  assert.ok(selected.length > fused.quant_ops.length, 'the entry\'s Q/DQ nodes are selected too');
  await screenshot(page, '08-raw-graph');
  await page.uncheck('#raw-view');
  await waitListed(page, (n) => document.querySelectorAll('#graph-quant li[data-id]').length === n, folded);
  await assertClean(page);
  await page.close();
});

test('a weighted op shows the weight charts (histograms and per-channel error), loaded lazily', async () => {
  const page = await openPair();
  const worst = reference.weights.layers[0];
  await clickNode(page, 'quant', worst.quant_node);
  await page.waitForSelector('#detail [data-field="weight-charts"][data-loaded="true"]', { timeout: 30000 });
  assert.equal(await page.locator('#detail figure[data-chart="histogram"] canvas').count() >= 1, true);
  const channels = worst.channels.sqnr_db?.length ?? 0;
  if (channels) assert.equal(await page.locator('#detail figure[data-chart="channels"] canvas').count() >= 1, true);
  assert.match(await page.textContent('#detail figure[data-chart="histogram"] figcaption'), /48 bins/);
  await page.locator('#detail figure[data-chart="histogram"]').scrollIntoViewIfNeeded();
  await screenshot(page, '09-weight-charts');
  await page.locator('#detail figure[data-chart="codes"]').evaluate((f) => f.scrollIntoView({ block: 'start' }));
  await screenshot(page, '09b-weight-charts-per-channel');
  await page.click('#theme');
  await page.click('#theme');
  assert.equal(await page.getAttribute('html', 'data-theme'), 'dark');
  await clickNode(page, 'quant', worst.quant_node);
  await page.waitForSelector('#detail [data-field="weight-charts"][data-loaded="true"]');
  await page.locator('#detail figure[data-chart="histogram"]').scrollIntoViewIfNeeded();
  await screenshot(page, '10-dark-theme');
  await page.click('#theme');  // back to auto for the next tests (the choice is remembered)
  await assertClean(page);
  await page.close();
});

test('the detail panel shows each side\'s node detail (attributes, types, shapes) and per-channel scales, as the CLI reports them', async () => {
  const page = await openPair();
  // A one-to-one Conv whose quantized weight is per channel, with its scales listed in the report.
  const convs = reference.logical_graphs.quant.filter((op) => op.op_type === 'Conv' && op.quantization?.weight?.granularity === 'per_channel'
    && op.quantization.weight.scales);
  const entry = reference.mapping.find((e) => e.quant_ops.length === 1 && e.float_ops.length >= 1 && convs.some((op) => op.nodes.includes(e.quant_ops[0])));
  assert.ok(entry, 'the pair has a per-channel Conv');
  await clickNode(page, 'quant', entry.quant_ops[0]);
  const ids = { quant: entry.quant_ops[0], float: (await selectedIds(page, 'float')).find((id) => entry.float_ops.includes(id)) };
  for (const side of ['float', 'quant']) {
    const box = `#detail .node-detail[data-side="${side}"][data-node="${ids[side]}"]`;
    await page.waitForSelector(`${box}[data-loaded="true"]`, { timeout: 30000 });
    const want = JSON.parse(spawnSync(cli, ['inspect', pairFile(PAIR, `${side}.onnx`), '--node', ids[side], '--json'], { encoding: 'utf8' }).stdout);
    assert.ok(want.attributes.length > 0, `${side} ${ids[side]} has attributes`);
    for (const a of want.attributes) {
      const row = await page.textContent(`${box} [data-field="attributes"] tr[data-key="${a.name}"]`);
      assert.ok(row.startsWith(a.name + a.type), `${side} attribute ${a.name}: ${row}`);
      if (a.type === 'ints') assert.ok(row.includes(a.value.join(', ')), `${side} ${a.name} values: ${row}`);
    }
    const shape = (v) => `${v.element_type ?? '?'} [${(v.shape ?? ['?']).map((d) => d ?? '?').join(' × ')}]`;
    const rows = await page.$$eval(`${box} [data-field="inputs"] tbody tr`, (trs) => trs.map((tr) => [...tr.children].map((c) => c.textContent)));
    assert.deepEqual(rows.map((r) => r[0]), want.inputs.map((i) => i.name));
    assert.deepEqual(rows.map((r) => r[1]), want.inputs.map(shape));
    const outs = await page.$$eval(`${box} [data-field="outputs"] tbody tr`, (trs) => trs.map((tr) => tr.children[1].textContent));
    assert.deepEqual(outs, want.outputs.map(shape));
  }
  // The quantized weight's scales and zero points, plotted along the channel axis.
  await page.waitForSelector('#detail [data-field="quant-params"][data-loaded="true"] figure[data-chart="quant-scales"] canvas');
  const op = convs.find((o) => o.nodes.includes(ids.quant));
  assert.match(await page.textContent('#detail figure[data-chart="quant-scales"] figcaption'), new RegExp(`\\(${op.quantization.weight.scales.length} channels\\)`));
  await page.locator('#detail .node-detail[data-side="quant"]').scrollIntoViewIfNeeded();
  await screenshot(page, '09c-node-detail');
  await page.locator('#detail [data-field="quant-params"]').scrollIntoViewIfNeeded();
  await screenshot(page, '09d-quant-params');
  await assertClean(page);
  await page.close();
});

test('the layer table sorts, filters, and a row selects the layer in both graphs', async () => {
  const page = await openPair();
  const rows = () => page.$$eval('#layer-table tbody tr', (trs) => trs.map((tr) => Number(tr.dataset.entry)));
  assert.deepEqual(await rows(), reference.weights.layers.map((l) => l.entry), 'worst first, as ranked');
  await page.click('#layer-table button[data-sort="sqnr"]');
  const bySqnr = [...reference.weights.layers].sort((a, b) => (a.error.sqnr_db ?? Infinity) - (b.error.sqnr_db ?? Infinity) || a.rank - b.rank);
  assert.deepEqual(await rows(), bySqnr.map((l) => l.entry));
  assert.equal(await page.getAttribute('#layer-table th:has(button[data-sort="sqnr"])', 'aria-sort'), 'ascending');
  await page.click('#layer-table button[data-sort="sqnr"]');
  const bySqnrDown = [...reference.weights.layers].sort((a, b) => (b.error.sqnr_db ?? Infinity) - (a.error.sqnr_db ?? Infinity) || a.rank - b.rank);
  assert.deepEqual(await rows(), bySqnrDown.map((l) => l.entry));
  assert.equal(await page.getAttribute('#layer-table th:has(button[data-sort="sqnr"])', 'aria-sort'), 'descending');

  const target = reference.weights.layers.at(-1);
  await page.click(`#layer-table tbody tr[data-entry="${target.entry}"]`);
  const entry = reference.mapping[target.entry];
  assert.deepEqual(await selectedIds(page, 'quant'), [...entry.quant_ops].sort());
  for (const id of entry.float_ops) assert.ok((await selectedIds(page, 'float')).includes(id));
  assert.equal(await page.getAttribute(`#layer-table tbody tr[data-entry="${target.entry}"]`, 'aria-selected'), 'true');
  await screenshot(page, '11-table-row-selected');

  await page.fill('#table-filter', target.quant_node);
  const filtered = await rows();
  assert.ok(filtered.includes(target.entry));
  assert.ok(filtered.length < reference.weights.layers.length || reference.weights.layers.length === 1);
  await assertClean(page);
  await page.close();
});

test('exports: the JSON report equals the CLI\'s compare report; the CSV has every layer', async () => {
  const page = await openPair();
  const [json] = await Promise.all([page.waitForEvent('download'), page.click('#export-json')]);
  const exported = JSON.parse(readFileSync(await json.path(), 'utf8'));
  assert.deepEqual(exported, reference);
  const [csv] = await Promise.all([page.waitForEvent('download'), page.click('#export-csv')]);
  const lines = readFileSync(await csv.path(), 'utf8').trim().split('\n');
  assert.match(lines[0], /^Rank,Float node,Quantized node,Op,/);
  assert.equal(lines.length, reference.weights.layers.length + 1);
  assert.ok(lines[1].startsWith(`1,${reference.weights.layers[0].float_node},`));
  const png = await exportGraphs(page, 'png');
  const image = readFileSync(await png.path());
  assert.deepEqual([...image.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'a PNG');
  const widths = await page.$$eval('.graph-canvas', (cs) => cs.map((c) => c.width));
  assert.ok(image.readUInt32BE(16) > widths[0] + widths[1] - 1, 'both graphs side by side');
  await assertClean(page);
  await page.close();
});

test('find a node by name or op type, on either side', async () => {
  const page = await openPair();
  await page.fill('#search', 'batchnorm');
  await page.waitForSelector('#search-results:not([hidden]) li[data-id]');
  const results = await page.$$eval('#search-results li[data-id]', (lis) => lis.map((li) => [li.dataset.side, li.dataset.id]));
  const bns = reference.logical_graphs.float.filter((o) => o.op_type === 'BatchNormalization').map((o) => o.op);
  assert.deepEqual(results.map(([, id]) => id).sort(), [...bns].sort());
  await page.press('#search', 'ArrowDown');
  await page.press('#search', 'Enter');
  const chosen = results[1][1];
  assert.ok((await selectedIds(page, 'float')).includes(chosen));
  const entry = reference.mapping.find((e) => e.float.includes(chosen));
  assert.deepEqual(await selectedIds(page, 'quant'), [...entry.quant_ops].sort());
  assert.equal(await page.isHidden('#search-results'), true);
  await page.fill('#search', entry.quant_ops[0]);
  await page.waitForSelector('#search-results li[data-side="quant"]');
  await screenshot(page, '20-search');
  await assertClean(page);
  await page.close();
});

test('opens a pair through the file inputs (given the wrong way round: the core finds which is which)', async () => {
  const page = await newPage(browser.context);
  await page.goto(server.url);
  const pair = 'ort_qdq_blockwise_int4';
  await page.setInputFiles('#file-float', pairFile(pair, 'quant.onnx'));
  await page.setInputFiles('#file-quant', pairFile(pair, 'float.onnx'));
  await waitDrawn(page);
  const ref = cliCompare(pairFile(pair, 'float.onnx'), pairFile(pair, 'quant.onnx'));
  assert.equal(await page.textContent('#name-float'), 'float.onnx');
  assert.equal(await page.textContent('#name-quant'), 'quant.onnx');
  assert.match(await page.textContent('#summary'), /given in the other order/);
  const rows = await page.$$eval('#layer-table tbody tr', (trs) => trs.length);
  assert.equal(rows, ref.weights.layers.length);
  const first = ref.mapping.find((e) => e.float_ops.length && e.quant_ops.length);
  await clickNode(page, 'float', first.float_ops[0]);
  assert.deepEqual(await selectedIds(page, 'quant'), [...first.quant_ops].sort());
  await page.selectOption('#overlay', 'precision');
  await screenshot(page, '12-file-input-int4-precision');
  await assertClean(page);
  await page.close();
});

/** Drops files on the page as a person drags them from a file manager (a DataTransfer of Files). */
async function dropFiles(page, paths) {
  const files = paths.map((p) => ({ name: path.basename(p), bytes: [...readFileSync(p)] }));
  const dataTransfer = await page.evaluateHandle((files) => {
    const dt = new DataTransfer();
    for (const f of files) dt.items.add(new File([new Uint8Array(f.bytes)], f.name));
    return dt;
  }, files);
  await page.dispatchEvent('main', 'dragenter', { dataTransfer });
  await page.dispatchEvent('main', 'dragover', { dataTransfer });
  await page.dispatchEvent('main', 'drop', { dataTransfer });
}

test('drag and drop: two models with an external-data file; without it, the error says what is missing', async () => {
  const page = await newPage(browser.context);
  await page.goto(server.url);
  const f = path.join(externalDir, 'float.onnx'), q = path.join(externalDir, 'quant.onnx'), w = path.join(externalDir, 'float.weights');
  await dropFiles(page, [f, q]);
  await page.waitForSelector('#error[data-code="missing_external_file"]:not([hidden])');
  assert.match(await page.textContent('#error'), /external-data file is missing.*\[missing_external_file\].*float\.weights/);
  await screenshot(page, '19-drop-missing-external');
  await dropFiles(page, [q, w, f]);
  await waitDrawn(page);
  const ref = cliCompare(f, q);
  assert.equal(await page.textContent('#name-float'), ref.float.file);
  assert.equal(await page.$$eval('#layer-table tbody tr', (trs) => trs.length), ref.weights.layers.length);
  // One model alone is refused with a message.
  await dropFiles(page, [f]);
  assert.match(await page.textContent('#error'), /Drop two \.onnx models, or three \(a float model and two quantized versions of it\)/);
  await assertClean(page);
  await page.close();
});

test('the server opens the pair it was given (--float, --quant, --data) at the URL it prints', async () => {
  const f = path.join(externalDir, 'float.onnx'), q = path.join(externalDir, 'quant.onnx'), w = path.join(externalDir, 'float.weights');
  const own = await startServer([], ['--float', f, '--quant', q, '--data', w]);
  try {
    assert.match(own.printed, /^http:\/\/127\.0\.0\.1:\d+\/\?float=models\/float\/float\.onnx&quant=models\/quant\/quant\.onnx&data=models\/data\/float\.weights$/);
    const page = await newPage(browser.context);
    await page.goto(own.printed);
    await waitDrawn(page);
    assert.equal(await page.textContent('#name-quant'), 'quant.onnx');
    // Only what it was given: nothing else of the models' folder, nothing outside the page's folder.
    for (const p of ['models/float/quant.onnx', 'models/../package.json', '..%2Fpackage.json', 'models/float.weights']) {
      assert.equal((await page.request.get(own.url + p)).status(), 404, p);
    }
    await assertClean(page);
    await page.close();
  } finally {
    await own.stop();
  }
});

test('model strings with HTML and script payloads render as text and run nothing', async () => {
  const page = await newPage(browser.context);
  await page.goto(`${server.url}?float=payload/float.onnx&quant=payload/quant.onnx`);
  await waitDrawn(page);
  const conv = '<script>window.__pwned=1;alert(1)</script>';
  const relu = '<img src=x onerror="window.__pwned=2;alert(2)">';
  await clickNode(page, 'float', conv);
  assert.deepEqual(await selectedIds(page, 'quant'), [conv]);
  assert.equal(await page.textContent('#detail [data-field="name"]'), conv);
  await page.waitForSelector('#detail [data-field="weight-charts"][data-loaded="true"]');
  // The node detail of both sides: doc string, input names and producers as text.
  for (const side of ['float', 'quant']) {
    const box = `#detail .node-detail[data-side="${side}"][data-loaded="true"]`;
    await page.waitForSelector(box);
    assert.equal(await page.textContent(`${box} [data-field="doc"]`), '<img src=x onerror="window.__pwned=7;alert(7)"><script>window.__pwned=8</script>');
    assert.equal(await page.textContent(`${box} [data-field="outputs"] tbody th`), '<b onmouseover=alert(5)>conv</b>');
  }
  assert.match(await page.textContent('#detail .node-detail[data-side="float"] [data-field="inputs"] tbody'), /<iframe src=javascript:alert\(4\)>/);
  // The layer table's name cell: the name as text, cut in the middle to its cell (the tooltip whole).
  const cell = await page.$eval('#layer-table tbody tr td:nth-child(2)', (td) => [td.textContent, td.title]);
  assert.equal(cell[1], conv);
  assert.ok(cell[0] === conv || (cell[0].includes('…') && conv.startsWith(cell[0].split('…')[0]) && conv.endsWith(cell[0].split('…')[1])), cell[0]);
  await clickNode(page, 'quant', relu);
  assert.equal(await page.textContent('#detail [data-field="name"]'), relu);
  await page.fill('#search', '<img');
  await page.waitForSelector('#search-results li[data-id]');
  assert.equal(await page.textContent('#search-results li[data-side="float"] .result-id'), relu);
  await page.selectOption('#overlay', 'heat');
  await page.waitForTimeout(300);
  await screenshot(page, '13-payload-names');
  const injected = await page.evaluate(() => ({
    pwned: window.__pwned ?? null,
    img: document.querySelectorAll('img').length,
    svg: document.querySelectorAll('svg').length,
    iframe: document.querySelectorAll('iframe').length,
    inlineScripts: [...document.querySelectorAll('script')].filter((s) => !s.src).length,
    h1: [...document.querySelectorAll('h1')].map((h) => h.textContent),
  }));
  assert.deepEqual(injected, { pwned: null, img: 0, svg: 0, iframe: 0, inlineScripts: 0, h1: ['VisualQuant'] });
  await assertClean(page);
  await page.close();
});

test('bad files show the core\'s error in words', async () => {
  const page = await newPage(browser.context);
  await page.goto(server.url);
  // Deterministic "random" bytes (a linear congruential generator).
  const noise = Buffer.alloc(4096);
  for (let i = 0, s = 12345; i < noise.length; i++) noise[i] = (s = (s * 1103515245 + 12345) >>> 0) >>> 24;
  await page.setInputFiles('#file-float', { name: 'noise.onnx', mimeType: 'application/octet-stream', buffer: noise });
  await page.setInputFiles('#file-quant', pairFile(PAIR, 'quant.onnx'));
  await page.waitForSelector('#error:not([hidden])');
  const noiseCode = await page.getAttribute('#error', 'data-code');
  assert.ok(['not_onnx', 'truncated', 'too_deep', 'wrong_data_field'].includes(noiseCode), noiseCode);
  // Which of the two is broken: its name leads the core's message.
  assert.match(await page.textContent('#error'), new RegExp(`Could not open noise\\.onnx and quant\\.onnx\\. .+ \\[${noiseCode}\\]: noise\\.onnx: .+`));
  await screenshot(page, '14-error-random-bytes');

  const truncated = readFileSync(pairFile(PAIR, 'float.onnx')).subarray(0, 5000);
  await page.setInputFiles('#file-float', { name: 'truncated.onnx', mimeType: 'application/octet-stream', buffer: truncated });
  await page.waitForFunction(() => document.getElementById('error').dataset.code === 'truncated' && !document.getElementById('error').hidden);
  assert.match(await page.textContent('#error'), /ends in the middle of a field .*\[truncated\]: truncated\.onnx: .*truncated/);
  await screenshot(page, '15-error-truncated');
  // The page still works: a good pair opens after the errors.
  await page.setInputFiles('#file-float', pairFile(PAIR, 'float.onnx'));
  await waitDrawn(page);
  assert.equal(await page.isHidden('#error'), true);
  await assertClean(page);
  await page.close();
});

test('an address whose float= or quant= is not a URL says so, and the page still opens a pair', async () => {
  const page = await newPage(browser.context);
  await page.goto(`${server.url}?float=${encodeURIComponent('http://[not-a-host')}&quant=q.onnx`);
  await page.waitForSelector('#error:not([hidden])');
  assert.match(await page.textContent('#error'), /^The page's address gives float="http:\/\/\[not-a-host", which is not a URL\./);
  // The page took itself for idle (no request was coming): the core still opens what it is given.
  await page.setInputFiles('#file-float', pairFile(PAIR, 'float.onnx'));
  await page.setInputFiles('#file-quant', pairFile(PAIR, 'quant.onnx'));
  await waitDrawn(page);
  assert.equal(await page.isHidden('#error'), true);
  await assertClean(page);
  await page.close();
});

test('cancel stops opening (the core worker is restarted) and the next open works', async () => {
  const page = await newPage(browser.context);
  // Hold the core's wasm back so the open request is still with the worker when Cancel is pressed.
  let release;
  const held = new Promise((r) => { release = r; });
  await page.route('**/visualquant_core.wasm', async (route) => {
    await held;
    await route.continue().catch(() => {});  // the worker that asked may be gone (cancelled)
  });
  await page.goto(server.url + pairUrl(PAIR));
  await page.waitForFunction(() => /Reading|Aligning/.test(document.getElementById('progress-stage').textContent) && !document.getElementById('progress').hidden);
  await screenshot(page, '16-progress');
  await page.click('#cancel');
  await page.waitForSelector('#error[data-code="cancelled"]:not([hidden])');
  assert.equal(await page.isHidden('#progress'), true);
  release();
  await page.unroute('**/visualquant_core.wasm');
  await page.setInputFiles('#file-float', pairFile(PAIR, 'float.onnx'));
  await page.setInputFiles('#file-quant', pairFile(PAIR, 'quant.onnx'));
  await waitDrawn(page);
  await assertClean(page);
  await page.close();
});

test('a ConvInteger\'s weight scale is shown: read from its rescale, as the report has it', async () => {
  const pair = 'ort_dynamic_mlp';
  const page = await openPair(pair);
  const report = JSON.parse(spawnSync(cli, ['compare', pairFile(pair, 'float.onnx'), pairFile(pair, 'quant.onnx'), '--json', '-'],
    { encoding: 'utf8', maxBuffer: 1 << 28 }).stdout);
  const conv = report.logical_graphs.quant.find((op) => op.op_type === 'ConvInteger');
  const scale = conv.quantization.weight.scale_range[0];
  await clickNode(page, 'quant', conv.op);
  const cells = await page.$$eval('#detail .quant-table tbody tr', (trs) => trs.map((tr) => [...tr.children].map((c) => c.textContent)));
  const weight = cells.find((row) => row[0] === 'weight');
  assert.ok(weight, JSON.stringify(cells));
  assert.notEqual(weight[3], '–', 'the weight scale is known');
  assert.ok(Math.abs(Number(weight[3]) - scale) <= 1e-4 * scale + 5e-7, `${weight[3]} vs ${scale}`);
  await assertClean(page);
  await page.close();
});
