// An independent measurement of what `visualquant activations` reports, for its tests and its
// benchmark: what ONNX Runtime's qdq_loss_debug does, in JS. Both models run once with onnxruntime-node
// on the same inputs, with the compared tensors added as graph outputs (by a protobuf suffix written
// here, not by the core), and the statistics are computed in float64 in plain JS.
import * as ort from 'onnxruntime-node';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

function varint(n) {
  const out = [];
  while (n > 127) { out.push((n & 127) | 128); n = Math.floor(n / 128); }
  out.push(n);
  return Buffer.from(out);
}
function record(field, payload) { return Buffer.concat([varint((field << 3) | 2), varint(payload.length), payload]); }

// The name a report point's tensor is tapped under here: its own, or for a tensor inside an If/Loop
// body (the report's `body`), the main-graph output exposeBodies() makes of it.
export function peerTensorName(point, side) {
  const tensor = side === 'float' ? point.float_tensor : point.quantized_tensor;
  return point.body?.[side] ? `peer.body/${point.body[side].graph}/${tensor}` : tensor;
}

// The model file with the report points' body tensors of `side` made main-graph outputs, by the onnx
// Python package (expose_body_values.py: not the core's rewrite), written into `dir`; the file
// itself when it has none.
export function exposeBodies(dir, side, file, points) {
  const specs = [...new Set(points.filter((p) => p.body?.[side])
    .map((p) => `${p.body[side].graph}:${side === 'float' ? p.float_tensor : p.quantized_tensor}:${peerTensorName(p, side)}`))];
  if (!specs.length) return file;
  const out = path.join(dir, `${side}.exposed.onnx`);
  const script = path.join(path.dirname(fileURLToPath(import.meta.url)), 'expose_body_values.py');
  const r = spawnSync('/usr/bin/python3', [script, file, out, ...specs], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`expose_body_values.py failed: ${r.stderr}`);
  return out;
}

// The model with `names` as extra graph outputs (GraphProto.output = 12 inside ModelProto.graph = 7).
export function withOutputs(modelBytes, names) {
  const outputs = names.map((n) => record(12, record(1, Buffer.from(n))));
  return Buffer.concat([modelBytes, record(7, Buffer.concat(outputs))]);
}

const typed = { float32: Float32Array, float64: Float64Array, int8: Int8Array, uint8: Uint8Array, int16: Int16Array, uint16: Uint16Array, int32: Int32Array, int64: BigInt64Array, bool: Uint8Array };

// A .npy file (format 1.0) of a typed array.
export function npy(type, dims, data) {
  const descr = { float32: '<f4', float64: '<f8', int8: '|i1', uint8: '|u1', int16: '<i2', uint16: '<u2', int32: '<i4', int64: '<i8', bool: '|b1' }[type];
  const shape = dims.length === 1 ? `(${dims[0]},)` : `(${dims.join(', ')})`;
  let header = `{'descr': '${descr}', 'fortran_order': False, 'shape': ${shape}, }`;
  const total = 10 + header.length + 1;
  header += ' '.repeat((64 - (total % 64)) % 64) + '\n';
  const head = Buffer.alloc(10);
  head.write('\x93NUMPY', 0, 'latin1');
  head[6] = 1; head[7] = 0;
  head.writeUInt16LE(header.length, 8);
  return Buffer.concat([head, Buffer.from(header, 'latin1'), Buffer.from(data.buffer, data.byteOffset, data.byteLength)]);
}

// Deterministic inputs of the model's declared shapes (symbolic dims as 1): floats in [-1, 1), integers in [0, 10).
export async function makeInputs(modelPath, seed = 7) {
  const s = await ort.InferenceSession.create(modelPath, { graphOptimizationLevel: 'disabled' });
  let state = seed >>> 0;
  const rand = () => { state = (Math.imul(state, 1664525) + 1013904223) >>> 0; return state / 2 ** 32; };
  const inputs = [];
  for (const name of s.inputNames) {
    const meta = s.inputMetadata.find?.((m) => m.name === name) ?? s.inputMetadata[s.inputNames.indexOf(name)];
    const dims = meta.shape.map((d) => (typeof d === 'number' && d >= 0 ? d : 1));
    const count = dims.reduce((a, b) => a * b, 1);
    const type = meta.type;
    const T = typed[type];
    const data = new T(count);
    for (let i = 0; i < count; ++i) {
      if (type === 'int64') data[i] = BigInt(Math.floor(rand() * 10));
      else if (type.startsWith('float')) data[i] = rand() * 2 - 1;
      else data[i] = Math.floor(rand() * 10);
    }
    inputs.push({ name, type, dims, data });
  }
  await s.release?.();
  return inputs;
}

