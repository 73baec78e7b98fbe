#!/usr/bin/env bash
# The CLI's contract: exit codes 0 / 2 / 3, the table by default, JSON with --json, errors on stderr
# naming the error code. Usage: test_cli.sh VISUALQUANT FIXTURES_DIR
set -u
vq="$1"
fx="$2"
failures=0
expect_exit() {  # expected-code description command...
  local want="$1" what="$2"
  shift 2
  "$@" >/tmp/vq_cli_out.$$ 2>/tmp/vq_cli_err.$$
  local got=$?
  if [ "$got" != "$want" ]; then
    echo "FAIL: $what: exit $got, expected $want"; cat /tmp/vq_cli_err.$$; failures=$((failures + 1))
  else
    echo "ok: $what"
  fi
}
expect_exit 0 "inspect prints a table" "$vq" inspect "$fx/examples/quant_qdq.onnx"
grep -q "quantization  qdq" /tmp/vq_cli_out.$$ || { echo "FAIL: table lacks the quantization line"; failures=$((failures + 1)); }
expect_exit 0 "inspect --json prints the report" "$vq" inspect --json "$fx/examples/float.onnx"
grep -q '"report": "visualquant.inspect"' /tmp/vq_cli_out.$$ || { echo "FAIL: no JSON report"; failures=$((failures + 1)); }
expect_exit 2 "no arguments is a usage error" "$vq"
expect_exit 2 "unknown command" "$vq" frobnicate
expect_exit 2 "unknown option" "$vq" inspect --bogus "$fx/examples/float.onnx"
expect_exit 2 "two models to inspect" "$vq" inspect "$fx/examples/float.onnx" "$fx/examples/float.onnx"
expect_exit 3 "truncated model" "$vq" inspect "$fx/bad/truncated.onnx"
grep -q "error \[truncated\]" /tmp/vq_cli_err.$$ || { echo "FAIL: stderr lacks the error code"; failures=$((failures + 1)); }
expect_exit 3 "missing file" "$vq" inspect "$fx/does-not-exist.onnx"
expect_exit 3 "a folder is not a model" "$vq" inspect "$fx"
expect_exit 3 "element limit" "$vq" inspect --max-elements 10 "$fx/examples/float.onnx"
expect_exit 0 "inspect --node prints one node's detail" "$vq" inspect "$fx/valid/subgraph_scopes.onnx" --node uses_two_scopes
grep -q "Loop outer_loop > body > If inner_if > then_branch" /tmp/vq_cli_out.$$ && grep -q "v_in  float32 \[2\]  from graph_input (enclosing graph)" /tmp/vq_cli_out.$$ ||
  { echo "FAIL: node text lacks its graph or an input"; failures=$((failures + 1)); }
expect_exit 0 "inspect --node --json prints the node report" "$vq" inspect --json "$fx/valid/subgraph_scopes.onnx" --node inner_if
grep -q '"report": "visualquant.node"' /tmp/vq_cli_out.$$ && grep -q '"name": "then_branch"' /tmp/vq_cli_out.$$ ||
  { echo "FAIL: no node JSON"; failures=$((failures + 1)); }
expect_exit 2 "inspect --node of an unknown node" "$vq" inspect "$fx/examples/float.onnx" --node no_such_node
grep -q "no node has the id or name 'no_such_node'" /tmp/vq_cli_err.$$ || { echo "FAIL: unknown node not named"; failures=$((failures + 1)); }
expect_exit 2 "--node needs a name" "$vq" inspect "$fx/examples/float.onnx" --node
expect_exit 3 "inspect --node of a bad model" "$vq" inspect "$fx/bad/truncated.onnx" --node x
expect_exit 0 "--version" "$vq" --version
expect_exit 0 "compare prints a summary" "$vq" compare "$fx/examples/float.onnx" "$fx/examples/quant_qdq.onnx"
grep -q "^mapping: " /tmp/vq_cli_out.$$ || { echo "FAIL: compare summary lacks the mapping line"; failures=$((failures + 1)); }
expect_exit 0 "compare --json - prints the report" "$vq" compare "$fx/examples/quant_qdq.onnx" "$fx/examples/float.onnx" --json -
grep -q '"argument_order_swapped": true' /tmp/vq_cli_out.$$ || { echo "FAIL: swapped order not detected"; failures=$((failures + 1)); }
out_dir="$(mktemp -d)"
expect_exit 0 "compare --json FILE writes the report" "$vq" compare "$fx/examples/float.onnx" "$fx/examples/quant_qdq.onnx" --json "$out_dir/r.json"
grep -q '"report": "visualquant.compare"' "$out_dir/r.json" || { echo "FAIL: no report written"; failures=$((failures + 1)); }
rm -rf "$out_dir"
expect_exit 2 "compare needs two models" "$vq" compare "$fx/examples/float.onnx"
expect_exit 3 "compare with a bad model" "$vq" compare "$fx/examples/float.onnx" "$fx/bad/truncated.onnx"
expect_exit 0 "layout prints counts, crossings, length and time" "$vq" layout "$fx/examples/quant_qdq.onnx"
grep -q "crossings .*total edge length" /tmp/vq_cli_out.$$ && grep -q "^time: load .* ms, layout .* ms" /tmp/vq_cli_out.$$ ||
  { echo "FAIL: layout summary lacks crossings, length or time"; failures=$((failures + 1)); }
