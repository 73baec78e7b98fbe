"""Writes a float/QDQ pair of one Conv whose int8 weight holds the cases where a code's verdict is
delicate, and what QuantizeLinear's rule says of each element, for code_verdicts.test.mjs.
Hand-built (no tool here makes these values on purpose): an ONNX Runtime-style weight-only QDQ
form, DequantizeLinear (per output channel, axis 0) feeding the Conv, as its quantizer writes it.
    python3 make_code_edges_pair.py OUT_DIR
Writes OUT_DIR/float.onnx, OUT_DIR/quant.onnx and OUT_DIR/expected.json: the elements whose
nearest code is not the stored one (not_nearest), and those QuantizeLinear would clip (their
count and canonical indices), computed here with numpy in float32 as the operator does.
"""
import json
import sys
from pathlib import Path

import numpy as np
from onnx import TensorProto, helper, numpy_helper

ROWS, COLS = 8, 2047  # an odd row: the lanes' last element runs alone
STEPS = np.array([0.01, 0.003, 7.5, 1 / 3, 0.25, 1e-3, 2e-5, 1e-30], np.float32)
ZERO_POINTS = np.array([0, 3, -7, 127, -128, 5, 0, -1], np.int8)
QMIN, QMAX = -128.0, 127.0


def cpp_max(a, b):
    """std::max(a, b): a unless a < b (so a NaN b is passed over, a NaN a kept)."""
    return b if a < b else a


def cpp_min(a, b):
    """std::min(a, b): a unless b < a."""
    return b if b < a else a


def quantize(x, step, zp):
    """QuantizeLinear before saturation, as the core applies it: float32 division, rounded half to
    even, plus the zero point, within [-inf, inf] by std::max and std::min (a NaN becomes -inf)."""
    with np.errstate(all='ignore'):
        q = float(np.rint(np.float64(np.float32(x) / np.float32(step)))) + float(zp)
    return cpp_min(np.inf, cpp_max(-np.inf, q))


def cpp_clamp(u):
    """std::min(qmax, std::max(qmin, u)): the saturated code."""
    return cpp_min(QMAX, cpp_max(QMIN, u))


def values(rng):
    f = np.zeros((ROWS, COLS), np.float32)
    codes = np.zeros((ROWS, COLS), np.int8)
    for r in range(ROWS):
        step, zp = np.float32(STEPS[r]), ZERO_POINTS[r]
        for c in range(COLS):
            x = np.float32(rng.normal() * 40 * step)
            kind = rng.integers(0, 100)
            if kind < 12:
                x = np.float32((np.floor(x / step) + 0.5) * step)  # a tie, as near as float32 gets
            elif kind < 14:
                x = np.float32(300 * step)  # beyond the codes' reach
            elif kind == 14:
                x = np.float32('nan')
            elif kind == 15:
                x = np.float32('-inf')
            u = quantize(x, step, zp)
            code = cpp_clamp(u)
            if 10 <= kind < 12:
                # Rounded from the quotient in float64, as a quantizer dividing in double would: near a
                # tie, one code off QuantizeLinear's float32 quotient now and then.
                code = cpp_clamp(float(np.rint(np.float64(x) / np.float64(step))) + float(zp))
            if 16 <= kind < 20:
                code = min(QMAX, code + 1)  # not the nearest
            f[r, c] = x
            codes[r, c] = int(code)
    return f, codes


def expected(f, codes):
    not_nearest, clipped = 0, []
    for r in range(ROWS):
        for c in range(COLS):
            u = quantize(f[r, c], STEPS[r], ZERO_POINTS[r])
            if u < QMIN or u > QMAX:
                clipped.append(r * COLS + c)
            not_nearest += cpp_clamp(u) != float(codes[r, c])
    return {'not_nearest': int(not_nearest), 'clipped': len(clipped), 'first_clipped_indices': clipped[:32]}


def model(nodes, inits, name):
    graph = helper.make_graph(nodes, name, [helper.make_tensor_value_info('x', TensorProto.FLOAT, [1, COLS, 1, 1])],
                              [helper.make_tensor_value_info('y', TensorProto.FLOAT, [1, ROWS, 1, 1])], inits)
    return helper.make_model(graph, producer_name='tests/node/make_code_edges_pair.py', opset_imports=[helper.make_opsetid('', 13)])


def main(out):
    out.mkdir(parents=True, exist_ok=True)
    f, codes = values(np.random.default_rng(21))
    shape = (ROWS, COLS, 1, 1)
    conv = helper.make_node('Conv', ['x', 'w'], ['y'], name='conv')
    (out / 'float.onnx').write_bytes(model([conv], [numpy_helper.from_array(f.reshape(shape), 'w')], 'float').SerializeToString())
    dq = helper.make_node('DequantizeLinear', ['w_quantized', 'w_scale', 'w_zero_point'], ['w'], name='w_DequantizeLinear', axis=0)
    inits = [numpy_helper.from_array(codes.reshape(shape), 'w_quantized'), numpy_helper.from_array(STEPS, 'w_scale'),
             numpy_helper.from_array(ZERO_POINTS, 'w_zero_point')]
    (out / 'quant.onnx').write_bytes(model([dq, conv], inits, 'quant').SerializeToString())
    (out / 'expected.json').write_text(json.dumps(expected(f, codes)))


if __name__ == '__main__':
    main(Path(sys.argv[1]))
