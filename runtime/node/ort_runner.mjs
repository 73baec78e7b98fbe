// ONNX Runtime for the command line: a child process of `visualquant activations` that runs models
// on request and returns the tensors asked for. The C++ core decides what to run and computes every
// statistic; this process only runs sessions (there is no ONNX Runtime C++ library to link on the
// machines the tool targets, and onnxruntime-node is the same engine's native build).
//
//   node ort_runner.mjs [--engine node|web]
//     node: onnxruntime-node (native CPU kernels, what the CLI uses by default)
//     web:  onnxruntime-web in Node (wasm, one thread): the page's engine, same numbers as the page
//
// Protocol on stdin/stdout, every message a frame: u32 (LE) header length, the JSON header, then
// the binary blobs the header lists, back to back.
//   hello (runner → core, once):  {"ok":true,"engine":"onnxruntime-node 1.30.0"}
//   request:  {"id":MODEL_ID,"new_model":B,"last_use":B,"model":PATH,"external":[FILES],"model_bytes":M,
//              "weights_file":NAME,"suffix":N,"feeds":[{name,type,dims,bytes}],"fetches":[names]}
//             blobs: the model's bytes when M > 0 (a segment or rewired model, used instead of the
//             file), the suffix (appended to the model's bytes: rewrite/tap_outputs.h), then each feed
//   reply:    {"ok":true,"outputs":[{name,type,dims,bytes}]} + blobs, or {"ok":false,"stage":"session"|"run","error":TEXT}
// A session is created for a request with new_model and kept under its id for the id's later
// requests (the other samples) until one with last_use has run (activations/activation_session.h).
// Sessions run with graph optimisations disabled, so that every tapped tensor is the one the model
// computes. External data (FILES, relative to the model's folder) is read by onnxruntime-node from
// that folder, made the working directory (a model given as bytes resolves its external data
// there), and given to onnxruntime-web as bytes. A weights_file is the model file's own name: the
// model's weights are references into it (rewrite/weights_by_reference.h), read the same way.
import { readFileSync, existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { engineLabel, typedArray } from '../web/activation_driver.mjs';

const args = process.argv.slice(2);
const engineName = args.includes('--engine') ? args[args.indexOf('--engine') + 1] : 'node';
if (engineName !== 'node' && engineName !== 'web') throw new Error(`unknown engine '${engineName}' (node or web)`);
const require = createRequire(import.meta.url);
const ortPackage = engineName === 'web' ? 'onnxruntime-web' : 'onnxruntime-node';
const ort = await import(ortPackage);
// The package's version, from its package.json (onnxruntime-web does not export that path).
function packageVersion(name) {
  for (let dir = path.dirname(require.resolve(name)); dir !== path.dirname(dir); dir = path.dirname(dir)) {
    const file = path.join(dir, 'package.json');
    if (existsSync(file)) {
      const json = JSON.parse(readFileSync(file, 'utf8'));
      if (json.name === name) return json.version;
    }
  }
  return 'unknown version';
}
const version = packageVersion(ortPackage);
if (engineName === 'web') ort.env.wasm.numThreads = 1;
ort.env.logLevel = 'error';

// Waits for the pipe to drain after each large write: the outputs stay referenced until written.
async function write(bytes) {
  if (!process.stdout.write(bytes)) await new Promise((resolve) => process.stdout.once('drain', resolve));
}
async function send(header, blobs = []) {
  const json = Buffer.from(JSON.stringify(header));
  const length = Buffer.alloc(4);
  length.writeUInt32LE(json.length);
  await write(Buffer.concat([length, json]));
  for (const b of blobs) await write(b);
}

// Frames from stdin, one at a time. Chunks are kept in a list and joined once per take, so that a
// large blob (a rewired model) is copied once, not once per chunk.
const chunks = [];
let buffered = 0;
let wake = null;
let ended = false;
process.stdin.on('data', (chunk) => { chunks.push(chunk); buffered += chunk.length; wake?.(); });
process.stdin.on('end', () => { ended = true; wake?.(); });
async function take(n) {
  while (buffered < n) {
    if (ended) return null;
    await new Promise((resolve) => { wake = resolve; });
    wake = null;
  }
  const all = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
  chunks.length = 0;
  const out = all.subarray(0, n);
  if (all.length > n) chunks.push(all.subarray(n));
  buffered -= n;
  return out;
}

const startDir = process.cwd();
const sessions = new Map();  // model id -> session
async function release(id) {
  const session = sessions.get(id);
  sessions.delete(id);
  await session?.release?.();
}
async function sessionFor(header, modelBytes, suffix) {
  if (!header.new_model) {
    const kept = sessions.get(header.id);
    if (!kept) throw new Error(`no session was made for model ${header.id}`);
    return kept;
  }
  await release(header.id);
  const file = path.resolve(startDir, header.model);  // the core's paths are relative to where it started
  const model = modelBytes ?? readFileSync(file);
  const bytes = suffix.length ? Buffer.concat([model, suffix]) : model;
  const options = { graphOptimizationLevel: 'disabled', logSeverityLevel: 3 };
  const folder = path.dirname(file);
  // The model's weights referenced in the model file itself (weights_file, its name in its folder)
  // are external data like any other.
  const external = [...(header.external ?? []), ...(header.weights_file ? [header.weights_file] : [])];
  if (external.length) {
    if (engineName === 'web') options.externalData = external.map((p) => ({ path: p, data: readFileSync(path.join(folder, p)) }));
    else process.chdir(folder);
  }
  const session = await ort.InferenceSession.create(bytes, options);
  sessions.set(header.id, session);
  return session;
}

function message(e) { return String(e?.message ?? e); }

await send({ ok: true, engine: engineLabel(ortPackage, version) });
for (;;) {
  const lengthBytes = await take(4);
  if (!lengthBytes) break;
  const header = JSON.parse((await take(lengthBytes.readUInt32LE(0))).toString());
  const modelBytes = header.model_bytes ? Buffer.from(await take(header.model_bytes)) : null;
  const suffix = Buffer.from(await take(header.suffix));
  const feeds = {};
  for (const f of header.feeds) feeds[f.name] = new ort.Tensor(f.type, typedArray(f.type, await take(f.bytes)), f.dims);
  let session;
  try {
    session = await sessionFor(header, modelBytes, suffix);
  } catch (e) {
    await send({ ok: false, stage: 'session', error: message(e) });
    continue;
  }
  try {
    const results = await session.run(feeds, header.fetches);
    const outputs = [], blobs = [];
    for (const name of header.fetches) {
      const t = results[name];
      const data = t.data;
      const bytes = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
      outputs.push({ name, type: t.type, dims: t.dims.map(Number), bytes: bytes.length });
      blobs.push(bytes);
    }
    await send({ ok: true, outputs }, blobs);
    for (const name of header.fetches) results[name].dispose?.();
    if (header.last_use) await release(header.id);
  } catch (e) {
    await send({ ok: false, stage: 'run', error: message(e) });
  }
}
