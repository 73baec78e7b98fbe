"""Models for the activations tests, made from a real PyTorch eager-PTQ export
(tests/fixtures/pairs/torch_eager_ptq_cnn), into OUT_DIR; prints a JSON of what was made.

  clip_quant.onnx     the quantized model with one activation quantizer made to clip on purpose:
                      the QuantizeLinear after the stem's Relu and the DequantizeLinear reading it get a
                      scale 16 times smaller. The pair stays consistent (same scale and zero point on
                      both sides), but its range now covers a sixteenth of what calibration saw, so
                      the large values saturate at qmax. Everything else is as the producer wrote it.
  dynamic_float.onnx  both models with the input's batch dimension made symbolic ("batch"), as
  dynamic_quant.onnx  exporters write it with dynamic_axes.
  control_float.onnx  both models with the stem's Relu output passed through an If whose branches
  control_quant.onnx  read it from the enclosing graph, then through a sequence (SequenceConstruct →
                      SequenceAt) before its consumers: a body's outer-scope read and a non-tensor
                      value, which cutting a model into segments must handle. Built by hand (no
                      exporter writes this around a Relu); the values are the same as before.

    /usr/bin/python3 make_cases.py OUT_DIR
"""
import json
import os
import sys

import numpy as np
import onnx
from onnx import numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
PAIR = os.path.join(HERE, "..", "fixtures", "pairs", "torch_eager_ptq_cnn")


def clipping(out_dir, factor=1 / 16):
    model = onnx.load(os.path.join(PAIR, "quant.onnx"))
    g = model.graph
    constants = {n.output[0]: n for n in g.node if n.op_type == "Constant"}
    q = next(n for n in g.node if n.op_type == "QuantizeLinear" and n.input[0] == "/stem/conv/Relu_output_0")
    read = {q.output[0]} | {c.output[0] for c in g.node if c.op_type == "Cast" and c.input[0] == q.output[0]}
    dq = next(n for n in g.node if n.op_type == "DequantizeLinear" and n.input[0] in read)
    for node in (q, dq):
        value = numpy_helper.to_array(constants[node.input[1]].attribute[0].t) * np.float32(factor)
        # A Constant of its own: the original scale may be shared with other nodes.
        name = node.input[1] + "_clipping"
        g.node.insert(list(g.node).index(node),
                      onnx.helper.make_node("Constant", [], [name], value=numpy_helper.from_array(value.astype(np.float32))))
        node.input[1] = name
    onnx.save(model, os.path.join(out_dir, "clip_quant.onnx"))
    return {"clipping_tensor": q.input[0]}


def dynamic(out_dir):
    for side in ("float", "quant"):
        model = onnx.load(os.path.join(PAIR, side + ".onnx"))
        dim = model.graph.input[0].type.tensor_type.shape.dim[0]
        dim.ClearField("dim_value")
        dim.dim_param = "batch"
        onnx.save(model, os.path.join(out_dir, "dynamic_%s.onnx" % side))
    return {"dynamic_symbol": "batch"}


def control_flow(out_dir):
    h = onnx.helper
    for side, relu in (("float", "/stem/relu/Relu_output_0"), ("quant", "/stem/conv/Relu_output_0")):
        model = onnx.load(os.path.join(PAIR, side + ".onnx"))
        g = model.graph
        for n in g.node:
            n.input[:] = ["vq_passed" if i == relu else i for i in n.input]
        branch = lambda name: h.make_graph([h.make_node("Identity", [relu], [name + "_out"])], name, [],
                                           [h.make_tensor_value_info(name + "_out", onnx.TensorProto.FLOAT, None)])
        added = [
            h.make_node("Constant", [], ["vq_cond"], value=h.make_tensor("c", onnx.TensorProto.BOOL, [], [True])),
            h.make_node("If", ["vq_cond"], ["vq_if"], then_branch=branch("then"), else_branch=branch("else")),
            h.make_node("SequenceConstruct", ["vq_if", relu], ["vq_sequence"]),
            h.make_node("Constant", [], ["vq_zero"], value=h.make_tensor("z", onnx.TensorProto.INT64, [], [0])),
            h.make_node("SequenceAt", ["vq_sequence", "vq_zero"], ["vq_passed"]),
        ]
        at = 1 + next(i for i, n in enumerate(g.node) if relu in n.output)
        for k, n in enumerate(added):
            g.node.insert(at + k, n)
        onnx.checker.check_model(model)
        onnx.save(model, os.path.join(out_dir, "control_%s.onnx" % side))
    return {"control_flow": True}


def main():
    out_dir = sys.argv[1]
    facts = {}
    facts.update(clipping(out_dir))
    facts.update(dynamic(out_dir))
    facts.update(control_flow(out_dir))
    print(json.dumps(facts))


if __name__ == "__main__":
    main()
