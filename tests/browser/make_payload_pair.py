"""Writes a float/quantized pair whose node, value and graph names are HTML/script payloads, for the
web page's injection test: the page must show them as text and run nothing.
    python3 make_payload_pair.py OUT_DIR
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / 'fixtures'))
from payload_pair import Names, payload_pair, write_pair  # noqa: E402

CONV = '<script>window.__pwned=1;alert(1)</script>'
RELU = '<img src=x onerror="window.__pwned=2;alert(2)">'
OUT = '"><svg onload="window.__pwned=3;alert(3)">'
IN = "<iframe src=javascript:alert(4)>"
# The Conv's doc string, shown by the detail panel's node detail.
DOC = '<img src=x onerror="window.__pwned=7;alert(7)"><script>window.__pwned=8</script>'


def models():
    return payload_pair(Names(conv=CONV, relu=RELU, graph_input=IN, graph_output=OUT,
                              conv_output='<b onmouseover=alert(5)>conv</b>', weight='W<svg>',
                              float_graph='<h1>float graph</h1>', quant_graph='<h1>quant graph</h1>',
                              float_producer='<script>alert(6)</script>', quant_producer='onnx.quantize', conv_doc=DOC), seed=7)


def main():
    out = Path(sys.argv[1])
    write_pair(out, models())


if __name__ == '__main__':
    main()
