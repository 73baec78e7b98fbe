#!/usr/bin/python3
"""Weights benchmark: `visualquant weights` against its numpy peer (bench/weights_peer.py), same
run, same machine, same pair; median of REPEATS runs of each.

  native  `visualquant weights FLOAT QUANT --json FILE`, the whole process (load, alignment,
          analysis, report), against the peer's whole process (python, numpy and onnx imports,
          onnx.load of both models, analysis, JSON) given the pairing precomputed (producing it is
          not timed). Target: the peer takes >= 10x as long.
  wasm    compare(..., {weights: true}) - compare(..., {weights: false}) under Node (the analysis
          alone: the bytes are in memory and aligned either way) against the same peer time.
          Target >= 3x. Also printed: against the peer's analysis alone (its own clock, onnx.load
          excluded), the strictest reading; against native's analysis (its weights run minus the
          alignment-only run, on both cores); and the page's table summary and its JSON export's
          full report, each made by one wasm instance and by two (the page's helper core: one
          weight per core, as natively), the full report on two against native's analysis.
  memory  max RSS (/usr/bin/time -v) of the native weights run minus the max RSS of one run of
          build/native/bench/vq_bench_compare FLOAT QUANT 1 mapped (load both models, align them,
          write the alignment report: compare_models without weights). Both map the files whole
          (MAP_POPULATE), so both count the files' pages. `visualquant compare` is no
          baseline: it analyses the weights too, even without --json. That baseline holds the
          models as the tool holds them (file bytes, parsed graphs, alignment), which the weights
          run needs too; subtracting only the two file sizes would charge the parsed graphs and the
          alignment to the analysis (also printed, for reference). Target: <= 10% of the weights'
          size, taken as both files' size (the models are their weights).
  agree   the native and numpy reports of the pair must agree (tests/weights/check_against_numpy.py's
          comparison): a fast wrong answer is no win.

Prints one JSON line per side; scripts/bench checks the targets.
  weights_bench.py KIND FLOAT QUANT [REPEATS]
"""
import importlib.util
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CLI = os.path.join(ROOT, "build", "native", "bin", "visualquant")
ALIGN_ONLY = os.path.join(ROOT, "build", "native", "bench", "vq_bench_compare")
DIST = os.path.join(ROOT, "build", "wasm", "dist")
PEER = os.path.join(ROOT, "bench", "weights_peer.py")
CHECK = os.path.join(ROOT, "tests", "weights", "check_against_numpy.py")


def timed(cmd, stderr_file):
    """(wall seconds, max RSS bytes, stderr text) of one process, under /usr/bin/time -v."""
    t0 = time.perf_counter()
    with open(stderr_file, "w") as err:
        subprocess.run(["/usr/bin/time", "-v"] + cmd, stdout=subprocess.DEVNULL, stderr=err, check=True)
    wall = time.perf_counter() - t0
    text = open(stderr_file).read()
    rss_kb = next(int(l.split(":")[1]) for l in text.splitlines() if "Maximum resident set size" in l)
    return wall, rss_kb * 1024, text


def agreement(core_path, peer_path):
    """Disagreeing checks between the two reports (same tolerances as the test)."""
    sys.dont_write_bytecode = True  # no __pycache__ left in tests/weights/
    spec = importlib.util.spec_from_file_location("check_against_numpy", CHECK)
    check = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(check)
    core, peer = json.load(open(core_path)), json.load(open(peer_path))
    mine = {(l["float_node"], l["quant_node"]): l for l in peer["layers"]}
    bad = []
    for layer in core["layers"]:
        other = mine.get((layer["float_node"], layer["quant_node"]))
        if other is None:
            bad.append(f"{layer['float_node']}: no peer layer")
            continue
        ctx = {"std": max(other["float"]["std"] or 0, other["dequantized"]["std"] or 0),
               "range": other["histogram"]["edges"][-1] - other["histogram"]["edges"][0]}
        results = []
        check.compare_field("", layer, other, [ctx], results)
        bad += [f"{layer['float_node']} {p}: core {a} numpy {b}" for p, ok, a, b in results if not ok and p != "rank"]
    return bad


