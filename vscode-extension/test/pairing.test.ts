// File pairing: which name looks quantized, the order given to the core, and a model's likely counterparts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { guessOrder, nameWords, quantHint, rankCounterparts, stem } from '../src/pairing/pairing';

const order = (a: string, b: string) => guessOrder({ path: a }, { path: b }).map((f) => f.path);

test('names that say quantized or float', () => {
  assert.deepEqual(nameWords('/w/models/ResNet50_INT8.qdq.onnx'), ['resnet50', 'int8', 'qdq']);
  for (const q of ['quant.onnx', 'model_int8.onnx', 'bert.qdq.onnx', 'llama-w4a16.onnx', 'mobilenet_quantized.onnx', 'x-uint8.onnx', 'gpt2_q4.onnx']) {
    assert.ok(quantHint(q) > 0, q);
  }
  for (const f of ['float.onnx', 'resnet_fp32.onnx', 'model.original.onnx']) assert.ok(quantHint(f) < 0, f);
  for (const n of ['model.onnx', 'resnet50.onnx', 'a.onnx']) assert.equal(quantHint(n), 0, n);
});

test('the float-looking name goes first, whatever the selection order', () => {
  assert.deepEqual(order('/p/quant.onnx', '/p/float.onnx'), ['/p/float.onnx', '/p/quant.onnx']);
  assert.deepEqual(order('/p/float.onnx', '/p/quant.onnx'), ['/p/float.onnx', '/p/quant.onnx']);
  assert.deepEqual(order('/m/resnet50_int8.onnx', '/m/resnet50.onnx'), ['/m/resnet50.onnx', '/m/resnet50_int8.onnx']);
  assert.deepEqual(order('/m/resnet50.onnx', '/m/resnet50_int8.onnx'), ['/m/resnet50.onnx', '/m/resnet50_int8.onnx']);
});

test('names that do not tell keep the selection order (the core decides by content)', () => {
  assert.deepEqual(order('/m/b.onnx', '/m/a.onnx'), ['/m/b.onnx', '/m/a.onnx']);
  assert.deepEqual(order('/m/x_int8.onnx', '/m/y_int8.onnx'), ['/m/x_int8.onnx', '/m/y_int8.onnx']);
});

test('stems drop the words of precision', () => {
  assert.equal(stem('/m/resnet50_int8.onnx'), stem('/m/resnet50-fp32.onnx'));
  assert.equal(stem('/m/bert.qdq.onnx'), 'bert');
});

test('counterparts: same stem in the same folder first, the model itself left out', () => {
  const candidates = ['/w/other/bert.onnx', '/w/m/resnet50_int8.onnx', '/w/m/mobilenet.onnx', '/w/m/resnet50.onnx', '/w/x/resnet50_int8.onnx'];
  const ranked = rankCounterparts('/w/m/resnet50.onnx', candidates);
  assert.deepEqual(ranked.slice(0, 2), ['/w/m/resnet50_int8.onnx', '/w/x/resnet50_int8.onnx']);
  assert.ok(!ranked.includes('/w/m/resnet50.onnx'));
  assert.equal(ranked.length, candidates.length - 1);
  // Fixture pairs: float.onnx and quant.onnx side by side.
  assert.deepEqual(rankCounterparts('/w/p1/quant.onnx', ['/w/p2/float.onnx', '/w/p1/float.onnx', '/w/p1/quant.onnx'])[0], '/w/p1/float.onnx');
});
