#!/usr/bin/env python3
"""LLM-scale pairs, compared without holding their weights (`scripts/bench large`; not part of CI).

Generates each pair with bench/make_llm_pair.py into a temporary folder (deleted after), then measures
in one run, against reading the same files once (`cat FILES > /dev/null`):
  - native `visualquant compare` (weights and lint included) and `visualquant weights`: wall time and
    peak RSS, with a cold page cache (the files' cached pages dropped first, posix_fadvise) and a warm
    one. Targets: peak RSS <= 0.1x the two models' size; time <= 1.5x the read of both, cold and warm.
  - the wasm core under Node (bench/large_wasm_run.mjs: the data files read by range with
    fs.readSync), twice: as the VS Code extension host's worker runs it (opened in steps, the
    table's analysis a slice at a time, the lint), whose peak RSS of the process and wasm memory are
    the targets (process <= 1.5 GB, wasm memory <= 1 GB); and compare() returning the CLI's whole
    report, which must be byte-identical to the native one (its memory printed, not a target: the
    7B pair's detailed report alone is 282 MB of JSON, built in wasm memory).
  - the web page in Chromium given both models and their data files by URL, and again to its file
    pickers (bench/large_page_run.mjs): time to the drawn pair and to the weights, peak summed PSS of
    the browser's processes (the core's wasm memory is inside it: the worker's module is out of the
    benchmark's reach). Target: <= 1.5 GB.

    large_bench.py [--pairs d2048,7b] [--keep DIR] [--skip-page]

The pairs: `d2048` is a 16-layer d=2048 decoder, 3.2 GB in float32, against ONNX Runtime's static QDQ
int8 form (0.8 GB); `7b` is the Llama-7B-shaped decoder (32 layers, d=4096, ffn 11008, vocab 32000),
13.5 GB in float16, against MatMulNBits 4-bit (block 32, 3.9 GB). Prints one JSON line per
measurement, then a table and the targets; exits 1 when a target is missed.
"""
import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
CLI = os.path.join(os.environ.get("VQ_NATIVE_BUILD", os.path.join(ROOT, "build/native")), "bin/visualquant")
WASM_DIST = os.path.join(ROOT, "build/wasm/dist")

PAIRS = {
    "d2048": ["--layers", "16", "--d", "2048", "--ffn", "4096", "--heads", "16", "--float", "float32", "--quant", "qdq-int8"],
    "7b": [],  # make_llm_pair.py's defaults
}
GB = 1e9


def run_measured(argv, stdout=subprocess.DEVNULL):
    """(seconds, peak RSS in bytes, exit code) of one child process, from its own rusage (wait4)."""
    with tempfile.TemporaryFile() as err:  # a file, not a pipe: a child that writes much never blocks on it
        started = time.monotonic()
        child = subprocess.Popen(argv, stdout=stdout, stderr=err)
        _, status, usage = os.wait4(child.pid, 0)
        seconds = time.monotonic() - started
        code = os.waitstatus_to_exitcode(status)
        if code != 0:
            err.seek(0)
            sys.exit(f"{' '.join(argv)} failed ({code}): {err.read().decode(errors='replace')[-2000:]}")
    return seconds, usage.ru_maxrss * 1024


def drop_cached(files):
    """Evicts the files' pages from the page cache (written back first), without privileges."""
    os.sync()
    for f in files:
        fd = os.open(f, os.O_RDONLY)
        try:
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        finally:
            os.close(fd)


def pair_files(folder):
    return sorted(os.path.join(folder, f) for f in os.listdir(folder))


def native(folder, files, results):
    float_model, quant_model = os.path.join(folder, "float.onnx"), os.path.join(folder, "quant.onnx")
    size = sum(os.path.getsize(f) for f in files)
    cat = ["cat", *files]
    commands = {
        "compare": [CLI, "compare", float_model, quant_model, "--json", os.path.join(folder, "..", "native_report.json")],
        "weights": [CLI, "weights", float_model, quant_model],
    }
    for cache in ("cold", "warm"):
        if cache == "cold":
            drop_cached(files)
        else:
            run_measured(cat)  # the files in the cache
        cat_s, _ = run_measured(cat)
        for name, argv in commands.items():
            if cache == "cold":
                drop_cached(files)
            else:
                run_measured(cat)
            seconds, rss = run_measured(argv)
            row = {"side": "native", "command": name, "cache": cache, "seconds": seconds, "cat_seconds": cat_s,
                   "ratio_to_cat": seconds / cat_s, "peak_rss_bytes": rss, "models_bytes": size, "rss_share": rss / size}
            print(json.dumps(row), flush=True)
            results.append(row)
            if cache == "cold":
                drop_cached(files)


def wasm(folder, files, results):
    size = sum(os.path.getsize(f) for f in files)
    for mode in ("host", "report"):
        out = subprocess.run(["node", os.path.join(HERE, "large_wasm_run.mjs"), WASM_DIST, os.path.join(folder, "float.onnx"),
                              os.path.join(folder, "quant.onnx"), mode], capture_output=True, text=True)
        if out.returncode != 0:
            sys.exit(f"the wasm run ({mode}) failed: {out.stderr[-2000:]}")
        row = {"side": "wasm-node", "models_bytes": size, **json.loads(out.stdout.strip().splitlines()[-1])}
        native_report = os.path.join(folder, "..", "native_report.json")
        if mode == "report" and os.path.exists(native_report):
            with open(native_report, "rb") as f:
                row["same_as_native"] = hashlib.sha256(f.read()).hexdigest() == row["report_sha256"]
        print(json.dumps(row), flush=True)
        results.append(row)


