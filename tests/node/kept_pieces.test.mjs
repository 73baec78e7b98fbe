// The pieces of a pair's files kept for the helper core as they are read (web/src/worker/kept_pieces.ts):
// kept while undecided, dropped when not wanted (and none kept after), handed over once when wanted;
// a chunk that is a view into a larger buffer is copied, never the buffer behind it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { importTs } from './ts_module.mjs';

const bytesOf = (pieces) => Buffer.concat(pieces.map((p) => Buffer.from(p)));

test('pieces read before the decision are kept, and handed over once, in order, when wanted', async () => {
  const { KeptPieces } = await importTs('web/src/worker/kept_pieces.ts');
  const kept = new KeptPieces(2);
  const chunk = (values) => new Uint8Array(values);
  kept.add(0, chunk([1, 2]));
  kept.add(1, chunk([9]));
  kept.decide(true);
  kept.add(0, chunk([3]));
  const whole = new ArrayBuffer(3);
  new Uint8Array(whole).set([7, 7, 7]);
  kept.add(1, whole);
  const pieces = kept.take(['float.onnx', 'quant.onnx']);
  assert.deepEqual(pieces.map((p) => p.name), ['float.onnx', 'quant.onnx']);
  assert.deepEqual([...bytesOf(pieces[0].pieces)], [1, 2, 3]);
  assert.deepEqual([...bytesOf(pieces[1].pieces)], [9, 7, 7, 7]);
  assert.equal(pieces[1].pieces[1], whole, 'a whole buffer is kept as it is, not copied');
  assert.equal(kept.take(['float.onnx', 'quant.onnx']), null, 'handed over once');
});

test('pieces not wanted are dropped, and later ones are not kept', async () => {
  const { KeptPieces } = await importTs('web/src/worker/kept_pieces.ts');
  const kept = new KeptPieces(2);
  kept.add(0, new Uint8Array([1]));
  kept.decide(false);
  kept.add(1, new Uint8Array([2]));
  assert.equal(kept.take(['a', 'b']), null);
});

test('a chunk that views part of a larger buffer is copied: the buffer behind it is not handed over', async () => {
  const { KeptPieces } = await importTs('web/src/worker/kept_pieces.ts');
  const kept = new KeptPieces(1);
  kept.decide(true);
  const backing = new Uint8Array([5, 6, 7, 8]);
  kept.add(0, backing.subarray(1, 3));
  const [file] = kept.take(['model.onnx']);
  assert.deepEqual([...bytesOf(file.pieces)], [6, 7]);
  assert.equal(file.pieces[0].byteLength, 2);
  assert.notEqual(file.pieces[0], backing.buffer);
});
