// The wasm core and the native CLI give byte-identical reports for every fixture, and the same
// error code and message for every bad one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { cli, fixtures } from './paths.mjs';
import { wasmCore, wasmModuleExports } from './wasm_core.mjs';

function modelFiles(dir) {
  const out = [];
  for (const entry of readdirSync(dir).sort()) {
    const full = path.join(dir, entry);
    if (statSync(full).isDirectory()) out.push(...modelFiles(full));
    else if (entry.endsWith('.onnx')) out.push(full);
  }
  return out;
}

// What a user gives the web page along with a model: the other files of its folder.
function siblingFiles(model) {
  const dir = path.dirname(model);
  const files = {};
  for (const entry of readdirSync(dir).sort()) {
    const full = path.join(dir, entry);
    if (full !== model && statSync(full).isFile() && !entry.endsWith('.onnx') && !entry.endsWith('.json')) {
      files[entry] = readFileSync(full);
    }
  }
  return files;
}

function native(model) {
  const r = spawnSync(cli, ['inspect', '--json', model], { encoding: 'utf8', maxBuffer: 1 << 28 });
  if (r.status === 0) return { ok: true, json: r.stdout };
  const m = /error \[([a-z_]+)\]: (.*)\n$/s.exec(r.stderr);
  assert.ok(m, `native CLI failed without an error code (exit ${r.status}): ${r.stderr}`);
  assert.equal(r.status, 3);
  return { ok: false, code: m[1], message: m[2] };
}

async function wasm(model) {
  const core = await wasmCore();
  try {
    return { ok: true, json: core.inspect(readFileSync(model), path.basename(model), siblingFiles(model)) };
  } catch (e) {
    const { VisualQuantError } = await wasmModuleExports();
    assert.ok(e instanceof VisualQuantError, `wasm threw something else than VisualQuantError: ${e}`);
    return { ok: false, code: e.code, message: e.message };
  }
}

const models = modelFiles(fixtures);

test('fixtures exist', () => {
  assert.ok(models.length >= 25, `only ${models.length} fixtures found under ${fixtures}`);
});

for (const model of models) {
  const name = path.relative(fixtures, model);
  test(`wasm == native: ${name}`, async () => {
    const n = native(model);
    const w = await wasm(model);
    assert.deepEqual(w, n);
    if (name.startsWith('bad/')) assert.equal(n.ok, false, 'a bad fixture must be refused');
    else assert.equal(n.ok, true, 'a valid fixture must load');
  });
}

test('wasm reports are deterministic', async () => {
  const model = path.join(fixtures, 'examples/quant_qdq.onnx');
  const core = await wasmCore();
  const bytes = readFileSync(model);
  assert.equal(core.inspect(bytes, 'q.onnx'), core.inspect(bytes, 'q.onnx'));
});

test('the wasm heap does not grow with repeated loads', async () => {
  const core = await wasmCore();
  const bytes = readFileSync(path.join(fixtures, 'valid/element_types.onnx'));
  core.inspect(bytes, 'e.onnx');
  const before = core.module.HEAPU8.length;
  for (let i = 0; i < 200; i++) core.inspect(bytes, 'e.onnx');
  assert.equal(core.module.HEAPU8.length, before);
});
