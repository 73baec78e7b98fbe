#!/usr/bin/python3
"""Make tensors inside If/Loop bodies outputs of the main graph, with the onnx Python package: the
independent measurement's way to tap what `visualquant activations` taps inside bodies (the core
does it on the wire, core/rewrite/body_outputs.h; this does it on parsed protos, separately).

    /usr/bin/python3 tests/activations/expose_body_values.py IN OUT GRAPH:TENSOR:NAME...

GRAPH is the body's path as the report gives it ("branch/then_branch", "loop/body", nested
"loop/body/inner/then_branch"): a node id (its name, or "#<index>" in its graph) and the attribute
holding the body, pair after pair. TENSOR is the value in that body; NAME is the main-graph output
it becomes. Through an If the other branch returns an empty tensor of the same type; through a
Loop the value becomes a scan output (every iteration stacked on a new axis 0).
"""
import sys

import onnx
import numpy as np
from onnx import helper, mapping, numpy_helper


def find_node(graph, node_id):
    if node_id.startswith("#"):
        return graph.node[int(node_id[1:])]
    hits = [n for n in graph.node if n.name == node_id]
    assert len(hits) == 1, ("no single node named", node_id)
    return hits[0]


def body(node, attribute):
    for a in node.attribute:
        if a.name == attribute:
            return a.g
    raise KeyError(attribute)


def elem_type_in(graph, tensor, model):
    for vi in list(graph.value_info) + list(graph.output):
        if vi.name == tensor:
            return vi.type.tensor_type.elem_type
    inferred = onnx.shape_inference.infer_shapes(model)
    stack = [inferred.graph]
    while stack:
        g = stack.pop()
        for vi in list(g.value_info) + list(g.output):
            if vi.name == tensor and vi.type.tensor_type.elem_type:
                return vi.type.tensor_type.elem_type
        for n in g.node:
            stack += [a.g for a in n.attribute if a.HasField("g")]
    raise KeyError(("no element type for", tensor))


def expose(model, path, tensor, name):
    parts = path.split("/")
    levels = []
    graph = model.graph
    for i in range(0, len(parts), 2):
        node = find_node(graph, parts[i])
        levels.append((graph, node, parts[i + 1]))
        graph = body(node, parts[i + 1])
    elem = elem_type_in(graph, tensor, model)
    inner = tensor
    # Innermost first: each level's body returns what the level inside it returns.
    for depth in range(len(levels) - 1, -1, -1):
        _, node, attribute = levels[depth]
        g = body(node, attribute)
        out_name = name if depth == 0 else "%s.level%d" % (name, depth)
        copied = "%s.copy%d" % (name, depth)
        g.node.append(helper.make_node("Identity", [inner], [copied]))
        g.output.append(helper.make_tensor_value_info(copied, elem, None))
        if node.op_type == "If":
            other = body(node, "else_branch" if attribute == "then_branch" else "then_branch")
            empty = "%s.empty%d" % (name, depth)
            value = numpy_helper.from_array(np.zeros([0], dtype=mapping.TENSOR_TYPE_TO_NP_TYPE[elem]))
            other.node.append(helper.make_node("Constant", [], [empty], value=value))
            other.output.append(helper.make_tensor_value_info(empty, elem, None))
        node.output.append(out_name)
        inner = out_name
    model.graph.output.append(helper.make_tensor_value_info(name, elem, None))


def main(argv):
    model = onnx.load(argv[0])
    for spec in argv[2:]:
        path, tensor, name = spec.split(":", 2)
        expose(model, path, tensor, name)
    onnx.save(model, argv[1])


if __name__ == "__main__":
    main(sys.argv[1:])
