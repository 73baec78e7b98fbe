// A wasm instance that fails with anything but the core's own VisualQuantError (a stack overflow, a
// trap) is never used again, and VisualQuantInstances gives the next call a fresh one: a bad file
// cannot break the files after it. Real failures, no mock: the recursive model (a stack overflow
// until the core refused it cleanly; either passes) and the core's test hook testOnlyTrap (a wasm
// trap, wasm/bindings.cc) run inside a compare (trap_hook.mjs), which must fail the instance. Reused
// instead, an instance failed the example pair after three such stack overflows ("memory access out
// of bounds").
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { cli, root, wasmDist } from './paths.mjs';
import { trapNextSession } from './trap_hook.mjs';

const { VisualQuantError, VisualQuantInstanceFailure, VisualQuantInstances } = await import(pathToFileURL(path.join(wasmDist, 'visualquant.mjs')).href);
const wasmBinary = readFileSync(path.join(wasmDist, 'visualquant_core.wasm'));
const exampleFloat = readFileSync(path.join(root, 'examples/float.onnx'));
const exampleQuant = readFileSync(path.join(root, 'examples/quant_qdq.onnx'));

function nativeExampleReport() {
  const r = spawnSync(cli, ['compare', path.join(root, 'examples/float.onnx'), path.join(root, 'examples/quant_qdq.onnx'), '--json', '-'],
    { encoding: 'utf8', maxBuffer: 1 << 26 });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout;
}

/** A failure of the instance: a stack overflow or a trap, and not taken for memory running out. */
function isInstanceFailure(e) {
  assert.ok(e instanceof VisualQuantInstanceFailure, `expected a VisualQuantInstanceFailure, got ${e?.name}: ${e?.message}`);
  assert.ok(e.cause instanceof RangeError || e.cause instanceof WebAssembly.RuntimeError, `cause: ${e.cause}`);
  assert.equal(e.outOfMemory, false);
  assert.match(e.message, /^the core failed \(.+\); this instance cannot be used again$/);
  return true;
}

/** What a bad model may give: the instance failing, or the core's own refusal with its code and message. */
function isClearError(e) {
  if (e instanceof VisualQuantError) {
    assert.notEqual(e.code, 'out_of_memory', e.message);
    assert.ok(e.code && e.message, `code ${e.code}, message ${e.message}`);
    return true;
  }
  return isInstanceFailure(e);
}

async function exampleCompares(cores) {
  const core = await cores.live();
  assert.equal(core.failed, false);
  assert.equal(core.compare(exampleFloat, 'float.onnx', exampleQuant, 'quant_qdq.onnx'), nativeExampleReport());
}

test('the recursive model five times, each a clear error, then the example pair compares as the CLI does', async () => {
  const cores = new VisualQuantInstances({ wasmBinary });
  const recursive = readFileSync(path.join(root, 'tests/fixtures/malformed/recursive_function.onnx'));
  for (let i = 0; i < 5; i++) {
    const core = await cores.live();
    assert.throws(() => core.compare(recursive, 'recursive_function.onnx', exampleQuant, 'quant_qdq.onnx'), isClearError);
    assert.throws(() => core.open(recursive, 'recursive_function.onnx', exampleQuant, 'quant_qdq.onnx'), isClearError);
  }
  await exampleCompares(cores);
});

test('a wasm trap fails the instance, five times; each time a fresh one takes over', async () => {
  const cores = new VisualQuantInstances({ wasmBinary });
  for (let i = 0; i < 5; i++) {
    const core = await cores.live();
    // Something opened on the instance before it fails goes with it.
    const opened = core.open(exampleFloat, 'float.onnx', exampleQuant, 'quant_qdq.onnx');
    let failure;
    trapNextSession(core);
    assert.throws(() => core.compare(exampleFloat, 'float.onnx', exampleQuant, 'quant_qdq.onnx'), (e) => isInstanceFailure((failure = e)));
    assert.match(failure.message, /RuntimeError: unreachable/);
    // From then on the instance and what it opened throw that failure without running anything.
    assert.equal(core.failed, true);
    assert.throws(() => core.version, (e) => e === failure);
    assert.throws(() => core.compare(exampleFloat, 'float.onnx', exampleQuant, 'quant_qdq.onnx'), (e) => e === failure);
    assert.throws(() => opened.lint(), (e) => e === failure);
    opened.close();  // lets go of it, touching nothing
    const next = await cores.live();
    assert.notEqual(next, core, 'a fresh instance');
  }
  await exampleCompares(cores);
});

test('the core\'s own errors leave the instance working', async () => {
  const cores = new VisualQuantInstances({ wasmBinary });
  const core = await cores.live();
  assert.throws(() => core.inspect(new Uint8Array([0xff, 0xff, 0xff]), 'noise.onnx'), (e) => e instanceof VisualQuantError);
  const opened = core.open(exampleFloat, 'float.onnx', exampleQuant, 'quant_qdq.onnx');
  assert.throws(() => opened.weightLayer('no such node'), (e) => e instanceof VisualQuantError && e.code === 'not_found');
  opened.close();
  assert.throws(() => opened.lint(), (e) => e instanceof VisualQuantError && e.code === 'usage');
  assert.equal(core.failed, false);
  assert.equal(await cores.live(), core, 'the same instance');
  await exampleCompares(cores);
});
