#!/usr/bin/python3
"""The numpy peer of `visualquant weights`: what a user writes today with onnx + numpy.

Given a float ONNX model, its quantized version and the list of aligned weight pairs (the pairing
is alignment, not measurement: it is taken from `visualquant weights FLOAT QUANT --json -`, only
float_node / quant_node / shape and the flags batchnorm_folded / pre_quant_scale are used), it
computes every measure of a weight pair independently, from the ONNX files, with vectorised numpy:

  * the weight as each op sees it: initializers and Constant nodes, through QuantizeLinear (fake
    quantization), Cast / Identity /
    Reshape / Flatten / Squeeze / Unsqueeze / Transpose / ConstantOfShape; DequantizeLinear (and
    the com.microsoft, TensorRT and Quark variants) per tensor, per axis or blocked, int4/uint4
    packing, float16/bfloat16 scales, as the ONNX reference computes it ((x - zp) in float32 times
    the scale, rounded to the scale's type); QLinearConv / QLinearMatMul / QGemm weight inputs;
    ConvInteger / MatMulInteger with the weight scale read from the rescale Mul(x_scale, w_scale);
    DynamicQuantizeMatMul / MatMulIntegerToFloat; MatMulNBits and GatherBlockQuantized unpacking;
  * the canonical [output channels, elements] layout, the float weight multiplied per channel by
    gamma / sqrt(var + eps) of the float model's BatchNormalization when batchnorm_folded, the
    dequantised weight multiplied per input column by the constant of the Mul before the quantized
    MatMul (AWQ / SmoothQuant pre-quantization scale) when pre_quant_scale;
  * both sides' distributions (moments in float64, numpy.quantile 'linear'), errors, shared
    histogram, code usage, outliers and the per-channel series, in the JSON structure of
    `visualquant weights --json` (full precision instead of 9 significant digits).

usage: weights_peer.py FLOAT QUANT --pairing PAIRS.json [--bins N] [--out FILE] [--time]
  PAIRS.json: the output of `visualquant weights FLOAT QUANT --json -` (only its pairing is read).
  --time prints the peer's own wall times on stderr: peer_seconds (from the models' loading to the
         JSON text), peer_load_seconds (onnx.load of both) and peer_analysis_seconds (the rest
         but the JSON).
"""
import argparse
import json
import math
import os
import re
import sys
import time

import numpy as np
import onnx
from onnx import helper

QUANTILES = (0.001, 0.01, 0.05, 0.25, 0.5, 0.75, 0.95, 0.99, 0.999)
QUANTILE_KEYS = ("p0.1", "p1", "p5", "p25", "p50", "p75", "p95", "p99", "p99.9")
OUTLIER_SIGMAS = 6.0
# What the peer takes from `visualquant weights --json`: which ops are paired and which adjustments
# (a folded BatchNormalization, an AWQ pre-quantization scale) the pairing found; no measure.
PAIRING_KEYS = ("entry", "float_node", "quant_node", "float_op_type", "quant_op_type", "shape", "batchnorm_folded",
                "pre_quant_scale", "output_rescale")
LISTED_OUTLIERS = 32

# ---------------------------------------------------------------------------------------------
# Tensors (onnx 1.12's numpy_helper knows neither int4 nor uint4: decode TensorProto ourselves).

BFLOAT16, UINT4, INT4 = 16, 21, 22
NUMPY_TYPES = {1: np.float32, 2: np.uint8, 3: np.int8, 4: np.uint16, 5: np.int16, 6: np.int32, 7: np.int64,
               9: np.bool_, 10: np.float16, 11: np.float64, 12: np.uint32, 13: np.uint64}
TYPE_NAMES = {1: "float", 2: "uint8", 3: "int8", 4: "uint16", 5: "int16", 6: "int32", 7: "int64", 9: "bool",
              10: "float16", 11: "double", 12: "uint32", 13: "uint64", 16: "bfloat16", 21: "uint4", 22: "int4"}
INTEGER_BITS = {2: (8, False), 3: (8, True), 4: (16, False), 5: (16, True), 6: (32, True), 7: (64, True),
                12: (32, False), 13: (64, False), 21: (4, False), 22: (4, True)}


class Typed:
    """An array with its ONNX element type (bfloat16 is held as float32, 4-bit types as int8/uint8)."""

    def __init__(self, array, elem_type):
        self.a, self.t = array, elem_type


def round_to_bfloat16(x):
    bits = np.ascontiguousarray(x, dtype=np.float32).view(np.uint32)
    rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000).astype(np.uint32)
    out = rounded.view(np.float32)
    return np.where(np.isnan(x), x, out)


