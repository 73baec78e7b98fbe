"""Independent checks of the models `visualquant sensitivity` writes, with the onnx Python package.

  check_models.py FLOAT QUANT MODEL...   prints JSON: {"float_nodes": [names], "quantized": "ok" | error,
                                          "checked": {MODEL: "ok" | error}}

Every what-if model must pass the onnx checker (full_check: types and shapes inferred too) as the
quantized model it was made from does (a model of an IR version newer than this onnx, or with
ONNX Runtime's own ops in the default domain, fails here as its source does), and the exclusion
lists the report exports must name nodes the float model has.
"""
import json
import sys

import onnx


def main() -> None:
    float_model = onnx.load(sys.argv[1], load_external_data=False)
    checked = {path: check(path) for path in sys.argv[3:]}
    print(json.dumps({"float_nodes": [n.name for n in float_model.graph.node], "quantized": check(sys.argv[2]), "checked": checked}))


def check(path: str) -> str:
    try:
        onnx.checker.check_model(onnx.load(path), full_check=True)
        return "ok"
    except Exception as e:  # the checker's own message is the finding
        return f"{type(e).__name__}: {str(e).splitlines()[0]}"


if __name__ == "__main__":
    main()
