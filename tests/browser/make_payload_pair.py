"""Writes a float/quantized pair whose node, value and graph names are HTML/script payloads, for the
web page's injection test: the page must show them as text and run nothing.
    python3 make_payload_pair.py OUT_DIR
"""
import sys
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

CONV = '<script>window.__pwned=1;alert(1)</script>'
RELU = '<img src=x onerror="window.__pwned=2;alert(2)">'
OUT = '"><svg onload="window.__pwned=3;alert(3)">'
IN = "<iframe src=javascript:alert(4)>"
# The Conv's doc string, shown by the detail panel's node detail.
DOC = '<img src=x onerror="window.__pwned=7;alert(7)"><script>window.__pwned=8</script>'


def models():
    rng = np.random.default_rng(7)
    w = rng.normal(0, 0.2, (4, 3, 3, 3)).astype(np.float32)
    b = rng.normal(0, 0.1, (4,)).astype(np.float32)
    x = helper.make_tensor_value_info(IN, TensorProto.FLOAT, [1, 3, 8, 8])
    y = helper.make_tensor_value_info(OUT, TensorProto.FLOAT, [1, 4, 6, 6])
    conv_out = '<b onmouseover=alert(5)>conv</b>'

    float_graph = helper.make_graph(
        [helper.make_node('Conv', [IN, 'W<svg>', 'B'], [conv_out], name=CONV, doc_string=DOC),
         helper.make_node('Relu', [conv_out], [OUT], name=RELU)],
        '<h1>float graph</h1>', [x], [y],
        [numpy_helper.from_array(w, 'W<svg>'), numpy_helper.from_array(b, 'B')])

    # ONNX Runtime's QDQ form: per-channel int8 weight, uint8 activation pair.
    scale = (np.abs(w).reshape(4, -1).max(axis=1) / 127).astype(np.float32)
    wq = np.clip(np.round(w / scale[:, None, None, None]), -127, 127).astype(np.int8)
    quant_graph = helper.make_graph(
        [helper.make_node('QuantizeLinear', [IN, 'x_scale', 'x_zp'], ['x_q'], name=f'{IN}_QuantizeLinear'),
         helper.make_node('DequantizeLinear', ['x_q', 'x_scale', 'x_zp'], ['x_dq'], name=f'{IN}_DequantizeLinear'),
         helper.make_node('DequantizeLinear', ['W<svg>_quantized', 'W<svg>_scale', 'W<svg>_zp'], ['W_dq'], name='W<svg>_DequantizeLinear', axis=0),
         helper.make_node('Conv', ['x_dq', 'W_dq', 'B'], [conv_out], name=CONV, doc_string=DOC),
         helper.make_node('Relu', [conv_out], [OUT], name=RELU)],
        '<h1>quant graph</h1>', [x], [y],
        [numpy_helper.from_array(np.array(0.02, np.float32), 'x_scale'), numpy_helper.from_array(np.array(128, np.uint8), 'x_zp'),
         numpy_helper.from_array(wq, 'W<svg>_quantized'), numpy_helper.from_array(scale, 'W<svg>_scale'),
         numpy_helper.from_array(np.zeros(4, np.int8), 'W<svg>_zp'), numpy_helper.from_array(b, 'B')])
    opset = [helper.make_opsetid('', 13)]
    return (helper.make_model(float_graph, opset_imports=opset, producer_name='<script>alert(6)</script>'),
            helper.make_model(quant_graph, opset_imports=opset, producer_name='onnx.quantize'))


def main():
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    f, q = models()
    onnx.checker.check_model(f)
    onnx.checker.check_model(q)
    onnx.save(f, out / 'float.onnx')
    onnx.save(q, out / 'quant.onnx')


if __name__ == '__main__':
    main()