def unpack_4bit(raw, count, signed):
    b = np.frombuffer(raw, dtype=np.uint8)
    v = np.empty(b.size * 2, dtype=np.uint8)
    v[0::2] = b & 0x0F
    v[1::2] = b >> 4
    v = v[:count]
    return ((v.astype(np.int8) ^ 8) - 8) if signed else v


def external_bytes(t, base_dir):
    info = {e.key: e.value for e in t.external_data}
    with open(os.path.join(base_dir, info["location"]), "rb") as f:
        f.seek(int(info.get("offset", 0)))
        return f.read(int(info["length"])) if "length" in info else f.read()


def tensor_array(t, base_dir):
    dims = tuple(t.dims)
    count = int(np.prod(dims)) if dims else 1
    et = t.data_type
    raw = None
    if t.data_location == onnx.TensorProto.EXTERNAL:
        raw = external_bytes(t, base_dir)
    elif t.HasField("raw_data"):
        raw = t.raw_data
    if et in (UINT4, INT4):
        if raw is None:
            raw = np.asarray(t.int32_data, dtype=np.int32).astype(np.uint8).tobytes()
        return Typed(unpack_4bit(raw, count, et == INT4).reshape(dims), et)
    if et == BFLOAT16:
        bits = np.frombuffer(raw, dtype=np.uint16) if raw is not None else np.asarray(t.int32_data, dtype=np.uint16)
        return Typed((bits.astype(np.uint32) << 16).view(np.float32).reshape(dims), et)
    if et not in NUMPY_TYPES:
        raise ValueError(f"tensor '{t.name}': element type {et} not supported")
    dt = NUMPY_TYPES[et]
    if raw is not None:
        a = np.frombuffer(raw, dtype=dt)
    elif et == 1:
        a = np.asarray(t.float_data, dtype=dt)
    elif et == 11:
        a = np.asarray(t.double_data, dtype=dt)
    elif et == 7:
        a = np.asarray(t.int64_data, dtype=dt)
    elif et in (12, 13):
        a = np.asarray(t.uint64_data, dtype=dt)
    elif et == 10:
        a = np.asarray(t.int32_data, dtype=np.uint16).view(np.float16)
    else:
        a = np.asarray(t.int32_data).astype(dt)
    return Typed(a.reshape(dims), et)


# ---------------------------------------------------------------------------------------------
# Values as ops see them.

class Quantized:
    """A dequantised value and, element by element, the integer code, step (scale) and zero point."""

    def __init__(self, values, codes, steps, zps, code_type):
        self.values, self.codes, self.steps, self.zps, self.code_type = values, codes, steps, zps, code_type

    def map(self, f):
        return Quantized(f(self.values), f(self.codes), f(self.steps), f(self.zps), self.code_type)


def values_of(v):
    return v.values if isinstance(v, Quantized) else v.a


def code_range(code_type):
    bits, signed = INTEGER_BITS[code_type]
    return (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1) if signed else (0, 2 ** bits - 1)


DEQUANTIZE_OPS = {("", "DequantizeLinear"), ("com.microsoft", "DequantizeLinear"),
                  ("com.amd.quark", "ExtendedDequantizeLinear"), ("com.vai.quantize", "VitisDequantizeLinear")}


def is_dequantize(node):
    return (node.domain, node.op_type) in DEQUANTIZE_OPS or node.op_type == "TRT_INT4DequantizeLinear"


def broadcast_param(param, shape, axis, block):
    """A scale / zero point expanded to x's shape: per tensor, per axis or blocked along axis."""
    if block:
        p = np.repeat(param, block, axis=axis)
        p = np.take(p, np.arange(shape[axis]), axis=axis)
    elif param.size == 1:
        p = param.reshape(())
    else:
        s = [1] * len(shape)
        s[axis] = -1
        p = param.reshape(s)
    return np.broadcast_to(p, shape)


def dequantize(x, scale, zp, axis=1, block=0):
    """DequantizeLinear as the ONNX reference computes it."""
    codes = x.a
    if codes.ndim:
        axis = axis % codes.ndim
    s = broadcast_param(scale.a, codes.shape, axis, block)
    z = broadcast_param(zp.a, codes.shape, axis, block) if zp is not None else np.zeros((), np.float32)
    z = np.broadcast_to(z, codes.shape)
    y = (codes.astype(np.float32) - z.astype(np.float32)) * s  # float32 (float64 for double scales)
    if scale.t == 10:
        y = y.astype(np.float16)
    elif scale.t == BFLOAT16:
        y = round_to_bfloat16(y)
    return Quantized(y, codes, s, z, x.t)


