#!/usr/bin/env python3
"""A Llama-shaped decoder in float16 and its MatMulNBits 4-bit version (block 32, symmetric, ONNX
Runtime's com.microsoft convention), both with every weight in an external-data file, written
weight by weight straight into the data files: neither model is ever held whole in memory
(onnx.save_model would hold it all: 9.6 GB of RSS for a 3.2 GB model).

    make_llm_pair.py OUT_DIR [--layers 32] [--d 4096] [--ffn 11008] [--vocab 32000] [--heads 32]
                     [--float float16|float32] [--quant matmulnbits|qdq-int8|qdq-int4]

Writes OUT_DIR/float.onnx + float.onnx.data and OUT_DIR/quant.onnx + quant.onnx.data. The
defaults are the 7B class (6.7 B parameters: 13.5 GB in fp16, about 3.9 GB in int4). Weights are
seeded normals (std 0.02), the same on every run. Each decoder layer: LayerNormalization, q/k/v
projections, a scaled-dot-product attention over heads, the output projection, a residual Add,
LayerNormalization, a SiLU-gated MLP (gate, up, down) and a residual Add, in name scopes as ONNX
Runtime GenAI's builder writes them (/model/layers.N/attn/q_proj/MatMul). The quantized model is
the same graph with each projection's MatMul a MatMulNBits (K, N, bits 4, block_size 32, no zero
points: 8 by default), the token embedding left in float16, as the builder leaves it.

The other quantized forms, for the same float model: `qdq-int8` is ONNX Runtime's static QDQ
quantizer's output (each projection's input through QuantizeLinear/DequantizeLinear, uint8 with a
per-tensor scale, its weight int8 per output channel, axis 1, symmetric: quantize_static with
per_channel=True); `qdq-int4` is MatMul4BitsQuantizer's QDQ format (a DequantizeLinear of an int4
weight [K, N] blocked along K, axis 0, block_size 32, symmetric, opset 21). `--float float32` writes
the float model (and the quantized one's float tensors) in float32.
"""
import argparse
import os

import numpy as np
import onnx
from onnx import TensorProto, helper

BLOCK = 32
INT4 = 22  # TensorProto.INT4 (onnx 1.16); the onnx module here predates it, the wire value is what counts


class DataFile:
    """Tensors appended to one external-data file, each at a 64-byte aligned offset."""

    def __init__(self, path, location):
        self.f = open(path, "wb")
        self.location = location

    def tensor(self, name, array, data_type):
        pad = (-self.f.tell()) % 64
        self.f.write(b"\0" * pad)
        offset = self.f.tell()
        raw = np.ascontiguousarray(array).tobytes()
        self.f.write(raw)
        t = TensorProto(name=name, data_type=data_type, dims=array.shape)
        t.data_location = TensorProto.EXTERNAL
        for key, value in (("location", self.location), ("offset", str(offset)), ("length", str(len(raw)))):
            e = t.external_data.add()
            e.key, e.value = key, value
        return t

    def close(self):
        self.f.close()