// IEEE half precision bits to a number.
function halfToNumber(h) {
  const sign = h & 0x8000 ? -1 : 1, exponent = (h >> 10) & 0x1f, fraction = h & 0x3ff;
  if (exponent === 0) return sign * fraction * 2 ** -24;
  if (exponent === 31) return fraction ? NaN : sign * Infinity;
  return sign * (1 + fraction / 1024) * 2 ** (exponent - 15);
}

function numbers(tensor, codes) {
  const d = tensor.data;
  const out = new Float64Array(d.length);
  // float16 comes back as its bits (Uint16Array) where the JS engine has no Float16Array.
  const half = tensor.type === 'float16' && d instanceof Uint16Array;
  for (let i = 0; i < d.length; ++i) out[i] = half ? halfToNumber(d[i]) : Number(d[i]);
  if (codes) for (let i = 0; i < out.length; ++i) out[i] = (out[i] - codes.zero_point) * codes.scale;
  return out;
}

export function stats(x, y) {
  let sx2 = 0, se2 = 0, sxy = 0, sy2 = 0, maxAbs = 0;
  for (let i = 0; i < x.length; ++i) {
    const e = y[i] - x[i];
    sx2 += x[i] * x[i]; se2 += e * e; sxy += x[i] * y[i]; sy2 += y[i] * y[i];
    maxAbs = Math.max(maxAbs, Math.abs(e));
  }
  return {
    sqnr_db: se2 === 0 || sx2 === 0 ? null : 10 * Math.log10(sx2 / se2),
    cosine: sx2 === 0 || sy2 === 0 ? null : sxy / (Math.sqrt(sx2) * Math.sqrt(sy2)),
    mse: se2 / x.length,
    max_abs: maxAbs,
  };
}

// Runs each model once with every compared tensor tapped; returns per point {sqnr_db, cosine, mse, max_abs,
// codes}. `points`: [{float_tensor, quantized_tensor, quantizer: {scale, zero_point} | null}]; a quantized
// tensor that ONNX Runtime returns as integers is dequantised with the point's quantizer (codes: true).
export async function measure(floatPath, quantPath, inputs, points) {
  const feeds = (session) => {
    const f = {};
    session.inputNames.forEach((name, i) => {
      const input = inputs.find((x) => x.name === name) ?? inputs[i];
      f[name] = new ort.Tensor(input.type, input.data, input.dims);
    });
    return f;
  };
  const run = async (path, names) => {
    const bytes = readFileSync(path);
    const probe = await ort.InferenceSession.create(bytes, { graphOptimizationLevel: 'disabled' });
    const taps = [...new Set(names)].filter((n) => !probe.outputNames.includes(n));
    await probe.release?.();
    const session = await ort.InferenceSession.create(withOutputs(bytes, taps), { graphOptimizationLevel: 'disabled' });
    const fetches = [...new Set(names)];
    const out = await session.run(feeds(session), fetches);
    return { out, session };
  };
  const f = await run(floatPath, points.map((p) => p.float_tensor));
  const q = await run(quantPath, points.map((p) => p.quantized_tensor));
  const integer = (t) => /^u?int/.test(t.type);
  const result = points.map((p) => {
    const y = q.out[p.quantized_tensor];
    if (integer(y) && !p.quantizer) throw new Error(`${p.quantized_tensor} is ${y.type} but has no quantizer`);
    return { ...stats(numbers(f.out[p.float_tensor]), numbers(y, integer(y) ? p.quantizer : null)), codes: integer(y) };
  });
  await f.session.release?.();
  await q.session.release?.();
  return result;
}
