#!/usr/bin/python3
"""Writes a large float model and its QDQ quantization (ONNX Runtime's conventions: per-channel
int8 weights behind DequantizeLinear, uint8 activations in QuantizeLinear/DequantizeLinear pairs)
for the compare benchmark. Not kept in the repo.

usage: make_compare_pair.py resnet50|transformer12|transformer100m|seg1024|decoderN OUTDIR [three_way]
  three_way        also write <kind>_quant_b.onnx: a second quantized version of the same float model,
                   as another setting would make it (per-tensor symmetric int8 weights, the same
                   activation quantizers), for the three-way compare benchmark
  resnet50         ResNet-50-sized: bottleneck stages [3, 4, 6, 3], ~25M parameters, ~55 convs
  transformer12    12-layer encoder, d=768, ffn 3072: ~85M parameters, ~72 MatMuls
  transformer100m  BERT-base-sized: a 30522 x 768 token embedding (Gather of a per-row int8
                   DequantizeLinear on the quantized side) before the same 12 layers: ~109M parameters
  seg1024          a segmentation-sized encoder-decoder on a 1024x1024 image: a 16-channel stem (its
                   output is 64 MiB), four stride-2 stages down and four nearest-upsampling stages up
                   with residual Adds, ~100 convolutions, 8 classes per pixel (the activations bench)
  decoderN         a large graph in a small file: the encoder layers below, N of them, at d=8 / ffn 16
                   (19 float nodes and 41 quantized ones a layer: decoder1053 is the 20,000 / 43,600-node
                   pair of the page's drawing target; bench/page_vs_netron.mjs --decoders)
"""
import os
import re
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

RNG = np.random.default_rng(0)


class Builder:
    def __init__(self):
        self.fnodes, self.finits, self.qnodes, self.qinits = [], [], [], []
        self.count = 0
        self.dequantized = {}  # activation -> its DequantizeLinear output (one pair per tensor)

    def name(self, prefix):
        self.count += 1
        return f"{prefix}_{self.count}"

    def weight(self, name, array, axis):
        """Float initializer on the float side; per-channel symmetric int8 + DequantizeLinear on the
        quantized side (ONNX Runtime: <w>_quantized, <w>_scale, <w>_zero_point)."""
        self.finits.append(numpy_helper.from_array(array, name))
        moved = np.moveaxis(array, axis, 0).reshape(array.shape[axis], -1)
        scale = (np.abs(moved).max(axis=1) / 127.0).astype(np.float32)
        scale[scale == 0] = 1.0
        shape = [1] * array.ndim
        shape[axis] = -1
        q = np.clip(np.rint(array / scale.reshape(shape)), -127, 127).astype(np.int8)
        self.qinits += [numpy_helper.from_array(q, name + "_quantized"), numpy_helper.from_array(scale, name + "_scale"),
                        numpy_helper.from_array(np.zeros_like(scale, dtype=np.int8), name + "_zero_point")]
        self.qnodes.append(helper.make_node("DequantizeLinear", [name + "_quantized", name + "_scale", name + "_zero_point"],
                                            [name + "_dq"], name=name + "_DequantizeLinear", axis=axis))
        return name, name + "_dq"

    def qdq(self, tensor):
        """Activation Q/DQ pair on the quantized side; returns the name consumers read."""
        if tensor in self.dequantized:
            return self.dequantized[tensor]
        s, z = tensor + "_scale", tensor + "_zero_point"
        self.qinits += [numpy_helper.from_array(np.array(0.05, np.float32), s), numpy_helper.from_array(np.array(128, np.uint8), z)]
        self.dequantized[tensor] = tensor + "_DequantizeLinear_Output"
        self.qnodes += [helper.make_node("QuantizeLinear", [tensor, s, z], [tensor + "_QuantizeLinear_Output"], name=tensor + "_QuantizeLinear"),
                        helper.make_node("DequantizeLinear", [tensor + "_QuantizeLinear_Output", s, z],
                                         [tensor + "_DequantizeLinear_Output"], name=tensor + "_DequantizeLinear")]
        return tensor + "_DequantizeLinear_Output"

    def op(self, op_type, float_inputs, quant_inputs, out, **attrs):
        self.fnodes.append(helper.make_node(op_type, float_inputs, [out], name=out, **attrs))
        self.qnodes.append(helper.make_node(op_type, quant_inputs, [out], name=out, **attrs))
        return out