class Model:
    def __init__(self, path):
        self.proto = onnx.load(path, load_external_data=False)
        self.dir = os.path.dirname(os.path.abspath(path))
        g = self.proto.graph
        self.nodes = list(g.node)
        # If/Loop/Scan bodies too: their ops have weights (read from the enclosing graphs by name).
        graphs, everything = [g], []
        while graphs:
            graph = graphs.pop(0)
            everything.append(graph)
            for n in graph.node:
                graphs += [a.g for a in n.attribute if a.HasField("g")] + [b for a in n.attribute for b in a.graphs]
        self.inits = {t.name: t for graph in reversed(everything) for t in graph.initializer}
        all_nodes = [n for graph in everything for n in graph.node]
        self.producer, self.consumers = {}, {}
        for n in all_nodes:
            for o in n.output:
                if o:
                    self.producer[o] = n
            for i in n.input:
                if i:
                    self.consumers.setdefault(i, []).append(n)
        counts = {}
        for n in all_nodes:
            counts[n.name] = counts.get(n.name, 0) + 1
        self.by_id = {}
        for k, n in enumerate(self.nodes):
            self.by_id[n.name if n.name and counts[n.name] == 1 else f"#{k}"] = n
        for n in all_nodes[len(self.nodes):]:
            if n.name and counts[n.name] == 1:
                self.by_id[n.name] = n
        self.cache = {}

    def node(self, node_id):
        if node_id in self.by_id:
            return self.by_id[node_id]
        m = re.fullmatch(r"#(\d+)~*", node_id)
        if m:
            return self.nodes[int(m.group(1))]
        raise KeyError(f"node '{node_id}' not found")

    def is_constant(self, name, depth=0):
        """Computed from initializers and Constant nodes only."""
        if not name or depth > 32:
            return False
        if name in self.inits:
            return True
        p = self.producer.get(name)
        if p is None:
            return False
        if p.op_type == "Constant":
            return True
        inputs = [i for i in p.input if i]
        return bool(inputs) and all(self.is_constant(i, depth + 1) for i in inputs)

    def stored_size(self, name):
        """Element count of the stored tensor at the root of a constant (through first inputs)."""
        for _ in range(16):
            if name in self.inits:
                return int(np.prod(self.inits[name].dims)) if self.inits[name].dims else 1
            p = self.producer.get(name)
            if p is None:
                return 1
            if p.op_type == "Constant":
                t = attribute(p, "value")
                return int(np.prod(t.dims)) if t is not None and t.dims else 1
            if not p.input:
                return 1
            name = p.input[0]
        return 1

    def value(self, name):
        if name not in self.cache:
            self.cache[name] = self._value(name)
        return self.cache[name]

    def _value(self, name):
        if name in self.inits:
            return tensor_array(self.inits[name], self.dir)
        n = self.producer.get(name)
        if n is None:
            raise ValueError(f"'{name}' is not a constant")
        op = n.op_type
        if op == "Constant":
            for a in n.attribute:
                if a.name == "value":
                    return tensor_array(a.t, self.dir)
                if a.name == "value_float":
                    return Typed(np.array(a.f, np.float32), 1)
                if a.name == "value_floats":
                    return Typed(np.array(a.floats, np.float32), 1)
                if a.name == "value_int":
                    return Typed(np.array(a.i, np.int64), 7)
                if a.name == "value_ints":
                    return Typed(np.array(a.ints, np.int64), 7)
            raise ValueError(f"Constant '{n.name}' without a supported value")
        if is_dequantize(n):
            zp = self.value(n.input[2]) if len(n.input) > 2 and n.input[2] else None
            return dequantize(self.value(n.input[0]), self.value(n.input[1]), zp, attr_int(n, "axis", 1), attr_int(n, "block_size", 0))
        if op == "QuantizeLinear" and n.domain in ("", "ai.onnx"):
            # Fake quantization (QAT exports): QuantizeLinear of a float weight, as the ONNX
            # reference computes it (float32 division, rint, saturation to the zero point's type).
            x = values_of(self.value(n.input[0]))
            scale = self.value(n.input[1]).a
            zp = self.value(n.input[2]) if len(n.input) > 2 and n.input[2] else Typed(np.zeros((), np.uint8), 2)
            axis = attr_int(n, "axis", 1) % x.ndim if x.ndim else 0
            s = broadcast_param(scale, x.shape, axis, 0).astype(np.float32)
            z = broadcast_param(zp.a, x.shape, axis, 0)
            info = np.iinfo(zp.a.dtype)
            q = np.clip(np.rint(x.astype(np.float32) / s) + z.astype(np.float64), info.min, info.max)
            return Typed(q.astype(zp.a.dtype), zp.t)
        if n.domain not in ("", "ai.onnx"):
            raise ValueError(f"'{name}': {n.domain}:{op} is not evaluated")
        x = self.value(n.input[0]) if n.input else None
        if op == "Identity":
            return x
        if op == "Cast":
            to = attr_int(n, "to", 1)
            if to == BFLOAT16:
                cast = lambda a: round_to_bfloat16(a.astype(np.float32))
            else:
                cast = lambda a: a.astype(NUMPY_TYPES[to])
            if isinstance(x, Quantized):  # the values narrow or widen; codes and steps stay
                return Quantized(cast(x.values), x.codes, x.steps, x.zps, x.code_type)
            return Typed(cast(x.a), to)
        if op == "ConstantOfShape":
            shape = tuple(int(d) for d in self.value(n.input[0]).a)
            t = attribute(n, "value")
            fill = tensor_array(t, self.dir) if t is not None else Typed(np.zeros(1, np.float32), 1)
            return Typed(np.full(shape, fill.a.reshape(-1)[0], dtype=fill.a.dtype), fill.t)
        if op in ("Reshape", "Flatten", "Squeeze", "Unsqueeze", "Transpose"):
            shape_of = values_of(x).shape
            if op == "Reshape":
                target = [int(d) for d in self.value(n.input[1]).a]
                if not attr_int(n, "allowzero", 0):
                    target = [shape_of[i] if d == 0 else d for i, d in enumerate(target)]
                f = lambda a: a.reshape(target)
            elif op == "Flatten":
                axis = attr_int(n, "axis", 1) % (len(shape_of) + 1) if shape_of else 0
                outer = int(np.prod(shape_of[:axis])) if axis else 1
                f = lambda a: a.reshape(outer, -1)
            elif op in ("Squeeze", "Unsqueeze"):
                axes = [int(d) for d in self.value(n.input[1]).a] if len(n.input) > 1 and n.input[1] else attr_ints(n, "axes")
                if op == "Squeeze":
                    axes = tuple(a % len(shape_of) for a in axes) if axes else tuple(i for i, d in enumerate(shape_of) if d == 1)
                    f = lambda a: np.squeeze(a, axis=axes)
                else:
                    f = lambda a: np.expand_dims(a, axis=tuple(axes))
            else:
                perm = attr_ints(n, "perm") or list(reversed(range(len(shape_of))))
                f = lambda a: np.transpose(a, perm)
            return x.map(f) if isinstance(x, Quantized) else Typed(f(x.a), x.t)
        raise ValueError(f"'{name}': {op} is not evaluated")


