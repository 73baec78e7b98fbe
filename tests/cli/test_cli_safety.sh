#!/usr/bin/env bash
# The CLI never lets a model string act on the terminal or a spreadsheet, and never writes over
# its inputs: every command's text, JSON and error output on a pair whose names are terminal
# payloads (tests/fixtures/payloads/terminal, made by make_terminal_payloads.py) carries no raw
# control character; its CSV neutralises formulas; an output that names an input model or one of
# its external-data files, or that cannot be written, is refused with exit 3 before the analysis.
# Usage: test_cli_safety.sh VISUALQUANT FIXTURES_DIR
set -u
vq="$1"
fx="$2"
payloads="$(cd "$(dirname "${BASH_SOURCE[0]}")/../fixtures/payloads/terminal" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# Runs a command; checks its exit code, then that neither stream holds a byte a terminal acts on:
# C0 controls other than LF and TAB, DEL, C1 controls in UTF-8 (C2 80-9F), bidirectional overrides
# and isolates (E2 80 AA-AE, E2 81 A6-A9).
inert() {  # expected-exit description command...
  local want="$1" what="$2"
  shift 2
  "$@" >"$work/out" 2>"$work/err"
  local got=$?
  [ "$got" = "$want" ] || { fail "$what: exit $got, expected $want"; head -c 2000 "$work/err"; return; }
  for stream in out err; do
    if LC_ALL=C grep -qaP '[\x00-\x08\x0B-\x1F\x7F]|\xC2[\x80-\x9F]|\xE2\x80[\xAA-\xAE]|\xE2\x81[\xA6-\xA9]' "$work/$stream"; then
      fail "$what: raw control characters on std$stream"
      LC_ALL=C grep -naP '[\x00-\x08\x0B-\x1F\x7F]|\xC2[\x80-\x9F]|\xE2\x80[\xAA-\xAE]' "$work/$stream" | head -3 | od -c | head -8
      return
    fi
  done
  echo "ok: $what"
}
shows() {  # stream text description
  grep -qF -- "$2" "$work/$1" || fail "$3: std$1 lacks '$2'"
}

f="$payloads/float.onnx"
q="$payloads/quant.onnx"
inert 0 "inspect table" "$vq" inspect "$q"
shows out 'onnx.quantize\x1B[8m' "inspect shows the producer's escape as text"
inert 0 "inspect --json" "$vq" inspect --json "$f"
inert 0 "inspect --node" "$vq" inspect "$f" --node 'relu'$'\r''model OK'$'\u009b''31m'$'\u202e''KO ledom'
shows out 'relu\rmodel OK\u{009B}31m\u{202E}KO ledom' "the node detail shows CR, C1 CSI and RLO as text"
inert 0 "inspect --node --json" "$vq" inspect --json "$f" --node 'relu'$'\r''model OK'$'\u009b''31m'$'\u202e''KO ledom'
inert 0 "compare summary" "$vq" compare "$f" "$q"
inert 0 "compare --json -" "$vq" compare "$f" "$q" --json -
shows out '\u009b' "compare --json - escapes C1 controls as JSON escapes"
inert 0 "weights table" "$vq" weights "$f" "$q"
shows out ']0;pwned\x07\x1B[2J\x1B[H' "weights shows the OSC title change and the screen clear as text"
inert 0 "weights --json -" "$vq" weights "$f" "$q" --json -
inert 0 "weights --layer" "$vq" weights "$f" "$q" --layer '=HYPERLINK("http://x","conv")'$'\e'']0;pwned'$'\a'$'\e''[2J'$'\e''[H'
inert 0 "layout of one model" "$vq" layout "$q"
inert 0 "layout of a pair" "$vq" layout "$f" "$q"
inert 0 "layout --labels" "$vq" layout "$f" "$q" --labels
inert 3 "an error message naming model strings" "$vq" inspect "$payloads/dangling.onnx"
shows err 'error [dangling_input]' "the error keeps its code"
shows err '\x1B[2K\rvisualquant: model OK' "the error shows the value's escapes as text"
ln -s "$fx/bad/truncated.onnx" "$work/"$'\e''[31mred'$'\a''.onnx'
inert 3 "a file name with escapes" "$vq" inspect "$work/"$'\e''[31mred'$'\a''.onnx'
shows err '\x1B[31mred\x07.onnx' "the file name is shown escaped"
inert 2 "a usage error quoting an argument" "$vq" inspect --$'\e''[2J'

# CSV: a text cell a spreadsheet would take for a formula starts with an apostrophe.
inert 0 "weights --csv" "$vq" weights "$f" "$q" --csv "$work/layers.csv"
grep -qF ",\"'=HYPERLINK(\"\"http://x\"\",\"\"conv\"\")" "$work/layers.csv" || { fail "the CSV hands a formula to a spreadsheet"; cat "$work/layers.csv"; }
if LC_ALL=C grep -qaP '(^|,)"?[=+@-][^0-9.]' "$work/layers.csv"; then fail "a CSV cell starts with a formula character"; cat "$work/layers.csv"; fi

# Outputs over inputs: refused with exit 3, the input untouched.
cp "$fx/examples/float.onnx" "$fx/examples/quant_qdq.onnx" "$work/"
cp "$work/quant_qdq.onnx" "$work/quant_copy.onnx"
check_untouched() {  # file description
  cmp -s "$1" "$2" || fail "$3: the input was changed"
}
inert 3 "compare --json over the quantized model" "$vq" compare "$work/float.onnx" "$work/quant_qdq.onnx" --json "$work/quant_qdq.onnx"
shows err 'error [output_is_input]' "compare names the refusal"
check_untouched "$work/quant_qdq.onnx" "$work/quant_copy.onnx" "compare --json"
ln -s "$work/quant_qdq.onnx" "$work/link.json"
inert 3 "weights --csv over an input through a link" "$vq" weights "$work/float.onnx" "$work/quant_qdq.onnx" --csv "$work/link.json"
check_untouched "$work/quant_qdq.onnx" "$work/quant_copy.onnx" "weights --csv through a link"
inert 3 "layout --json over its model by another path" "$vq" layout "$work/quant_qdq.onnx" --json "$work/./quant_qdq.onnx"
check_untouched "$work/quant_qdq.onnx" "$work/quant_copy.onnx" "layout --json"
cp -r "$fx/valid/external" "$work/external"
cp "$work/external/weights.bin" "$work/weights_copy.bin"
inert 3 "compare --json over an external-data file" "$vq" compare "$work/external/model.onnx" "$work/external/model.onnx" --json "$work/external/weights.bin"
shows err "read by the model" "the refusal names the model that reads the file"
check_untouched "$work/external/weights.bin" "$work/weights_copy.bin" "external data"

# Outputs that cannot be written: found before the analysis (no summary printed), exit 3.
inert 3 "--json into a missing folder" "$vq" compare "$work/float.onnx" "$work/quant_qdq.onnx" --json "$work/no/such/dir/r.json"
shows err 'error [output_not_writable]' "the unwritable output is named"
[ -s "$work/out" ] && fail "the analysis ran before the unwritable output was found"
mkdir "$work/a_folder"
inert 3 "--csv onto a folder" "$vq" weights "$work/float.onnx" "$work/quant_qdq.onnx" --csv "$work/a_folder"
[ -s "$work/out" ] && fail "the analysis ran before the folder output was found"
ls "$work"/*.json 2>/dev/null | grep -v link.json && fail "a refused job left a file behind"

echo "$failures failed"
[ "$failures" = 0 ]
