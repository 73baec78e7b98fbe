#!/usr/bin/env bash
# The compare command on any two models and on three: the verdict first for a pair that is not one
# network, the case and the sides named by what they are, the three-way summary, table and CSV, and
# the refusals. Usage: test_cli_versions.sh VISUALQUANT VERSIONS_DIR
set -u
vq="$1"
v="$2"
out_dir="$(mktemp -d)"
trap 'rm -rf "$out_dir"' EXIT
failures=0
run() {  # expected-code description command...
  local want="$1" what="$2"
  shift 2
  "$@" >"$out_dir/out" 2>"$out_dir/err"
  local got=$?
  if [ "$got" != "$want" ]; then
    echo "FAIL: $what: exit $got, expected $want"; cat "$out_dir/err"; failures=$((failures + 1))
  else
    echo "ok: $what"
  fi
}
has() {  # file pattern description
  grep -q -- "$2" "$1" || { echo "FAIL: $3"; failures=$((failures + 1)); }
}
t="$v/torch_cnn_three_way"

run 0 "a wrong pair compares" "$vq" compare "$v/torch_cnn_reinit/a.onnx" "$v/torch_cnn_reinit/b.onnx"
head -1 "$out_dir/out" | grep -q '^!! NOT THE SAME NETWORK' || { echo "FAIL: the verdict is not the first line"; failures=$((failures + 1)); }
has "$out_dir/out" "^case:   two float models" "the case is not said"
has "$out_dir/out" "^A: float:  a.onnx" "side A is not named"
has "$out_dir/out" "^weights: no weights are compared" "the empty weights are not explained"

run 0 "a fine-tune compares" "$vq" compare "$v/torch_cnn_finetuned/a.onnx" "$v/torch_cnn_finetuned/b.onnx"
has "$out_dir/out" "^same network: yes" "the fine-tune is not the same network"
has "$out_dir/out" "largest change first" "the weight changes are not listed"

run 0 "two quantized versions compare" "$vq" compare "$t/eager_ptq.onnx" "$t/qat.onnx" --json "$out_dir/qq.json"
has "$out_dir/out" "^case:   two quantized models" "the quant/quant case is not said"
has "$out_dir/qq.json" '"case": "quantized_vs_quantized"' "the report lacks the case"

run 0 "three models compare" "$vq" compare "$t/float.onnx" "$t/eager_ptq.onnx" "$t/qat.onnx" --json "$out_dir/tw.json" --csv "$out_dir/tw.csv"
has "$out_dir/out" "^where they differ most:" "no ranked differences"
has "$out_dir/out" "A fused Conv+BatchNormalization, B did not" "the fusion difference is not said"
has "$out_dir/tw.json" '"case": "three_way"' "the three-way report lacks its case"
has "$out_dir/tw.json" '"versions": \[' "the three-way report lacks its versions"
head -1 "$out_dir/tw.csv" | grep -q '^row,float_ops,A_ops' || { echo "FAIL: the CSV lacks its header"; failures=$((failures + 1)); }

run 2 "a quantized hub is refused" "$vq" compare "$t/eager_ptq.onnx" "$t/float.onnx" "$t/qat.onnx"
has "$out_dir/err" "takes the float model first" "the refusal does not say why"
run 2 "a float version is refused" "$vq" compare "$t/float.onnx" "$t/float.onnx" "$t/qat.onnx"
run 2 "four models are refused" "$vq" compare "$t/float.onnx" "$t/eager_ptq.onnx" "$t/qat.onnx" "$t/fx_ptq.onnx"
run 2 "--csv needs three models" "$vq" compare "$t/float.onnx" "$t/qat.onnx" --csv "$out_dir/x.csv"
run 3 "the CSV may not overwrite a model" "$vq" compare "$t/float.onnx" "$t/eager_ptq.onnx" "$t/qat.onnx" --csv "$t/qat.onnx"

[ "$failures" -eq 0 ] && echo "all passed" || { echo "$failures failure(s)"; exit 1; }
