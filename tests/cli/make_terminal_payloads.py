"""Writes a float/quantized pair (ONNX Runtime's QDQ form, built by hand: one Conv with a
per-channel int8 weight, a uint8 activation pair, a Relu) whose node, value and producer names are
terminal-control and spreadsheet-formula payloads, for the CLI's escaping tests
(test_cli_safety.sh): every text the CLI prints must show them as inert text, and its CSV must not
hand a spreadsheet a formula; and dangling.onnx, a model the loader refuses with a payload in its
error message. Run with Debian's python3-onnx:
    python3 make_terminal_payloads.py OUT_DIR      (the committed copy: tests/fixtures/payloads/terminal)
"""
import sys
from pathlib import Path

import onnx
from onnx import TensorProto, helper

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / 'fixtures'))
from payload_pair import Names, payload_pair, write_pair  # noqa: E402

ESC, BEL, CSI_C1 = '\x1b', '\x07', '\u009b'
# A window-title change (OSC 0), a screen clear, a carriage return that rewrites the line, a C1 CSI
# (U+009B) colour change, a right-to-left override, and a line break that forges a line.
CONV = f'=HYPERLINK("http://x","conv"){ESC}]0;pwned{BEL}{ESC}[2J{ESC}[H'
RELU = f'relu\rmodel OK{CSI_C1}31m\u202eKO ledom'
OUT = '@SUM(1+1)\nvisualquant: model OK'
IN = '+cmd|" /C calc"!A0'
WEIGHT = '-2+3=w'


def models():
    return payload_pair(Names(conv=CONV, relu=RELU, graph_input=IN, graph_output=OUT, conv_output=f'conv_out{ESC}[1A',
                              weight=WEIGHT, float_graph=f'graph{ESC}[5m', quant_graph=f'graph{ESC}[5m',
                              float_producer=f'{ESC}]2;title{BEL}torch', quant_producer=f'onnx.quantize{ESC}[8m'), seed=11)


def dangling():
    """A model the loader refuses (a node reads a value nothing provides), whose error message
    names the node and the value: the CLI's error line must stay inert too."""
    x = helper.make_tensor_value_info('X', TensorProto.FLOAT, [2])
    y = helper.make_tensor_value_info('Y', TensorProto.FLOAT, [2])
    graph = helper.make_graph([helper.make_node('Add', ['X', f'ghost{ESC}[2K\rvisualquant: model OK'], ['Y'], name=RELU)],
                              'g', [x], [y])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid('', 13)])


def main():
    out = Path(sys.argv[1])
    write_pair(out, models())
    onnx.save(dangling(), out / 'dangling.onnx')


if __name__ == '__main__':
    main()
