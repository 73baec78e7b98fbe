"""A quantized model with one layer's input deliberately damaged: the activation quantizer in front of
it clips, its scale (the QuantizeLinear's and that of every DequantizeLinear reading its codes, through
a Cast) divided by FACTOR. The sensitivity sweep must then rank that layer first: keeping it in float
is the only single change that reads that tensor unclipped.

  damage_scale.py QUANT OUT QUANTIZE_NODE_NAME FACTOR
"""
import sys

import numpy as np
import onnx
from onnx import numpy_helper


def scale_input(model: onnx.ModelProto, value: str, factor: float) -> None:
    for init in model.graph.initializer:
        if init.name == value:
            init.CopyFrom(numpy_helper.from_array(numpy_helper.to_array(init) / np.float32(factor), init.name))
            return
    for node in model.graph.node:
        if node.op_type == "Constant" and node.output[0] == value:
            for a in node.attribute:
                if a.name == "value":
                    a.t.CopyFrom(numpy_helper.from_array(numpy_helper.to_array(a.t) / np.float32(factor)))
            return
    raise SystemExit(f"no constant scale {value!r}")


def main() -> None:
    src, out, name, factor = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
    model = onnx.load(src)
    q = next(n for n in model.graph.node if n.name == name and n.op_type == "QuantizeLinear")
    done = {q.input[1]}
    scale_input(model, q.input[1], factor)
    codes = {q.output[0]}
    for node in model.graph.node:
        if node.op_type == "Cast" and node.input[0] in codes:
            codes.add(node.output[0])
    for node in model.graph.node:
        if node.op_type == "DequantizeLinear" and node.input[0] in codes and node.input[1] not in done:
            done.add(node.input[1])
            scale_input(model, node.input[1], factor)
    onnx.save(model, out)


if __name__ == "__main__":
    main()
