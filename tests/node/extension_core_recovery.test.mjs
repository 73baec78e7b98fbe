// The VS Code extension host's core (the web page's worker script in a Node worker thread,
// vscode-extension/src/host/core_worker_node.ts) after files that fail its wasm instance: each
// answer is an error with `restarted` that names the files, the thread lives on, and the example
// pair then opens on a fresh instance. Spoken to with the protocol's messages, as node_connection.ts
// does. The failure is real: the core's test hook, a wasm trap, run by the thread bundled with one
// addition (trap_worker.mjs: opening a file named trap* runs it); the recursive model goes to the
// built thread (vscode-extension/dist/core_worker.mjs) unchanged.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { root, wasmDist } from './paths.mjs';
import { trapWorkerSource } from './trap_worker.mjs';

const builtThread = path.join(root, 'vscode-extension/dist/core_worker.mjs');
const example = (f) => readFileSync(path.join(root, 'examples', f));
const recursive = readFileSync(path.join(root, 'tests/fixtures/malformed/recursive_function.onnx'));
const file = (name, bytes) => ({ name, bytes: Uint8Array.from(bytes).buffer });

/** The core's thread from `script`; ask(method, params) resolves to its final answer (a result or an error). */
function coreThread(script) {
  const worker = new Worker(script, { name: 'visualquant-core' });
  const waiting = new Map();
  let exited = null;
  worker.on('message', (m) => {
    if (m.type !== 'result' && m.type !== 'json-result' && m.type !== 'error') return;
    waiting.get(m.id)?.(m);
    waiting.delete(m.id);
  });
  worker.on('exit', (code) => { exited = code; });
  let next = 1;
  return {
    ask(method, params) {
      const id = next++;
      return new Promise((resolve) => {
        waiting.set(id, resolve);
        worker.postMessage({ type: 'request', id, method, params });
      });
    },
    exited: () => exited,
    stop: () => worker.terminate(),
  };
}

const openWith = (core, name, bytes) => core.ask('open', { first: file(name, bytes), second: file('quant_qdq.onnx', example('quant_qdq.onnx')), external: [] });

async function assertExampleOpens(core) {
  const opened = await openWith(core, 'float.onnx', example('float.onnx'));
  assert.equal(opened.type, 'json-result', JSON.stringify(opened.error));
  const { report } = JSON.parse(opened.json);
  assert.equal(report.float.file, 'float.onnx');
  assert.equal(report.quant.file, 'quant_qdq.onnx');
  assert.equal((await core.ask('lint', {})).type, 'json-result');
  assert.equal(core.exited(), null, 'the thread is still running');
}

test('the extension host\'s core: a file that traps its instance, five times, then the example pair', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'vq-trap-thread-'));
  writeFileSync(path.join(dir, 'core_worker.mjs'), await trapWorkerSource('node'));
  copyFileSync(path.join(wasmDist, 'visualquant_core.wasm'), path.join(dir, 'visualquant_core.wasm'));
  const core = coreThread(path.join(dir, 'core_worker.mjs'));
  try {
    await assertExampleOpens(core);
    for (let i = 1; i <= 5; i++) {
      const answer = await openWith(core, `trap_${i}.onnx`, recursive);
      assert.equal(answer.type, 'error');
      assert.equal(answer.error.code, 'core_failed', answer.error.message);
      assert.equal(answer.error.restarted, true);
      assert.equal(answer.error.message, `RuntimeError: unreachable, while loading trap_${i}.onnx and quant_qdq.onnx`);
      // The pair open before is gone with the instance.
      const after = await core.ask('lint', {});
      assert.equal(after.type, 'error');
      assert.equal(after.error.code, 'no_open_pair');
    }
    await assertExampleOpens(core);
  } finally {
    await core.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the extension host\'s core: the recursive model five times, each a clear error, then the example pair',
  { skip: !existsSync(builtThread) && 'build the extension first (scripts/build vscode)' }, async () => {
    const core = coreThread(builtThread);
    try {
      for (let i = 1; i <= 5; i++) {
        const answer = await openWith(core, 'recursive_function.onnx', recursive);
        assert.equal(answer.type, 'error');
        // The core's own refusal, or (before it refused) the instance failing and being replaced.
        if (answer.error.code === 'core_failed') assert.equal(answer.error.restarted, true);
        else assert.ok(!['out_of_memory', 'internal', 'transport'].includes(answer.error.code), answer.error.message);
        assert.match(answer.error.message, /\S/);
      }
      await assertExampleOpens(core);
    } finally {
      await core.stop();
    }
  });
