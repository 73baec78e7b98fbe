"""Writes a float/QDQ pair of BLOCKS residual blocks of Conv(1x1) -> Relu -> Conv(1x1) -> Add, in
name scopes (/stage{s}/block{b}/...), with small weights: large graphs in small files for the web
page's drawing test. With --external, the float model keeps its weights in an external-data file
(float.weights), for the drag-and-drop test.
    python3 make_large_pair.py OUT_DIR BLOCKS [--external]
"""
import sys
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

C = 4


def build(blocks, quantized):
    rng = np.random.default_rng(3)
    nodes, inits = [], []
    x = 'input'

    def weight(name):
        w = rng.normal(0, 0.3, (C, C, 1, 1)).astype(np.float32)
        if not quantized:
            inits.append(numpy_helper.from_array(w, name))
            return name
        scale = (np.abs(w).reshape(C, -1).max(axis=1) / 127).astype(np.float32)
        q = np.clip(np.round(w / scale[:, None, None, None]), -127, 127).astype(np.int8)
        inits.extend([numpy_helper.from_array(q, f'{name}_quantized'), numpy_helper.from_array(scale, f'{name}_scale'),
                      numpy_helper.from_array(np.zeros(C, np.int8), f'{name}_zero_point')])
        nodes.append(helper.make_node('DequantizeLinear', [f'{name}_quantized', f'{name}_scale', f'{name}_zero_point'],
                                      [f'{name}_dq'], name=f'{name}_DequantizeLinear', axis=0))
        return f'{name}_dq'

    def act(t):
        if not quantized:
            return t
        nodes.append(helper.make_node('QuantizeLinear', [t, 'act_scale', 'act_zp'], [f'{t}_q'], name=f'{t}_QuantizeLinear'))
        nodes.append(helper.make_node('DequantizeLinear', [f'{t}_q', 'act_scale', 'act_zp'], [f'{t}_dq'], name=f'{t}_DequantizeLinear'))
        return f'{t}_dq'

    if quantized:
        inits.extend([numpy_helper.from_array(np.array(0.05, np.float32), 'act_scale'),
                      numpy_helper.from_array(np.array(128, np.uint8), 'act_zp')])
    for i in range(blocks):
        p = f'/stage{i // 50}/block{i % 50}'
        a = act(x)
        nodes.append(helper.make_node('Conv', [a, weight(f'{p}.conv1.weight')], [f'{p}/c1'], name=f'{p}/conv1/Conv'))
        nodes.append(helper.make_node('Relu', [f'{p}/c1'], [f'{p}/r'], name=f'{p}/relu/Relu'))
        nodes.append(helper.make_node('Conv', [act(f'{p}/r'), weight(f'{p}.conv2.weight')], [f'{p}/c2'], name=f'{p}/conv2/Conv'))
        nodes.append(helper.make_node('Add', [act(f'{p}/c2'), a], [f'{p}/out'], name=f'{p}/add/Add'))
        x = f'{p}/out'
    nodes.append(helper.make_node('Identity', [x], ['output'], name='/head/Identity'))
    graph = helper.make_graph(nodes, 'large', [helper.make_tensor_value_info('input', TensorProto.FLOAT, [1, C, 4, 4])],
                              [helper.make_tensor_value_info('output', TensorProto.FLOAT, [1, C, 4, 4])], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid('', 13)], producer_name='onnx.quantize' if quantized else 'pytorch')


def main():
    out, blocks = Path(sys.argv[1]), int(sys.argv[2])
    out.mkdir(parents=True, exist_ok=True)
    if '--external' in sys.argv[3:]:
        onnx.save_model(build(blocks, False), str(out / 'float.onnx'), save_as_external_data=True, all_tensors_to_one_file=True,
                        location='float.weights', size_threshold=0)
    else:
        onnx.save(build(blocks, False), out / 'float.onnx')
    onnx.save(build(blocks, True), out / 'quant.onnx')


if __name__ == '__main__':
    main()