def main():
    kind, fpath, qpath = sys.argv[1:4]
    repeats = int(sys.argv[4]) if len(sys.argv) > 4 else 3
    tmp = tempfile.mkdtemp(prefix="vq_weights_bench_")
    try:
        run(kind, fpath, qpath, repeats, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def run(kind, fpath, qpath, repeats, tmp):
    pairing, core_json, peer_json, err = (os.path.join(tmp, n) for n in ("pairing.json", "core.json", "peer.json", "stderr"))
    # The pairing for the peer (not timed); also warms the page cache for everyone.
    subprocess.run([CLI, "weights", fpath, qpath, "--json", pairing], stdout=subprocess.DEVNULL, check=True)
    native, native_rss, base, base_rss, peer, peer_rss, peer_analysis = [], [], [], [], [], [], []
    for _ in range(repeats):
        wall, rss, _ = timed([CLI, "weights", fpath, qpath, "--json", core_json], err)
        native.append(wall)
        native_rss.append(rss)
        wall, rss, _ = timed([ALIGN_ONLY, fpath, qpath, "1", "mapped"], err)
        base.append(wall)
        base_rss.append(rss)
        wall, rss, text = timed(["/usr/bin/python3", PEER, fpath, qpath, "--pairing", pairing, "--out", peer_json, "--time"], err)
        peer.append(wall)
        peer_rss.append(rss)
        clock = dict(l.split()[:2] for l in text.splitlines() if l.startswith("peer_"))
        peer_analysis.append(float(clock["peer_analysis_seconds"]))
    wasm_line = subprocess.run(["node", os.path.join(ROOT, "bench", "weights_bench.mjs"), fpath, qpath, DIST, str(repeats)],
                               capture_output=True, text=True, check=True).stdout.strip().splitlines()[-1]
    wasm = json.loads(wasm_line)
    bad = agreement(core_json, peer_json)
    for line in bad[:10]:
        print(f"disagreement: {line}", file=sys.stderr)
    med = statistics.median
    files = os.path.getsize(fpath) + os.path.getsize(qpath)
    extra = med(native_rss) - med(base_rss)
    mb = lambda b: round(b / 2**20, 1)
    print(json.dumps({
        "side": "native", "pair": kind, "weights_s": round(med(native), 3), "peer_s": round(med(peer), 3),
        "speedup": round(med(peer) / med(native), 2), "alignment_only_s": round(med(base), 3),
        "peak_rss_mb": mb(med(native_rss)), "alignment_only_rss_mb": mb(med(base_rss)), "peer_rss_mb": mb(med(peer_rss)),
        "weights_mb": mb(files), "extra_peak_mb": mb(extra), "extra_peak_over_weights": round(extra / files, 4),
        "extra_over_file_sizes_mb": mb(med(native_rss) - files), "agree": not bad, "disagreements": len(bad)}))
    adds = wasm["weights_adds_s"]
    print(json.dumps({
        "side": "wasm", "pair": kind, "layers": wasm["layers"], "weights_adds_s": round(adds, 3),
        "alignment_s": round(wasm["alignment_s"], 3), "peer_s": round(med(peer), 3), "speedup": round(med(peer) / adds, 2),
        "peer_analysis_s": round(med(peer_analysis), 3), "speedup_vs_peer_analysis": round(med(peer_analysis) / adds, 2),
        "native_analysis_s": round(med(native) - med(base), 3), "vs_native_analysis": round(adds / max(med(native) - med(base), 1e-9), 2),
        # The page's table summary (no histograms, no quantiles): one instance, and two as the page's
        # helper core shares it (the same bytes, checked).
        "summary_one_instance_s": round(wasm["summary_one_instance_s"], 3), "summary_two_instances_s": round(wasm["summary_two_instances_s"], 3),
        "two_instances_speedup": round(wasm["summary_one_instance_s"] / wasm["summary_two_instances_s"], 2),
        # The full report (as the JSON export makes it, histograms and quantiles included) on two
        # instances, against native's analysis on two cores: wasm's two cores against native's two.
        "full_one_instance_s": round(wasm["full_one_instance_s"], 3), "full_two_instances_s": round(wasm["full_two_instances_s"], 3),
        "full_two_instances_vs_native_analysis": round(wasm["full_two_instances_s"] / max(med(native) - med(base), 1e-9), 2),
        "two_instances_same_bytes": wasm["two_instances_same_bytes"]}))


if __name__ == "__main__":
    main()
