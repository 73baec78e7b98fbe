#!/usr/bin/python3
"""Writes a large float model for the load benchmark (not kept in the repo): a chain of MatMul+Add
layers whose weights add up to about SIZE_MB megabytes, as raw_data initializers the way real
exporters write them, plus a few Constant nodes and a Reshape so that shape inference has work.

usage: make_large_model.py OUT.onnx [SIZE_MB]   (default 200)
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def main(out, size_mb):
    width = 1024
    layer_bytes = width * width * 4
    layers = max(1, int(size_mb * 1024 * 1024 // layer_bytes))
    rng = np.random.default_rng(0)
    nodes, inits = [], []
    x = "input"
    for i in range(layers):
        w = rng.standard_normal((width, width), dtype=np.float32) * 0.02
        b = rng.standard_normal((width,), dtype=np.float32) * 0.01
        inits += [numpy_helper.from_array(w, f"layer{i}.weight"), numpy_helper.from_array(b, f"layer{i}.bias")]
        nodes += [
            helper.make_node("MatMul", [x, f"layer{i}.weight"], [f"l{i}_mm"], name=f"/layer{i}/MatMul"),
            helper.make_node("Add", [f"l{i}_mm", f"layer{i}.bias"], [f"l{i}_add"], name=f"/layer{i}/Add"),
            helper.make_node("Relu", [f"l{i}_add"], [f"l{i}_out"], name=f"/layer{i}/Relu"),
        ]
        x = f"l{i}_out"
    nodes.append(helper.make_node("Constant", [], ["shape"], name="/shape",
                                  value=numpy_helper.from_array(np.array([-1, width], dtype=np.int64))))
    nodes.append(helper.make_node("Reshape", [x, "shape"], ["output"], name="/reshape"))
    graph = helper.make_graph(nodes, "large", [helper.make_tensor_value_info("input", TensorProto.FLOAT, ["batch", width])],
                              [helper.make_tensor_value_info("output", TensorProto.FLOAT, None)], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="bench")
    with open(out, "wb") as f:
        f.write(model.SerializeToString())


if __name__ == "__main__":
    main(sys.argv[1], float(sys.argv[2]) if len(sys.argv) > 2 else 200)