expect_exit 0 "layout --collapsed --json - prints the layout" "$vq" layout "$fx/examples/quant_qdq.onnx" --collapsed --json -
grep -q '"report":"visualquant.layout"' /tmp/vq_cli_out.$$ || { echo "FAIL: no layout JSON"; failures=$((failures + 1)); }
out_dir="$(mktemp -d)"
expect_exit 0 "layout --nodes --json FILE writes the layout" "$vq" layout "$fx/examples/quant_qdq.onnx" --nodes --json "$out_dir/l.json"
grep -q '"view":"nodes"' "$out_dir/l.json" || { echo "FAIL: no layout written"; failures=$((failures + 1)); }
rm -rf "$out_dir"
expect_exit 0 "layout of a pair lays both out side by side" "$vq" layout "$fx/examples/quant_qdq.onnx" "$fx/examples/float.onnx"
grep -q "^rows shared: " /tmp/vq_cli_out.$$ || { echo "FAIL: paired layout lacks the shared rows line"; failures=$((failures + 1)); }
expect_exit 2 "layout needs a model" "$vq" layout
expect_exit 2 "--expand needs --collapsed" "$vq" layout "$fx/examples/float.onnx" --expand a
expect_exit 3 "layout of a bad model" "$vq" layout "$fx/bad/truncated.onnx"
# Invalid quantization parameters load (exit 0) and show as an error finding in the summary.
qp="$(dirname "$0")/../fixtures/malformed/quant_params/qdq_per_axis_scale_length"
expect_exit 0 "compare with invalid quantization parameters" "$vq" compare "$qp/float.onnx" "$qp/quant.onnx"
grep -q "error invalid_quant_params at 'W_DequantizeLinear': .*per-axis scale has 15 values, but axis 0 of the input has 16" /tmp/vq_cli_out.$$ ||
  { echo "FAIL: compare summary lacks the invalid_quant_params error"; failures=$((failures + 1)); }
qp="$(dirname "$0")/../fixtures/malformed/quant_params/mnb_k_near_int64_max"
expect_exit 0 "weights with MatMulNBits K near INT64_MAX" "$vq" weights "$qp/float.onnx" "$qp/quant.onnx"
grep -q "^not analysed, invalid quantization parameters: 1" /tmp/vq_cli_out.$$ ||
  { echo "FAIL: weights table does not list the invalid layer"; failures=$((failures + 1)); }
# Model-local functions that recurse (tests/fixtures/malformed/, committed): exit 3 with the code and
# the functions named, in every command that loads a model; they used to crash (SIGSEGV, exit 139).
recursive="$(dirname "$0")/../fixtures/malformed/recursive_function.onnx"
mutual="$(dirname "$0")/../fixtures/malformed/mutually_recursive_functions.onnx"
expect_recursive_named() {  # what cycle
  grep -q "error \[recursive_function\]: .*$2" /tmp/vq_cli_err.$$ ||
    { echo "FAIL: $1: stderr lacks the code or the cycle '$2'"; cat /tmp/vq_cli_err.$$; failures=$((failures + 1)); }
}
expect_exit 3 "inspect of a recursive function" "$vq" inspect "$recursive"
expect_recursive_named "inspect" "Recurse -> Recurse"
expect_exit 3 "inspect --json of mutually recursive functions" "$vq" inspect --json "$mutual"
expect_recursive_named "inspect --json" "ping -> pong -> ping"
expect_exit 3 "compare with a recursive function" "$vq" compare "$fx/examples/float.onnx" "$recursive"
expect_recursive_named "compare" "Recurse -> Recurse"
# A CSV goes to a file only: "-" is refused before any work (not standard output, where a model's
# raw strings would reach the terminal, nor a file named "-" in the working folder).
csv_dir="$(mktemp -d)" avq="$(realpath "$vq")" afx="$(realpath "$fx")"
cd "$csv_dir" || exit 1
for cmd in "weights $afx/examples/float.onnx $afx/examples/quant_qdq.onnx" \
           "compare $afx/examples/float.onnx $afx/examples/quant_qdq.onnx $afx/examples/quant_qdq.onnx" \
           "activations $afx/examples/float.onnx $afx/examples/quant_qdq.onnx"; do
  # shellcheck disable=SC2086
  expect_exit 2 "${cmd%% *} --csv - is a usage error" "$avq" $cmd --csv -
  grep -q -- "--csv needs a file name" /tmp/vq_cli_err.$$ || { echo "FAIL: ${cmd%% *} --csv -: no reason given"; failures=$((failures + 1)); }
done
cd - >/dev/null || exit 1
[ -z "$(ls -A "$csv_dir")" ] || { echo "FAIL: --csv - wrote a file"; failures=$((failures + 1)); }
rm -rf "$csv_dir"
expect_exit 3 "weights with a recursive function" "$vq" weights "$recursive" "$fx/examples/quant_qdq.onnx"
expect_recursive_named "weights" "Recurse -> Recurse"
expect_exit 3 "layout of a recursive function" "$vq" layout "$recursive"
expect_recursive_named "layout" "Recurse -> Recurse"
rm -f /tmp/vq_cli_out.$$ /tmp/vq_cli_err.$$
[ "$failures" = 0 ]
