#!/usr/bin/python3
"""Writes real-sized float/quantized ONNX pairs for the page-beside-Netron drawing benchmark.

The fixture pairs of tests/fixtures/pairs are kept tiny (under 600 KB each) so that they can live in
the repo; a drawing benchmark against Netron also needs models of the sizes people open, like the
ones measured in the issue (ResNet-18 PTQ 69 / 516 nodes, MobileNetV2 FX PTQ 170 / 1,368 nodes, a
small BERT, a segmentation network ~80-90 MB in fp16 against its ~40-50 MB dynamic uint8 version).
This script makes four such pairs from torchvision / hand-built torch models with random weights
(nothing is downloaded), deterministically (same bytes every run), into OUTDIR only:

    OUTDIR/resnet18_eager_ptq/         torchvision resnet18 vs eager-mode PTQ (qnnpack)
    OUTDIR/mobilenet_v2_fx_ptq/        torchvision mobilenet_v2 vs FX-mode PTQ (qnnpack)
    OUTDIR/small_bert_eager_ptq/       4-layer BERT-like encoder vs eager PTQ of its Linear layers
    OUTDIR/seg_fp16_vs_dynamic_uint8/  deeplabv3_resnet50 in fp16 vs ORT-style dynamic uint8
each holding float.onnx and quant.onnx, and prints one line per pair (nodes float/quant, sizes).
What it gives (nodes float / quant, MB float / quant; ~25 s and ~1.6 GB peak RSS on 2 cores):

    resnet18_eager_ptq           69 /   516    46.8 / 11.8   (float keeps its BatchNormalizations)
    mobilenet_v2_fx_ptq         170 / 1,368    14.0 /  3.7
    small_bert_eager_ptq        229 /   892    21.0 / 11.6
    seg_fp16_vs_dynamic_uint8   152 /   511    79.3 / 39.8

Usage (Debian's interpreter and packages: python3-torch 1.13, python3-torchvision 0.14 -- not in
scripts/bootstrap: `apt-get install python3-torchvision` --, python3-onnx 1.12):

    /usr/bin/python3 bench/make_page_pairs.py OUTDIR [--only name1,name2]

Every model written passes onnx.checker.check_model(path) and strict, type-checked shape inference.
Not kept in the repo (float.onnx of the segmentation pair alone is ~80 MB).
"""

import argparse
import copy
import io
import os
import resource
import sys
import time
import warnings

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

import torch
import torch.nn as nn
import torch.ao.quantization as tq
import torchvision
from torch.ao.quantization.quantize_fx import convert_fx, prepare_fx

sys.dont_write_bytecode = True  # no __pycache__ left in the fixtures' folder
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'tests', 'fixtures', 'torch'))
from generate_pairs import EncoderLayer, randomize_layernorms  # noqa: E402  (the fixtures' transformer, scaled up here)

OPSET = 13
IMG = (1, 3, 224, 224)           # classification input
SEG_IMG = (1, 3, 256, 256)       # segmentation input
# small BERT: layers, hidden, heads, ffn, tokens, vocabulary
BERT_LAYERS, BERT_H, BERT_HEADS, BERT_FFN, BERT_SEQ, BERT_VOCAB = 4, 256, 4, 1024, 128, 8000
CALIB_BATCHES = 4
# This torch build has no fbgemm; qnnpack is the per-tensor engine that it has.
ENGINE = "qnnpack"


# ----------------------------------------------------------------------------
# Common helpers
# ----------------------------------------------------------------------------

def seed_all(seed):
    torch.manual_seed(seed)
    np.random.seed(seed)


