// The activations benchmark's peer: what ONNX Runtime's qdq_loss_debug does, in JS. Both models
// run once with onnxruntime-node, every compared tensor tapped in that one run (all held in memory
// at once), graph optimisations off; then SQNR, cosine, MSE and max abs error per pair in float64.
//   node bench/activations_peer.mjs FLOAT QUANT INPUT.npy POINTS.json
// POINTS.json: [{float_tensor, quantized_tensor, quantizer}] (which tensors to pair: the peers pair by
// name, we give it our pairing so both measure the same tensors). Prints {"ms", "points"}.
import { readFileSync } from 'node:fs';
import { measure } from '../tests/activations/peer_measure.mjs';

const [floatPath, quantPath, inputPath, pointsPath] = process.argv.slice(2);
const points = JSON.parse(readFileSync(pointsPath, 'utf8'));
const start = performance.now();
// The .npy written by the bench: format 1.0, float32 or int64, C order.
const bytes = readFileSync(inputPath);
const headerLength = bytes.readUInt16LE(8);
const header = bytes.subarray(10, 10 + headerLength).toString('latin1');
const dims = header.match(/'shape': \(([^)]*)\)/)[1].split(',').map((d) => d.trim()).filter(Boolean).map(Number);
const type = header.includes('<i8') ? 'int64' : 'float32';
const body = bytes.subarray(10 + headerLength);
const copy = new Uint8Array(body.length);
copy.set(body);
const data = type === 'int64' ? new BigInt64Array(copy.buffer) : new Float32Array(copy.buffer);
const result = await measure(floatPath, quantPath, [{ name: 'input', type, dims, data }], points);
process.stdout.write(JSON.stringify({ ms: performance.now() - start, points: result.length }) + '\n');