def attribute(n, name):
    for a in n.attribute:
        if a.name == name:
            return helper.get_attribute_value(a)
    return None


def attr_int(n, name, default):
    v = attribute(n, name)
    return default if v is None else int(v)


def attr_ints(n, name):
    v = attribute(n, name)
    return [] if v is None else [int(x) for x in v]


# ---------------------------------------------------------------------------------------------
# The main weight of an op, dequantised, and its output-channel axis.

def unpack_bits(raw_rows, bits):
    """Unsigned codes packed least significant bits first, one row per input row."""
    if bits == 8:
        return raw_rows
    if bits == 4:
        out = np.empty(raw_rows.shape[:-1] + (raw_rows.shape[-1] * 2,), np.uint8)
        out[..., 0::2] = raw_rows & 0x0F
        out[..., 1::2] = raw_rows >> 4
        return out
    b = np.unpackbits(raw_rows, axis=-1, bitorder="little")
    b = b.reshape(raw_rows.shape[:-1] + (-1, bits))
    return (b * (1 << np.arange(bits, dtype=np.uint16))).sum(-1).astype(np.uint8)


def packed_blocks(m, codes, scales, zero_points, rows, cols, bits, block, default_zp, round_to_scale_type):
    """MatMulNBits' layout (GatherBlockQuantized with uint8 data too): rows of packed codes, one
    scale (and zero point) per block of `block` codes along each row. ONNX Runtime's CPU kernels
    compute (q - zp) x scale in float32; GatherBlockQuantized then writes its output type (the
    scale's), MatMulNBits multiplies with the float32 weight (no fixture has float16 scales)."""
    blocks = -(-cols // block)
    q = unpack_bits(codes.a.reshape(rows, -1), bits)[:, :cols]
    s = scales.a.reshape(rows, blocks)
    if zero_points is None:
        z = np.full((rows, blocks), default_zp, np.float32)
    elif zero_points.t == 2:
        z = unpack_bits(zero_points.a.reshape(rows, -1), bits)[:, :blocks]
    else:
        z = zero_points.a.reshape(rows, blocks)
    s = np.repeat(s, block, axis=1)[:, :cols]
    z = np.repeat(z, block, axis=1)[:, :cols]
    y = (q.astype(np.float32) - z.astype(np.float32)) * s.astype(np.float32)
    if round_to_scale_type and scales.t == 10:
        y = y.astype(np.float16)
    elif round_to_scale_type and scales.t == BFLOAT16:
        y = round_to_bfloat16(y)
    return Quantized(y, q, s, z, 21 if bits == 4 else 2)


def integer_weight_scale(m, n):
    """The constant weight scale of ConvInteger/MatMulInteger's rescale: output -> [Cast] -> Mul(.,
    S) where S is a constant or Mul(x_scale from DynamicQuantizeLinear, w_scale constant)."""
    v = n.output[0]
    for _ in range(3):
        cs = m.consumers.get(v, [])
        if len(cs) != 1:
            return None
        c = cs[0]
        if c.op_type == "Cast":
            v = c.output[0]
            continue
        if c.op_type != "Mul":
            return None
        other = c.input[1] if c.input[0] == v else c.input[0]
        if other in m.inits or (other in m.producer and m.producer[other].op_type == "Constant"):
            return m.value(other)
        p = m.producer.get(other)
        if p is None or p.op_type != "Mul":
            return None
        for i in (0, 1):
            dyn = m.producer.get(p.input[1 - i])
            if m.is_constant(p.input[i]) and dyn is not None and dyn.op_type == "DynamicQuantizeLinear":
                return m.value(p.input[i])
        return None
    return None


def integer_dequantize(codes, scale, zp, axis):
    """(code - zp) * scale in float32, per tensor or per channel along `axis` of the weight (the
    arithmetic of DequantizeLinear: what ONNX Runtime's rescale computes for the weight's part)."""
    return dequantize(codes, scale, zp, axis, 0)


def weight_of(m, n):
    """(value as the op sees it, output-channel axis)."""
    op, dom = n.op_type, n.domain
    inp = lambda i: n.input[i] if i < len(n.input) and n.input[i] else None
    val = lambda i: m.value(inp(i)) if inp(i) else None
    if op == "MatMulNBits":
        N, K, bits, block = attr_int(n, "N", 0), attr_int(n, "K", 0), attr_int(n, "bits", 4), attr_int(n, "block_size", 0)
        return packed_blocks(m, val(1), val(2), val(3), N, K, bits, block, 2 ** (bits - 1), False), 0
    if op == "GatherBlockQuantized":
        data = val(0)
        rank = data.a.ndim
        qaxis = attr_int(n, "quantize_axis", 1) % rank
        block = attr_int(n, "block_size", 128)
        gaxis = attr_int(n, "gather_axis", 0)
        if data.t != 2:
            return dequantize(data, val(2), val(3), qaxis, block), gaxis
        bits = attr_int(n, "bits", 4)
        rows = int(np.prod(data.a.shape[:-1]))
        cols = data.a.shape[-1] * 8 // bits
        q = packed_blocks(m, data, val(2), val(3), rows, cols, bits, block, 2 ** (bits - 1), True)
        shape = data.a.shape[:-1] + (cols,)
        return q.map(lambda a: a.reshape(shape)), gaxis
    if op == "QLinearConv":
        return dequantize(val(3), val(4), val(5), 0), 0
    if op == "QLinearMatMul":
        return dequantize(val(3), val(4), val(5), -1), -1
    if op == "QGemm":
        axis = 0 if attr_int(n, "transB", 0) else 1
        return dequantize(val(3), val(4), val(5), axis), axis
    if op in ("ConvInteger", "MatMulInteger"):
        axis = 0 if op == "ConvInteger" else -1
        scale = integer_weight_scale(m, n)
        if scale is None:
            scale = Typed(np.ones((), np.float32), 1)
        return integer_dequantize(val(1), scale, val(3), axis), axis
    if op == "DynamicQuantizeMatMul":
        return integer_dequantize(val(1), val(2), val(3), -1), -1
    if op == "MatMulIntegerToFloat":
        return integer_dequantize(val(1), val(3), val(5), -1), -1
    if op in ("Conv", "FusedConv", "NhwcConv"):
        return val(1), 0
    if op == "ConvTranspose":
        return val(1), 1
    if op == "Gemm":
        return val(1), 0 if attr_int(n, "transB", 0) else 1
    if op in ("MatMul", "FusedMatMul"):
        if inp(1) and m.is_constant(inp(1)):
            trans = op == "FusedMatMul" and attr_int(n, "transB", 0)
            return val(1), -2 if trans else -1
        trans = op == "FusedMatMul" and attr_int(n, "transA", 0)
        return val(0), -1 if trans else -2
    if op in ("Gather",):
        return val(0), attr_int(n, "axis", 0)
    if dom == "com.microsoft" and op == "Attention":
        return val(1), -1
    # Any other op: its largest constant input (bias of Add, gamma of a norm...), first one on ties.
    best, name = 0, None
    for i in n.input:
        if i and m.is_constant(i):
            size = m.stored_size(i)
            if size > best:
                best, name = size, i
    if name is None or best <= 1:
        raise ValueError(f"{op} '{n.name}' has no weight")
    return m.value(name), 0


def canonical(a, axis):
    """[output channels, elements]: the channel axis first, the rest in order."""
    if a.ndim <= 1:
        return a.reshape(1, -1)
    return np.moveaxis(a, axis % a.ndim, 0).reshape(a.shape[axis % a.ndim], -1)


def fold_factor(m, n):
    """gamma / sqrt(var + eps) of the BatchNormalization that follows the float op."""
    for c in m.consumers.get(n.output[0], []):
        if c.op_type == "BatchNormalization":
            gamma = values_of(m.value(c.input[1])).astype(np.float64)
            var = values_of(m.value(c.input[4])).astype(np.float64)
            eps = attribute(c, "epsilon")
            eps = float(np.float32(1e-5)) if eps is None else float(eps)
            return gamma / np.sqrt(var + eps)
    raise ValueError(f"no BatchNormalization after '{n.name}'")


def pre_quant_scale(m, n, cols):
    """An AWQ / SmoothQuant pre-quantization scale: the quantized MatMul reads its activation through
    Mul(x, s) with a constant s over the weight's input dimension; the weight was divided by s."""
    p = m.producer.get(n.input[0])
    if p is None or p.op_type != "Mul":
        raise ValueError(f"no pre-quantization Mul before '{n.name}'")
    for i in p.input:
        if m.is_constant(i):
            v = values_of(m.value(i)).astype(np.float64).ravel()
            if v.size == cols:
                return v
    raise ValueError(f"no pre-quantization scale of length {cols} before '{n.name}'")


def output_rescale(m, n, rows):
    """A per-channel Mul/Div by a constant right after the quantized op (QAT exports divide the
    output by the BatchNorm scale folded into the fake-quantized weight): the factor per row."""
    consumers = [c for c in m.nodes if n.output[0] in c.input]
    for c in consumers:
        if c.op_type not in ("Mul", "Div"):
            continue
        for i in c.input:
            if i != n.output[0] and m.is_constant(i):
                v = values_of(m.value(i)).astype(np.float64).ravel()
                if v.size == rows:
                    return v if c.op_type == "Mul" else np.where(v != 0, 1.0 / np.where(v != 0, v, 1.0), 0.0)
    raise ValueError(f"no per-channel rescale after '{n.name}'")


# ---------------------------------------------------------------------------------------------
# Measures.

def distribution(x):
    flat = x.ravel()
    n = flat.size
    mean = flat.mean()
    d = flat - mean
    d2 = d * d
    m2 = d2.mean()
    m3 = (d2 * d).mean()
    m4 = (d2 * d2).mean()
    qs = np.quantile(flat, QUANTILES)
    return {"count": n, "min": flat.min(), "max": flat.max(), "mean": mean, "std": math.sqrt(m2),
            "skewness": m3 / m2 ** 1.5 if m2 > 0 else 0.0, "kurtosis": m4 / (m2 * m2) - 3 if m2 > 0 else 0.0,
            "zero_fraction": np.count_nonzero(flat == 0) / n, "quantiles": dict(zip(QUANTILE_KEYS, qs))}


def sqnr_db(signal, noise):
    signal, noise = np.asarray(signal, np.float64), np.asarray(noise, np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = 10 * np.log10(signal / noise)
    out = np.where(noise <= 0, np.inf, np.where(signal <= 0, -np.inf, out))
    return out


def cosine(ff, qq, fq):
    ff, qq, fq = (np.asarray(v, np.float64) for v in (ff, qq, fq))
    with np.errstate(divide="ignore", invalid="ignore"):
        out = fq / np.sqrt(ff * qq)
    return np.where((ff <= 0) | (qq <= 0), np.where(ff == qq, 1.0, 0.0), out)


def histogram(x, lo, hi, bins):
    if not hi > lo:  # one value: every element in the first bin, all edges at that value
        counts = np.zeros(bins, np.int64)
        counts[0] = x.size
        return counts
    return np.histogram(x, bins=bins, range=(lo, hi))[0]


def analyze(f, qv, bins, col_factor=None, row_factor=None):
    """f: float weight [rows, cols] (float64); qv: the dequantised side (Quantized or plain);
    col_factor: per column, multiplies the dequantised weight (an AWQ pre-quantization scale);
    row_factor: per row, multiplies it too (a per-channel rescale after the op, QAT)."""
    rows, cols = f.shape
    q = qv.values.astype(np.float64) if isinstance(qv, Quantized) else qv
    c_f = np.ones(cols) if col_factor is None else col_factor
    r_f = np.ones(rows) if row_factor is None else row_factor
    if col_factor is not None:
        q = q * c_f[None, :]
    if row_factor is not None:
        q = q * r_f[:, None]
    e = q - f
    ae = np.abs(e)
    ee_r, ff_r, qq_r, fq_r = (e * e).sum(1), (f * f).sum(1), (q * q).sum(1), (f * q).sum(1)
    ee, ff, qq, fq = ee_r.sum(), ff_r.sum(), qq_r.sum(), fq_r.sum()
    n = f.size
    fd, qd = distribution(f), distribution(q)
    at = int(np.argmax(ae))
    error = {"mse": ee / n, "rmse": math.sqrt(ee / n), "max_abs": ae.flat[at], "max_abs_at": [at // cols, at % cols],
             "sqnr_db": sqnr_db(ff, ee)[()], "cosine": cosine(ff, qq, fq)[()],
             "relative_l2": math.sqrt(ee / ff) if ff > 0 else 0.0,
             "changed_fraction": np.count_nonzero(q != f) / n if n else 0.0,  # NaN != NaN: changed, as in the core
             "mean_abs_lsb": None, "max_abs_lsb": None}
    lo, hi = min(fd["min"], qd["min"]), max(fd["max"], qd["max"])
    edges = np.linspace(lo, hi, bins + 1)
    hist = {"edges": edges, "float": histogram(f, lo, hi, bins), "dequantized": histogram(q, lo, hi, bins)}
    codes = None
    beyond_clip, clipped = 0, np.zeros(0, np.int64)
    channels = {"count": rows, "changed": int(np.count_nonzero(ee_r / cols != 0)) if cols else 0}
    fmin, fmax = f.min(1), f.max(1)
    ranges = fmax - fmin
    nonzero = ranges[ranges > 0]
    channels["range_spread"] = ranges.max() / nonzero.min() if nonzero.size else 1.0
    channels.update({"float_min": fmin, "float_max": fmax, "mse": ee_r / cols, "max_abs": ae.max(1),
                     "sqnr_db": sqnr_db(ff_r, ee_r), "cosine": cosine(ff_r, qq_r, fq_r)})
    # The worst output channel (lowest SQNR; -inf, signal-free with error, counts; NaN does not).
    per = np.asarray(channels["sqnr_db"], dtype=np.float64)
    valid = np.flatnonzero(~np.isnan(per))
    channels["worst"] = ({"index": int(valid[np.argmin(per[valid])]), "sqnr_db": per[valid[np.argmin(per[valid])]]}
                         if rows >= 2 and valid.size else None)
    if isinstance(qv, Quantized):
        c = qv.codes.astype(np.float64)
        step = qv.steps.astype(np.float64)
        s = step * np.abs(c_f)[None, :] if col_factor is not None else step  # step of the effective weight
        if row_factor is not None:
            s = s * np.abs(r_f)[:, None]
        z = qv.zps.astype(np.float64)
        qmin, qmax = code_range(qv.code_type)
        levels = qmax - qmin + 1
        if levels <= 1 << 16:
            counts = np.bincount((c - qmin).astype(np.int64).ravel(), minlength=levels)
            used = int(np.count_nonzero(counts))
        else:
            counts, used = None, int(np.unique(c).size)
        codes = {"type": TYPE_NAMES[qv.code_type], "qmin": float(qmin), "qmax": float(qmax), "levels_total": levels,
                 "levels_used": used, "at_qmin": int(np.count_nonzero(c == qmin)), "at_qmax": int(np.count_nonzero(c == qmax))}
        if counts is not None and levels <= 256:
            codes["counts"] = counts
        stepped = s > 0
        lsb = ae[stepped] / s[stepped]
        error["mean_abs_lsb"] = lsb.mean() if lsb.size else 0.0
        error["max_abs_lsb"] = lsb.max() if lsb.size else 0.0
        # QuantizeLinear's code for the float weight (ONNX reference: float32 division, round half
        # to even, + zero point), before and after saturation: clipped where saturation changed
        # it, not nearest where the stored code is another.
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            unsaturated = np.rint(f.astype(np.float32) / s.astype(np.float32)).astype(np.float64) + z
        clipped = np.flatnonzero(stepped & ((unsaturated < qmin) | (unsaturated > qmax)))
        beyond_clip = clipped.size
        nearest = np.clip(unsaturated, qmin, qmax)
        codes["not_nearest"] = int(np.count_nonzero(stepped & (nearest != c)))
        channels["step"] = s[:, 0]
        channels["zero_point"] = np.where(s[:, 0] > 0, z[:, 0], 0.0)
    limit = OUTLIER_SIGMAS * fd["std"]
    outliers = np.flatnonzero(np.abs(f - fd["mean"]) > limit) if limit > 0 else np.zeros(0, np.int64)
    return {"shape": [rows, cols], "parameters": n, "float": fd, "dequantized": qd, "error": error, "histogram": hist,
            "codes": codes, "outliers": {"sigmas": OUTLIER_SIGMAS, "beyond_sigmas": int(outliers.size),
                                         "beyond_clip_range": beyond_clip, "first_indices": outliers[:LISTED_OUTLIERS],
                                         "first_clipped_indices": clipped[:LISTED_OUTLIERS]},
            "channels": channels}


def layer(fm, qm, pair, bins):
    fnode, qnode = fm.node(pair["float_node"]), qm.node(pair["quant_node"])
    fv, faxis = weight_of(fm, fnode)
    qv, qaxis = weight_of(qm, qnode)
    f = canonical(values_of(fv), faxis).astype(np.float64)
    if pair.get("batchnorm_folded"):
        f = f * fold_factor(fm, fnode)[:, None]
    col_factor = pre_quant_scale(qm, qnode, f.shape[1]) if pair.get("pre_quant_scale") else None
    row_factor = output_rescale(qm, qnode, f.shape[0]) if pair.get("output_rescale") else None
    if isinstance(qv, Quantized):
        out = analyze(f, qv.map(lambda a: canonical(np.asarray(a), qaxis)), bins, col_factor, row_factor)
    else:
        out = analyze(f, canonical(values_of(qv), qaxis).astype(np.float64), bins, col_factor, row_factor)
    if "shape" in pair and list(pair["shape"]) != out["shape"]:
        raise ValueError(f"{pair['float_node']}: canonical shape {out['shape']} != pairing {pair['shape']}")
    result = {k: pair[k] for k in ("entry", "float_node", "quant_node", "float_op_type", "quant_op_type") if k in pair}
    result.update(out)
    result["batchnorm_folded"] = bool(pair.get("batchnorm_folded"))
    result["pre_quant_scale"] = bool(pair.get("pre_quant_scale"))
    result["output_rescale"] = bool(pair.get("output_rescale"))
    return result


def rank(layers):
    total = sum(l["parameters"] for l in layers)
    for l in layers:
        share = l["parameters"] * len(layers) / total if total else 0.0
        s = l["error"]["sqnr_db"]
        l["sensitivity"] = 0.0 if s == math.inf else 10 ** (-s / 10) * share if s != -math.inf else math.inf
    def damage(l):
        # The lowest SQNR, of the tensor or of its worst channel; non-finite weights first.
        if l["sensitivity"] == math.inf:
            return -math.inf
        worst = l["channels"].get("worst")
        return min(l["error"]["sqnr_db"], worst["sqnr_db"] if worst else math.inf)
    order = sorted(range(len(layers)), key=lambda i: (damage(layers[i]), -layers[i]["sensitivity"]))  # stable: ties keep order
    out = []
    for r, i in enumerate(order):
        layers[i]["rank"] = r + 1
        out.append(layers[i])
    return out


def plain(v):
    """numpy -> JSON (non-finite -> null, as the C++ report writes it)."""
    if isinstance(v, dict):
        return {k: plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [plain(x) for x in v]
    if isinstance(v, np.ndarray):
        return [plain(x) for x in v.tolist()]
    if isinstance(v, (np.integer,)):
        return int(v)
    if isinstance(v, (float, np.floating)):
        v = float(v)
        return v if math.isfinite(v) else None
    return v


def run(float_path, quant_path, pairing, bins=64, clock=None):
    t0 = time.perf_counter()
    fm, qm = Model(float_path), Model(quant_path)
    t1 = time.perf_counter()
    layers = [layer(fm, qm, p, bins) for p in pairing]
    report = {"histogram_bins": bins, "layers": rank(layers)}
    if clock is not None:
        clock.update(load=t1 - t0, analysis=time.perf_counter() - t1)
    return report


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("float_model")
    ap.add_argument("quant_model")
    ap.add_argument("--pairing", required=True, help="visualquant weights --json output (its pairing only is read)")
    ap.add_argument("--bins", type=int, default=64)
    ap.add_argument("--out", default="-")
    ap.add_argument("--time", action="store_true")
    args = ap.parse_args()
    with open(args.pairing) as f:
        doc = json.load(f)
    pairing = [{k: l[k] for k in PAIRING_KEYS if k in l} for l in doc["layers"]]
    t0 = time.perf_counter()
    clock = {}
    report = run(args.float_model, args.quant_model, pairing, args.bins, clock)
    text = json.dumps(plain(report))
    elapsed = time.perf_counter() - t0
    if args.out == "-":
        sys.stdout.write(text + "\n")
    else:
        with open(args.out, "w") as f:
            f.write(text)
    if args.time:
        print(f"peer_seconds {elapsed:.6f}\npeer_load_seconds {clock['load']:.6f}\n"
              f"peer_analysis_seconds {clock['analysis']:.6f}", file=sys.stderr)


if __name__ == "__main__":
    main()
