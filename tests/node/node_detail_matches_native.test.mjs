// A node's detail from the wasm core (an open comparison's node(side, id), and the single-model
// viewer's openLayout().node(id)) is byte for byte what `visualquant inspect MODEL --node ID --json`
// prints, for every node of the models tried; an unknown node is 'not_found' in wasm and a usage
// error (exit 2) in the CLI.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { cli, fixtures, root } from './paths.mjs';
import { wasmCore } from './wasm_core.mjs';

const pairsDir = path.join(root, 'tests/fixtures/pairs');
const nodeJson = (model, id) => {
  const r = spawnSync(cli, ['inspect', model, '--node', id, '--json'], { encoding: 'utf8', maxBuffer: 1 << 26 });
  assert.equal(r.status, 0, `${id}: ${r.stderr}`);
  return r.stdout;
};

for (const pair of ['ort_qoperator_cnn', 'ort_qdq_renamed_bnfold_fp16', 'ort_matmulnbits_4bit']) {
  test(`open comparison node() == CLI, every node: ${pair}`, async () => {
    const files = { float: path.join(pairsDir, pair, 'float.onnx'), quant: path.join(pairsDir, pair, 'quant.onnx') };
    const core = await wasmCore();
    const open = core.open(readFileSync(files.float), 'float.onnx', readFileSync(files.quant), 'quant.onnx');
    try {
      const report = JSON.parse(open.report);
      for (const side of ['float', 'quant']) {
        const ids = [...new Set(report.mapping.flatMap((e) => e[side]))];
        assert.ok(ids.length > 2, `${side} has nodes`);
        for (const id of ids) assert.equal(open.node(side, id), nodeJson(files[side], id), `${side} ${id}`);
      }
      assert.throws(() => open.node('quant', 'no such node'), (e) => e.code === 'not_found' && /no node has the id or name/.test(e.message));
      assert.throws(() => open.node('sideways', report.mapping[0].float[0]), (e) => e.code === 'usage');
    } finally {
      open.close();
    }
  });
}

test('single-model viewer node() == CLI, nodes in If/Loop bodies and Constants included', async () => {
  const model = path.join(fixtures, 'valid/subgraph_scopes.onnx');
  const core = await wasmCore();
  const views = core.openLayout(readFileSync(model), 'subgraph_scopes.onnx');
  try {
    const ids = ['outer_loop', 'body_flag', 'inner_if', 'uses_two_scopes', 'inner_const', 'inner_if/then_branch#2',
      'inner_if/else_branch#0'];
    for (const id of ids) {
      const text = views.node(id);
      assert.equal(text, nodeJson(model, id), id);
      assert.equal(JSON.parse(text).id, id);
    }
    assert.throws(() => views.node('nope'), (e) => e.code === 'not_found');
    // The viewer's layouts and inspect report still come from the same open model.
    assert.equal(JSON.parse(views.view({ view: 'nodes' })).report, 'visualquant.layout');
    assert.equal(views.inspect(), core.inspect(readFileSync(model), 'subgraph_scopes.onnx'));
  } finally {
    views.close();
  }
});

test('unknown node: usage error (exit 2) naming it, like other usage errors', () => {
  const r = spawnSync(cli, ['inspect', path.join(fixtures, 'examples/float.onnx'), '--node', '<no such>'], { encoding: 'utf8' });
  assert.equal(r.status, 2);
  assert.match(r.stderr, /no node has the id or name '<no such>'/);
});