def page(folder, files, results):
    size = sum(os.path.getsize(f) for f in files)
    for route in ("url", "given"):
        out = subprocess.run(["node", os.path.join(HERE, "large_page_run.mjs"), folder, route], capture_output=True, text=True)
        sys.stderr.write(out.stderr)
        if out.returncode != 0:
            sys.exit(f"the page run ({route}) failed: {out.stderr[-2000:]}")
        row = {"side": "page", "models_bytes": size, **json.loads(out.stdout.strip().splitlines()[-1])}
        print(json.dumps(row), flush=True)
        results.append(row)


def main():
    a = argparse.ArgumentParser()
    a.add_argument("--pairs", default="d2048,7b")
    a.add_argument("--keep", help="generate the pairs into DIR and keep them (a second run reuses them)")
    a.add_argument("--skip-page", action="store_true")
    args = a.parse_args()
    results = []
    for pair in args.pairs.split(","):
        base = os.path.join(args.keep, pair) if args.keep else tempfile.mkdtemp(prefix=f"vq-large-{pair}-")
        folder = os.path.join(base, "models")
        try:
            if not os.path.exists(os.path.join(folder, "quant.onnx")):
                started = time.monotonic()
                subprocess.run([sys.executable, os.path.join(HERE, "make_llm_pair.py"), folder, *PAIRS[pair]], check=True)
                print(f"{pair}: generated in {time.monotonic() - started:.0f} s", file=sys.stderr, flush=True)
            files = pair_files(folder)
            print(f"{pair}: {len(files)} files, {sum(os.path.getsize(f) for f in files) / GB:.2f} GB", file=sys.stderr, flush=True)
            before = len(results)
            native(folder, files, results)
            wasm(folder, files, results)
            if not args.skip_page:
                page(folder, files, results)
            for row in results[before:]:
                row["pair"] = pair
        finally:
            if not args.keep:
                shutil.rmtree(base, ignore_errors=True)
    ok = report(results)
    sys.exit(0 if ok else 1)


def report(results):
    print("\n| pair | run | time | vs reading both files (cat) | peak memory | share of the models' size |")
    print("| --- | --- | ---: | ---: | ---: | ---: |")
    for r in results:
        if r["side"] == "native":
            print(f"| {r['pair']} ({r['models_bytes'] / GB:.1f} GB) | native {r['command']}, {r['cache']} cache | {r['seconds']:.1f} s | "
                  f"{r['ratio_to_cat']:.2f}x ({r['cat_seconds']:.1f} s) | {r['peak_rss_bytes'] / 1e6:.0f} MB RSS | {r['rss_share']:.3f} |")
        elif r["side"] == "wasm-node":
            what = "the extension host's path" if r["mode"] == "host" else "compare(), the CLI's whole report"
            print(f"| {r['pair']} | wasm under Node ({what}) | {r['seconds']:.1f} s | | "
                  f"{r['peak_rss_bytes'] / 1e6:.0f} MB RSS, wasm memory {r['wasm_memory_bytes'] / 1e6:.0f} MB | |")
        else:
            how = "by URL" if r["route"] == "url" else "files given to its pickers"
            print(f"| {r['pair']} | page in Chromium, {how} | drawn {r['drawn_s']:.1f} s, weights {r['analysed_s']:.1f} s | | "
                  f"{r['peak_pss_bytes'] / 1e6:.0f} MB PSS | |")
    ok = True

    def target(met, text):
        nonlocal ok
        ok = ok and met
        print(f"{'met   ' if met else 'MISSED'} {text}")

    print()
    for r in results:
        if r["side"] == "native":
            target(r["rss_share"] <= 0.1, f"{r['pair']} native {r['command']} ({r['cache']}): peak RSS {r['rss_share']:.3f}x the models (<= 0.1x)")
            target(r["ratio_to_cat"] <= 1.5, f"{r['pair']} native {r['command']} ({r['cache']}): {r['ratio_to_cat']:.2f}x reading the files (<= 1.5x)")
        elif r["side"] == "wasm-node":
            if r["mode"] == "host":
                target(r["peak_rss_bytes"] <= 1.5e9, f"{r['pair']} wasm under Node: process peak {r['peak_rss_bytes'] / 1e9:.2f} GB (<= 1.5 GB)")
                target(r["wasm_memory_bytes"] <= 1e9, f"{r['pair']} wasm under Node: wasm memory {r['wasm_memory_bytes'] / 1e9:.2f} GB (<= 1 GB)")
            if "same_as_native" in r:
                target(r["same_as_native"], f"{r['pair']} wasm report byte-identical to the native one")
        else:
            target(r["peak_pss_bytes"] <= 1.5e9, f"{r['pair']} page ({r['route']}): browser peak PSS {r['peak_pss_bytes'] / 1e9:.2f} GB (<= 1.5 GB)")
            target(r["clean"], f"{r['pair']} page ({r['route']}): compared without an error, a CSP violation or a dialog" + (f" ({r['failed'][:300]})" if r["failed"] else ""))
    return ok


if __name__ == "__main__":
    main()