def randomize_bn(model, seed):
    """Trained-looking BatchNorm statistics. With torchvision's init (gamma 1, beta 0, mean 0, var 1)
    every BN-folded bias is zero and the exporter deduplicates them into shared initializers behind
    Identity nodes, which no trained model has (and calibration would see degenerate ranges)."""
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for mod in model.modules():
            if isinstance(mod, nn.BatchNorm2d):
                n = mod.num_features
                mod.weight.copy_(torch.rand(n, generator=g) + 0.5)
                mod.bias.copy_((torch.rand(n, generator=g) - 0.5) * 0.4)
                mod.running_mean.copy_((torch.rand(n, generator=g) - 0.5) * 0.6)
                mod.running_var.copy_(torch.rand(n, generator=g) * 1.5 + 0.5)
    return model


def calib_batches(seed, shape, n=CALIB_BATCHES):
    g = torch.Generator().manual_seed(seed)
    return [torch.randn(*shape, generator=g) for _ in range(n)]


def calibrate(model, batches):
    with torch.no_grad():
        for xb in batches:
            model(xb)


def export(model, x, output_names=("output",), **kw):
    """torch.onnx.export (opset 13; by default EVAL mode with constant folding) to an in-memory model."""
    f = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, (x,), f, opset_version=OPSET,
                          input_names=["input"], output_names=list(output_names), **kw)
    return onnx.load_from_string(f.getvalue())


def export_bn_kept(model, x):
    # A plain eval export folds BN into the conv even with do_constant_folding=False (the eval
    # peephole pass); TrainingMode.PRESERVE on an eval() model skips it and keeps inference-form
    # BatchNormalization (generate_pairs.py's export_float_bn_kept).
    assert not model.training
    return export(model, x, training=torch.onnx.TrainingMode.PRESERVE, do_constant_folding=False)


def save_checked(model, path):
    """onnx.save with default settings, then the checks every written model must pass."""
    onnx.save(model, path)
    onnx.checker.check_model(path)   # the path form: no 2 GB protobuf limit
    onnx.shape_inference.infer_shapes(onnx.load(path), check_type=True, strict_mode=True)


# ----------------------------------------------------------------------------
# 1. ResNet-18, eager-mode post-training static quantization
# ----------------------------------------------------------------------------

def pair_resnet18_eager_ptq():
    seed_all(0)
    fm = randomize_bn(torchvision.models.resnet18(weights=None), 1).eval()
    # torchvision's quantizable ResNet-18 has the same parameter names plus QuantStub/DeQuantStub and
    # FloatFunctional adds: loading the float weights makes it the quantized version OF this model.
    qm = torchvision.models.quantization.resnet18(weights=None, quantize=False)
    qm.load_state_dict(fm.state_dict())
    qm.eval().fuse_model()
    qm.qconfig = tq.get_default_qconfig(ENGINE)
    tq.prepare(qm, inplace=True)
    calibrate(qm, calib_batches(2, IMG))
    tq.convert(qm, inplace=True)
    x = torch.randn(*IMG, generator=torch.Generator().manual_seed(3))
    # float with its 20 BatchNormalizations, as the issue measured it (69 nodes; 49 once folded):
    # the quantized side has them folded into its convs by fuse_model
    return export_bn_kept(fm, x), export(qm, x)


# ----------------------------------------------------------------------------
# 2. MobileNetV2, FX graph mode post-training static quantization
# ----------------------------------------------------------------------------

def pair_mobilenet_v2_fx_ptq():
    # The FX-converted GraphModule exports with this torch (opset 13, default options), so no
    # eager-mode fallback is needed. Both default exports (BN folded on the float side too): 170 /
    # 1,368 nodes, as the issue measured.
    seed_all(0)
    fm = randomize_bn(torchvision.models.mobilenet_v2(weights=None), 1).eval()
    x = torch.randn(*IMG, generator=torch.Generator().manual_seed(3))
    qm = prepare_fx(copy.deepcopy(fm), tq.get_default_qconfig_mapping(ENGINE), example_inputs=(x,))
    calibrate(qm, calib_batches(2, IMG))
    qm = convert_fx(qm)
    return export(fm, x), export(qm, x)


# ----------------------------------------------------------------------------
# 3. Small BERT-like encoder, eager-mode PTQ of its Linear layers
#    (the approach of tests/fixtures/torch/generate_pairs.py, pair_transformer, scaled up)
# ----------------------------------------------------------------------------