def quantize_4bit(w):
    """w [K, N] float16 -> (B [N, K/32, 16] uint8, scales [N * K/32] float16): symmetric, zero point 8."""
    k, n = w.shape
    blocks = w.T.astype(np.float32).reshape(n, k // BLOCK, BLOCK)
    scale = np.abs(blocks).max(axis=2) / 7.0
    scale[scale == 0] = 1.0
    scale = scale.astype(np.float16)
    q = np.clip(np.rint(blocks / scale.astype(np.float32)[:, :, None]), -8, 7).astype(np.int16) + 8
    q = q.astype(np.uint8)
    packed = (q[:, :, 0::2] | (q[:, :, 1::2] << 4)).astype(np.uint8)  # low nibble first
    return packed, scale.reshape(-1)


def quantize_int8_per_channel(w):
    """w [K, N] -> (q [K, N] int8, scale [N]): symmetric per output channel (axis 1)."""
    w32 = w.astype(np.float32)
    scale = np.abs(w32).max(axis=0) / 127.0
    scale[scale == 0] = 1.0
    q = np.clip(np.rint(w32 / scale), -127, 127).astype(np.int8)
    return q, scale


def quantize_int4_blocked(w):
    """w [K, N] -> (q [K, N] int4 packed two to a byte, low nibble first, scale [K/32, N]): symmetric."""
    k, n = w.shape
    blocks = w.astype(np.float32).reshape(k // BLOCK, BLOCK, n)
    scale = np.abs(blocks).max(axis=1) / 7.0
    scale[scale == 0] = 1.0
    q = np.clip(np.rint(blocks / scale[:, None, :]), -8, 7).astype(np.int8).reshape(-1)
    nibbles = (q & 0x0F).astype(np.uint8)
    if nibbles.size % 2:
        nibbles = np.append(nibbles, np.uint8(0))
    return (nibbles[0::2] | (nibbles[1::2] << 4)).astype(np.uint8), scale


def build(args, out_dir):
    d, ffn, vocab, layers, heads = args.d, args.ffn, args.vocab, args.layers, args.heads
    fdata = DataFile(os.path.join(out_dir, "float.onnx.data"), "float.onnx.data")
    qdata = DataFile(os.path.join(out_dir, "quant.onnx.data"), "quant.onnx.data")
    graphs = {"float": ([], []), "quant": ([], [])}  # nodes, initializers
    seed = [0]

    def both(node):
        graphs["float"][0].append(node)
        graphs["quant"][0].append(node)

    float_type = TensorProto.FLOAT16 if args.float == "float16" else TensorProto.FLOAT
    float_np = np.float16 if args.float == "float16" else np.float32

    def weight(shape):
        seed[0] += 1
        return np.random.default_rng(seed[0]).normal(0.0, 0.02, shape).astype(float_np)

    def shared(name, array):
        graphs["float"][1].append(fdata.tensor(name, array, float_type))
        graphs["quant"][1].append(qdata.tensor(name, array, float_type))

    def small(name, values, data_type, dims=()):
        t = helper.make_tensor(name, data_type, list(dims), values)
        graphs["quant"][1].append(t)
        return name

    def projection(scope, x, k, n):
        w = weight((k, n))
        out = f"{scope}/MatMul_output_0"
        name = scope.strip("/").replace("/", ".") + ".weight"
        graphs["float"][1].append(fdata.tensor(name, w, float_type))
        graphs["float"][0].append(helper.make_node("MatMul", [x, name], [out], name=f"{scope}/MatMul"))
        quant_nodes = graphs["quant"][0]
        if args.quant == "matmulnbits":
            packed, scales = quantize_4bit(w)
            graphs["quant"][1].append(qdata.tensor(f"{name}.Q4", packed, TensorProto.UINT8))
            graphs["quant"][1].append(qdata.tensor(f"{name}.scales", scales.astype(float_np), float_type))
            quant_nodes.append(helper.make_node("MatMulNBits", [x, f"{name}.Q4", f"{name}.scales"], [out], name=f"{scope}/MatMulNBits",
                                                domain="com.microsoft", K=k, N=n, bits=4, block_size=BLOCK))
            return out
        if args.quant == "qdq-int8":
            # The activation through uint8 with a per-tensor scale (a calibrated range, fixed here).
            scale = small(f"{scope}/input_scale", [8.0 / 255.0], float_type)
            zero = small(f"{scope}/input_zero_point", [128], TensorProto.UINT8)
            quant_nodes.append(helper.make_node("QuantizeLinear", [x, scale, zero], [f"{scope}/input_quantized"], name=f"{scope}/input_QuantizeLinear"))
            quant_nodes.append(helper.make_node("DequantizeLinear", [f"{scope}/input_quantized", scale, zero], [f"{scope}/input_dequantized"],
                                                name=f"{scope}/input_DequantizeLinear"))
            x = f"{scope}/input_dequantized"
            q, wscale = quantize_int8_per_channel(w)
            graphs["quant"][1].append(qdata.tensor(f"{name}_quantized", q, TensorProto.INT8))
            graphs["quant"][1].append(qdata.tensor(f"{name}_scale", wscale.astype(float_np), float_type))
            graphs["quant"][1].append(qdata.tensor(f"{name}_zero_point", np.zeros(n, np.int8), TensorProto.INT8))
            quant_nodes.append(helper.make_node("DequantizeLinear", [f"{name}_quantized", f"{name}_scale", f"{name}_zero_point"],
                                                [f"{name}_dequantized"], name=f"{name}_DequantizeLinear", axis=1))
        else:  # qdq-int4
            packed, wscale = quantize_int4_blocked(w)
            t = qdata.tensor(f"{name}_Q4", packed, INT4)
            del t.dims[:]
            t.dims.extend([k, n])  # the logical shape: two elements a byte
            graphs["quant"][1].append(t)
            graphs["quant"][1].append(qdata.tensor(f"{name}_scale", wscale.astype(float_np), float_type))
            quant_nodes.append(helper.make_node("DequantizeLinear", [f"{name}_Q4", f"{name}_scale"], [f"{name}_dequantized"],
                                                name=f"{name}_DequantizeLinear", axis=0, block_size=BLOCK))
        quant_nodes.append(helper.make_node("MatMul", [x, f"{name}_dequantized"], [out], name=f"{scope}/MatMul"))
        return out

    def norm(scope, x):
        shared(f"{scope}.weight".strip("/").replace("/", "."), np.ones(d, float_np))
        shared(f"{scope}.bias".strip("/").replace("/", "."), np.zeros(d, float_np))
        base = scope.strip("/").replace("/", ".")
        out = f"{scope}/output_0"
        both(helper.make_node("LayerNormalization", [x, f"{base}.weight", f"{base}.bias"], [out], name=f"{scope}/LayerNorm", axis=-1, epsilon=1e-5))
        return out

    def const(name, values, dtype=np.int64):
        t = helper.make_tensor(name, TensorProto.INT64 if dtype == np.int64 else float_type, [len(values)], values)
        graphs["float"][1].append(t)
        graphs["quant"][1].append(t)
        return name

    shared("model.embed_tokens.weight", weight((vocab, d)))
    both(helper.make_node("Gather", ["model.embed_tokens.weight", "input_ids"], ["/model/embed_tokens/Gather_output_0"], name="/model/embed_tokens/Gather"))
    x = "/model/embed_tokens/Gather_output_0"
    head = d // heads
    const("split_heads", [0, 0, heads, head])
    const("merge_heads", [0, 0, d])
    for i in range(layers):
        p = f"/model/layers.{i}"
        h = norm(f"{p}/input_layernorm", x)
        qkv = {}
        for proj in ("q", "k", "v"):
            y = projection(f"{p}/attn/{proj}_proj", h, d, d)
            both(helper.make_node("Reshape", [y, "split_heads"], [f"{p}/attn/{proj}_heads"], name=f"{p}/attn/{proj}_reshape/Reshape"))
            both(helper.make_node("Transpose", [f"{p}/attn/{proj}_heads"], [f"{p}/attn/{proj}_t"], name=f"{p}/attn/{proj}_transpose/Transpose",
                                  perm=[0, 2, 3, 1] if proj == "k" else [0, 2, 1, 3]))
            qkv[proj] = f"{p}/attn/{proj}_t"
        both(helper.make_node("MatMul", [qkv["q"], qkv["k"]], [f"{p}/attn/scores"], name=f"{p}/attn/scores/MatMul"))
        both(helper.make_node("Softmax", [f"{p}/attn/scores"], [f"{p}/attn/probs"], name=f"{p}/attn/Softmax", axis=-1))
        both(helper.make_node("MatMul", [f"{p}/attn/probs", qkv["v"]], [f"{p}/attn/context"], name=f"{p}/attn/context/MatMul"))
        both(helper.make_node("Transpose", [f"{p}/attn/context"], [f"{p}/attn/context_t"], name=f"{p}/attn/merge/Transpose", perm=[0, 2, 1, 3]))
        both(helper.make_node("Reshape", [f"{p}/attn/context_t", "merge_heads"], [f"{p}/attn/merged"], name=f"{p}/attn/merge/Reshape"))
        o = projection(f"{p}/attn/o_proj", f"{p}/attn/merged", d, d)
        both(helper.make_node("Add", [x, o], [f"{p}/attn_residual"], name=f"{p}/attn/residual/Add"))
        h2 = norm(f"{p}/post_attention_layernorm", f"{p}/attn_residual")
        gate = projection(f"{p}/mlp/gate_proj", h2, d, ffn)
        up = projection(f"{p}/mlp/up_proj", h2, d, ffn)
        both(helper.make_node("Sigmoid", [gate], [f"{p}/mlp/act/sig"], name=f"{p}/mlp/act/Sigmoid"))
        both(helper.make_node("Mul", [gate, f"{p}/mlp/act/sig"], [f"{p}/mlp/act/silu"], name=f"{p}/mlp/act/Mul"))
        both(helper.make_node("Mul", [f"{p}/mlp/act/silu", up], [f"{p}/mlp/gated"], name=f"{p}/mlp/Mul"))
        down = projection(f"{p}/mlp/down_proj", f"{p}/mlp/gated", ffn, d)
        both(helper.make_node("Add", [f"{p}/attn_residual", down], [f"{p}/output"], name=f"{p}/mlp/residual/Add"))
        x = f"{p}/output"
    h = norm("/model/norm", x)
    projection("/lm_head", h, d, vocab)
    fdata.close()
    qdata.close()
    quant_producer = "onnxruntime-genai" if args.quant == "matmulnbits" else "onnx.quantize"
    for side, producer in (("float", "pytorch"), ("quant", quant_producer)):
        nodes, inits = graphs[side]
        graph = helper.make_graph(nodes, "decoder", [helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "sequence"])],
                                  [helper.make_tensor_value_info("/lm_head/MatMul_output_0", float_type, ["batch", "sequence", vocab])], inits)
        opset = 21 if side == "quant" and args.quant == "qdq-int4" else 17  # int4 and block_size: opset 21
        opsets = [helper.make_opsetid("", opset)] + ([helper.make_opsetid("com.microsoft", 1)] if side == "quant" and args.quant == "matmulnbits" else [])
        model = helper.make_model(graph, opset_imports=opsets, producer_name=producer, ir_version=10 if opset == 21 else 8)
        with open(os.path.join(out_dir, f"{side}.onnx"), "wb") as f:
            f.write(model.SerializeToString())


def main():
    a = argparse.ArgumentParser()
    a.add_argument("out")
    a.add_argument("--layers", type=int, default=32)
    a.add_argument("--d", type=int, default=4096)
    a.add_argument("--ffn", type=int, default=11008)
    a.add_argument("--vocab", type=int, default=32000)
    a.add_argument("--heads", type=int, default=32)
    a.add_argument("--float", choices=("float16", "float32"), default="float16")
    a.add_argument("--quant", choices=("matmulnbits", "qdq-int8", "qdq-int4"), default="matmulnbits")
    args = a.parse_args()
    os.makedirs(args.out, exist_ok=True)
    build(args, args.out)


if __name__ == "__main__":
    main()