def conv(b, x, cin, cout, k, stride=1, relu=True):
    w = (RNG.standard_normal((cout, cin, k, k), dtype=np.float32) * np.sqrt(2.0 / (cin * k * k))).astype(np.float32)
    wf, wq = b.weight(b.name("conv_w"), w, 0)
    bias = RNG.standard_normal(cout, dtype=np.float32) * 0.01
    bn = b.name("conv_b")
    b.finits.append(numpy_helper.from_array(bias, bn))
    b.qinits.append(numpy_helper.from_array(bias, bn))
    out = b.op("Conv", [x, wf, bn], [b.qdq(x), wq, bn], b.name("conv"), kernel_shape=[k, k], pads=[k // 2] * 4, strides=[stride, stride])
    return b.op("Relu", [out], [out], b.name("relu")) if relu else out


def resnet50(b):
    x = conv(b, "input", 3, 64, 7, 2)
    cin = 64
    for stage, (blocks, width) in enumerate(zip([3, 4, 6, 3], [64, 128, 256, 512])):
        for i in range(blocks):
            stride = 2 if i == 0 and stage > 0 else 1
            y = conv(b, x, cin, width, 1)
            y = conv(b, y, width, width, 3, stride)
            y = conv(b, y, width, width * 4, 1, relu=False)
            short = conv(b, x, cin, width * 4, 1, stride, relu=False) if i == 0 else x
            s = b.op("Add", [y, short], [b.qdq(y), b.qdq(short)], b.name("add"))
            x = b.op("Relu", [s], [s], b.name("relu"))
            cin = width * 4
    p = b.op("GlobalAveragePool", [x], [b.qdq(x)], b.name("gap"))
    f = b.op("Flatten", [p], [p], b.name("flatten"))
    w = RNG.standard_normal((1000, 2048), dtype=np.float32) * 0.02
    wf, wq = b.weight("fc_w", w, 0)
    return b.op("Gemm", [f, wf], [b.qdq(f), wq], "output", transB=1), [1, 3, 224, 224]


def seg1024(b):
    x = conv(b, "input", 3, 16, 3)
    cin = 16
    for width in (16, 32, 64, 128):  # down: 1024 -> 64
        x = conv(b, x, cin, width, 3, 2)
        for _ in range(5):
            y = conv(b, x, width, width, 3)
            y = conv(b, y, width, width, 3, relu=False)
            x = b.op("Add", [y, x], [b.qdq(y), b.qdq(x)], b.name("add"))
        cin = width
    scales = b.name("scales")
    up = np.array([1, 1, 2, 2], np.float32)
    b.finits.append(numpy_helper.from_array(up, scales))
    b.qinits.append(numpy_helper.from_array(up, scales))
    for width in (64, 32, 16, 16):  # up: 64 -> 1024
        x = b.op("Resize", [x, "", scales], [b.qdq(x), "", scales], b.name("resize"), mode="nearest")
        x = conv(b, x, cin, width, 3)
        for _ in range(5):
            y = conv(b, x, width, width, 3)
            y = conv(b, y, width, width, 3, relu=False)
            x = b.op("Add", [y, x], [b.qdq(y), b.qdq(x)], b.name("add"))
        cin = width
    return conv(b, x, cin, 8, 1, relu=False), [1, 3, 1024, 1024]


def linear(b, x, din, dout):
    w = RNG.standard_normal((din, dout), dtype=np.float32) * 0.02
    wf, wq = b.weight(b.name("w"), w, 1)
    mm = b.op("MatMul", [x, wf], [b.qdq(x), wq], b.name("matmul"))
    bias = RNG.standard_normal(dout, dtype=np.float32) * 0.01
    bn = b.name("bias")
    b.finits.append(numpy_helper.from_array(bias, bn))
    b.qinits.append(numpy_helper.from_array(bias, bn))
    return b.op("Add", [mm, bn], [mm, bn], b.name("add"))


def encoder(b, x, d=768, ffn=3072, layers=12):
    for layer in range(layers):
        q, k, v = (linear(b, x, d, d) for _ in range(3))
        kt = b.op("Transpose", [k], [k], b.name("kt"), perm=[0, 2, 1])
        att = b.op("MatMul", [q, kt], [b.qdq(q), b.qdq(kt)], b.name("scores"))
        sm = b.op("Softmax", [att], [att], b.name("softmax"), axis=-1)
        ctx = b.op("MatMul", [sm, v], [b.qdq(sm), b.qdq(v)], b.name("context"))
        o = linear(b, ctx, d, d)
        r = b.op("Add", [o, x], [o, x], b.name("residual"))
        h = linear(b, r, d, ffn)
        h = b.op("Relu", [h], [h], b.name("relu"))
        h = linear(b, h, ffn, d)
        x = b.op("Add", [h, r], [h, r], b.name("residual"))
    return x


def transformer12(b):
    d = 768
    x = encoder(b, "input", d)
    return b.op("Identity", [x], [x], "output"), [1, 128, d]


def transformer100m(b):
    d, vocab = 768, 30522
    table = RNG.standard_normal((vocab, d), dtype=np.float32) * 0.02
    wf, wq = b.weight("embeddings_word", table, 0)  # one channel per token, as Gather reads it
    x = b.op("Gather", [wf, "input"], [wq, "input"], "embed", axis=0)
    x = encoder(b, x, d)
    return b.op("Identity", [x], [x], "output"), [1, 128], TensorProto.INT64


def decoder_like(layers):
    def build(b):
        x = encoder(b, "input", 8, 16, layers)
        return b.op("Identity", [x], [x], "output"), [1, 4, 8]
    return build


def per_tensor_version(b):
    """The quantized side's initializers with every weight quantized per tensor instead."""
    floats = {t.name: numpy_helper.to_array(t) for t in b.finits}
    out = []
    for t in b.qinits:
        base = t.name[: -len("_quantized")] if t.name.endswith("_quantized") else None
        if base in floats:
            w = floats[base]
            scale = np.float32(max(np.abs(w).max() / 127.0, 1e-12))
            out.append(numpy_helper.from_array(np.clip(np.rint(w / scale), -127, 127).astype(np.int8), t.name))
            out.append(numpy_helper.from_array(np.array(scale, np.float32), base + "_scale"))
            out.append(numpy_helper.from_array(np.array(0, np.int8), base + "_zero_point"))
        elif (t.name.endswith("_scale") and t.name[: -len("_scale")] in floats) or (
                t.name.endswith("_zero_point") and t.name[: -len("_zero_point")] in floats):
            continue  # the weight's per-channel parameters, replaced above
        else:
            out.append(t)
    return out


def main(kind, outdir, three_way=False):
    b = Builder()
    kinds = {"resnet50": resnet50, "transformer12": transformer12, "transformer100m": transformer100m, "seg1024": seg1024}
    layers = re.fullmatch(r"decoder(\d+)", kind)
    out, shape, *input_type = (decoder_like(int(layers.group(1))) if layers else kinds[kind])(b)
    input_type = input_type[0] if input_type else TensorProto.FLOAT
    os.makedirs(outdir, exist_ok=True)
    sides = [("float", b.fnodes, b.finits, "bench"), ("quant", b.qnodes, b.qinits, "onnx.quantize")]
    if three_way:
        sides.append(("quant_b", b.qnodes, per_tensor_version(b), "onnx.quantize"))
    for side, nodes, inits, producer in sides:
        graph = helper.make_graph(nodes, kind, [helper.make_tensor_value_info("input", input_type, shape)],
                                  [helper.make_tensor_value_info(out, TensorProto.FLOAT, None)], inits)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], producer_name=producer)
        with open(os.path.join(outdir, f"{kind}_{side}.onnx"), "wb") as f:
            f.write(model.SerializeToString())


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], len(sys.argv) > 3 and sys.argv[3] == "three_way")