def BertLayer():
    """Post-norm encoder layer, as BERT, ReLU FFN (quantized GELU has no ONNX symbolic): the
    fixtures' encoder layer (only the projections quantized, the attention core in float between
    DeQuantStubs and a QuantStub), at this size."""
    return EncoderLayer(BERT_H, BERT_HEADS, BERT_SEQ, BERT_FFN)


class BertEmbeddings(nn.Module):
    """Token embedding + learned positions + LayerNorm; stays float (qconfig None) in the quantized
    model, as embeddings need a weight-only qconfig that eager static PTQ does not give them."""

    def __init__(self):
        super().__init__()
        self.tok = nn.Embedding(BERT_VOCAB, BERT_H)
        self.pos = nn.Parameter(torch.randn(1, BERT_SEQ, BERT_H) * 0.02)
        self.ln = nn.LayerNorm(BERT_H)

    def forward(self, ids):
        return self.ln(self.tok(ids) + self.pos)


class SmallBert(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = BertEmbeddings()
        self.quant = tq.QuantStub()
        self.layers = nn.ModuleList([BertLayer() for _ in range(BERT_LAYERS)])
        self.dequant = tq.DeQuantStub()

    def forward(self, ids):
        x = self.quant(self.embed(ids))
        for layer in self.layers:
            x = layer(x)
        return self.dequant(x)


def make_bert(seed):
    seed_all(seed)
    return randomize_layernorms(SmallBert()).eval()


def token_batches(seed, batch, n=CALIB_BATCHES):
    g = torch.Generator().manual_seed(seed)
    return [torch.randint(0, BERT_VOCAB, (batch, BERT_SEQ), generator=g) for _ in range(n)]


def pair_small_bert_eager_ptq():
    torch.backends.quantized.engine = ENGINE
    fm = make_bert(0)
    qm = copy.deepcopy(fm)
    qm.qconfig = tq.get_default_qconfig(ENGINE)
    qm.embed.qconfig = None          # runs before the QuantStub: float in both models
    tq.prepare(qm, inplace=True)
    calibrate(qm, token_batches(2, 4))
    tq.convert(qm, inplace=True)
    ids = token_batches(3, 1, n=1)[0]
    return export(fm, ids), export(qm, ids)


# ----------------------------------------------------------------------------
# 4. Segmentation: fp16 float model vs ONNX Runtime-style dynamic uint8 quantization
# ----------------------------------------------------------------------------

def export_seg_fp32():
    seed_all(0)
    m = torchvision.models.segmentation.deeplabv3_resnet50(
        weights=None, weights_backbone=None, aux_loss=False)
    m = randomize_bn(m, 1).eval()
    x = torch.randn(*SEG_IMG, generator=torch.Generator().manual_seed(3))
    return export(m, x, output_names=("out",))


def to_fp16(model):
    """Every float32 initializer and Constant tensor to float16, graph inputs/outputs/value_info
    FLOAT -> FLOAT16, nothing inserted. (model.half() cannot be exported on CPU with this torch: the
    export traces by running the model, and 'slow_conv2d_cpu' is not implemented for 'Half'.)
    The ops of deeplabv3 (Conv, Relu, Add, MaxPool, GlobalAveragePool, Resize with int64 sizes,
    Concat, Shape, Slice) all accept float16, so no Cast is needed."""
    m = copy.deepcopy(model)

    def half(t):
        return numpy_helper.from_array(numpy_helper.to_array(t).astype(np.float16), t.name)

    g = m.graph
    for i, t in enumerate(g.initializer):
        if t.data_type == TensorProto.FLOAT:
            g.initializer[i].CopyFrom(half(t))
    for n in g.node:
        if n.op_type == "Constant":
            for a in n.attribute:
                if a.name == "value" and a.t.data_type == TensorProto.FLOAT:
                    a.t.CopyFrom(half(a.t))
        if n.op_type == "Cast":
            raise AssertionError("unexpected Cast in the fp32 export: its 'to' would need converting")
    for v in list(g.input) + list(g.output) + list(g.value_info):
        if v.type.tensor_type.elem_type == TensorProto.FLOAT:
            v.type.tensor_type.elem_type = TensorProto.FLOAT16
    return m


def quantize_weight_uint8(w):
    """uint8 asymmetric per-tensor, as ORT's quantize_data: the range always includes 0 (so the zero
    point lies in 0..255 and 0.0 is exact), scale = (max - min) / 255, zp = round(-min / scale)."""
    wmin, wmax = min(float(w.min()), 0.0), max(float(w.max()), 0.0)
    scale = np.float32((wmax - wmin) / 255.0) if wmax > wmin else np.float32(1.0)
    zp = np.uint8(np.clip(np.round(-wmin / scale), 0, 255))
    q = np.clip(np.round(w / scale) + float(zp), 0, 255).astype(np.uint8)
    return q, scale, zp


class DynamicQuantizer:
    """Rewrites an fp32 graph into ORT's dynamic-quantization (IntegerOps) form, with ORT's names."""

    def __init__(self, graph):
        self.inits = {t.name: t for t in graph.initializer}
        self.nodes, self.new_inits = [], []
        self.used_weights = set()
        self.dynamic = {}   # activation -> (quantized, scale, zero point): one DynamicQuantizeLinear each

    def activation(self, x):
        # ORT quantizes each activation once, however many integer ops consume it
        if x not in self.dynamic:
            q, s, z = x + "_quantized", x + "_scale", x + "_zero_point"
            self.nodes.append(helper.make_node("DynamicQuantizeLinear", [x], [q, s, z], name=x + "_QuantizeLinear"))
            self.dynamic[x] = (q, s, z)
        return self.dynamic[x]

    def weight(self, w):
        q, scale, zp = quantize_weight_uint8(numpy_helper.to_array(self.inits[w]))
        names = (w + "_quantized", w + "_scale", w + "_zero_point")
        self.new_inits += [numpy_helper.from_array(q, names[0]), numpy_helper.from_array(np.array(scale), names[1]),
                           numpy_helper.from_array(np.array(zp), names[2])]
        self.used_weights.add(w)
        return names

    def integer_op(self, node, op, out):
        """DynamicQuantizeLinear(x) -> op(x_q, w_q, x_zp, w_zp) -> Cast(float) -> Mul(x_scale*w_scale),
        the output named `out`; returns nothing (nodes appended)."""
        xq, xs, xz = self.activation(node.input[0])
        wq, ws, wz = self.weight(node.input[1])
        name = node.name + "_quant"
        iout = node.output[0] + "_output_quantized"
        self.nodes += [
            helper.make_node(op, [xq, wq, xz, wz], [iout], name=name,
                             **{a.name: helper.get_attribute_value(a) for a in node.attribute}),
            helper.make_node("Cast", [iout], [iout + "_cast_output"], name=iout + "_cast", to=TensorProto.FLOAT),
            helper.make_node("Mul", [xs, ws], [name + "_scales_mul:0"], name=name + "_scales_mul"),
            helper.make_node("Mul", [iout + "_cast_output", name + "_scales_mul:0"], [out],
                             name=name + "_output_scale_mul"),
        ]

    def conv(self, node):
        has_bias = len(node.input) == 3 and node.input[2]
        out = node.output[0]
        scaled = out + "quant_scaled_output" if has_bias else out
        self.integer_op(node, "ConvInteger", scaled)
        if has_bias:
            # ORT's ConvInteger.add_bias: bias (kept float) reshaped to [1, -1, 1, 1] by an unnamed
            # Reshape whose shape is an int64 initializer, then Add
            rank = len(self.inits[node.input[1]].dims)
            shape = np.ones(rank, dtype=np.int64)
            shape[1] = -1
            self.new_inits.append(numpy_helper.from_array(shape, out + "_bias_reshape_shape"))
            self.nodes += [
                helper.make_node("Reshape", [node.input[2], out + "_bias_reshape_shape"], [out + "_bias_reshape_output"]),
                helper.make_node("Add", [scaled, out + "_bias_reshape_output"], [out], name=out + "_bias_add"),
            ]

    def rewrite(self, graph):
        for node in graph.node:
            const_w = len(node.input) > 1 and node.input[1] in self.inits
            if node.op_type == "Conv" and const_w:
                self.conv(node)
            elif node.op_type == "MatMul" and const_w:
                self.integer_op(node, "MatMulInteger", node.output[0])
            else:
                # Gemm stays float: ORT's dynamic (IntegerOps) registry has no Gemm entry
                self.nodes.append(node)
        return self.nodes


def to_dynamic_uint8(model):
    # Hand-built after the conventions of ONNX Runtime's quantize_dynamic (weight_type=QUInt8,
    # per-tensor, IntegerOps form: DynamicQuantizeLinear -> ConvInteger / MatMulInteger -> Cast ->
    # Mul by x_scale * w_scale -> Reshape(bias) + Add), because no ORT python quantizer exists on
    # this machine (no onnxruntime package for Debian's python; nothing may be downloaded).
    g = model.graph
    dq = DynamicQuantizer(g)
    nodes = dq.rewrite(g)
    # ORT drops the float weights that nothing reads any more and keeps the rest (biases, shapes)
    inits = [t for t in g.initializer if t.name not in dq.used_weights] + dq.new_inits
    graph = helper.make_graph(nodes, g.name, list(g.input), list(g.output), inits)
    out = helper.make_model(graph, opset_imports=list(model.opset_import))
    out.ir_version = model.ir_version
    out.producer_name, out.producer_version = "onnx.quantize", "hand-built (ORT quantize_dynamic form)"
    return out


def pair_seg_fp16_vs_dynamic_uint8():
    fp32 = export_seg_fp32()
    return to_fp16(fp32), to_dynamic_uint8(fp32)


# ----------------------------------------------------------------------------
# Main
# ----------------------------------------------------------------------------

PAIRS = [
    ("resnet18_eager_ptq", pair_resnet18_eager_ptq),
    ("mobilenet_v2_fx_ptq", pair_mobilenet_v2_fx_ptq),
    ("small_bert_eager_ptq", pair_small_bert_eager_ptq),
    ("seg_fp16_vs_dynamic_uint8", pair_seg_fp16_vs_dynamic_uint8),
]


def peak_rss_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0   # Linux: KiB


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("outdir")
    ap.add_argument("--only", help="comma-separated pair names (default: all)")
    args = ap.parse_args()
    names = [n for n, _ in PAIRS]
    only = args.only.split(",") if args.only else names
    unknown = [n for n in only if n not in names]
    if unknown:
        ap.error("unknown pair(s): %s (known: %s)" % (", ".join(unknown), ", ".join(names)))
    # determinism: one thread (calibration sums in a fixed order), deterministic kernels, the engine
    # every quantized model is made for
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    torch.backends.quantized.engine = ENGINE
    for name, fn in PAIRS:
        if name not in only:
            continue
        t0 = time.perf_counter()
        fmodel, qmodel = fn()
        d = os.path.join(args.outdir, name)
        os.makedirs(d, exist_ok=True)
        paths = [os.path.join(d, "float.onnx"), os.path.join(d, "quant.onnx")]
        save_checked(fmodel, paths[0])
        save_checked(qmodel, paths[1])
        mb = [os.path.getsize(p) / 1e6 for p in paths]
        print("%-26s nodes %5d / %5d   float %6.1f MB   quant %6.1f MB   (%.1f s, peak RSS %.0f MB)"
              % (name, len(fmodel.graph.node), len(qmodel.graph.node), mb[0], mb[1],
                 time.perf_counter() - t0, peak_rss_mb()), flush=True)
        del fmodel, qmodel
    return 0


if __name__ == "__main__":
    sys.exit(main())
