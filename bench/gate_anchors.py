#!/usr/bin/python3
"""The gate beside the anchors on the same pair (issue 55, item 5): for each
trial, an A/A or a known slowdown of --effect of the model's median run
(resnet18 scripted, 1 thread; bench/gate_calibration.py's model and delay),
judged three ways, each at its defaults:

  gate        a baseline by one profile_graph invocation (--runs=30), then
              `profile_graph check --runs=auto` by another (the delay pass
              after layer3 when slowed): its verdict on the run total
  hyperfine   the two whole processes `profile_graph --runs=20` without and
              with the delay pass, hyperfine's defaults (at least 10 runs and
              3 s a command); hyperfine tests nothing: the call read off its
              summary is "slower" when the ratio of means exceeds 1 by more
              than the +- it prints (and "faster" the other way), else none
  compare.py  Google Benchmark's tools/compare.py on two runs of
              bench/anchors/model_gbench.cc (forward, then a spin of the
              same size when slowed), 10 repetitions each (its U test warns
              below 9): "slower"/"faster" when its U test's p < 0.05 (its
              default alpha), by the sign of the median change, else none

A call is right when it is "slower" on a slowdown and no call on an A/A.
Prints per tool and kind the calls and the median seconds to an answer
(the gate: baseline + check processes; hyperfine and compare.py: both
sides).

    /usr/bin/python3 bench/gate_anchors.py --tool=bazel-bin/tools/profile_graph --trials=10

Needs torch and torchvision (Debian 12's /usr/bin/python3), hyperfine,
libbenchmark-dev and libbenchmark-tools (compare.py, with python3-scipy),
and g++ with Debian's LibTorch 1.13 headers. Writes only under --workdir (a
temporary directory by default, removed).
"""
import argparse
import collections
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gate_calibration as gc  # noqa: E402

COMPARE_PY = "/usr/share/benchmark/compare.py"
REPETITIONS = 10
HYPERFINE_RUNS = 20  # model runs inside each profiled process


def build_gbench(workdir):
    here = os.path.dirname(os.path.abspath(__file__))
    out = os.path.join(workdir, "model_gbench")
    subprocess.run(["g++", "-O2", "-std=c++17", os.path.join(here, "anchors", "model_gbench.cc"), "-o", out,
                    "-I/usr/include/torch/csrc/api/include", "-ltorch", "-ltorch_cpu", "-lc10", "-lbenchmark",
                    "-lpthread"], check=True)
    return out


def gate(tool, workdir, passes):
    start = time.monotonic()
    base = gc.baseline(tool, workdir, 30)
    result, _ = gc.check(tool, workdir, base, passes)
    return result["diff"]["total"]["verdict"], time.monotonic() - start


def hyperfine(tool, workdir, passes):
    # One process an invocation, as stop 68 timed it (--workers=0: a report
    # saved as JSON is of 5 processes by default).
    cmd = " ".join([tool] + gc.common(workdir) + ["--warmup=2", "--runs=%d" % HYPERFINE_RUNS, "--workers=0",
                                                  "--format=json", "--output=/dev/null"])
    out = os.path.join(workdir, "hyperfine.json")
    start = time.monotonic()
    subprocess.run(["hyperfine", "--style", "none", "--export-json", out, cmd,
                    cmd + (" --passes=" + passes if passes else "")],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.monotonic() - start
    with open(out) as f:
        results = json.load(f)["results"]
    b, c = results
    ratio = c["mean"] / b["mean"]
    # hyperfine's own "x +- y times faster" propagation of the two standard deviations.
    spread = ratio * ((b["stddev"] / b["mean"]) ** 2 + (c["stddev"] / c["mean"]) ** 2) ** 0.5
    call = "slower" if ratio - 1 > spread else "faster" if 1 - ratio > spread else "none"
    return call, wall, ratio


def compare_py(gbench, workdir, spin_us):
    outs = []
    start = time.monotonic()
    for k, spin in enumerate((0, spin_us)):
        out = os.path.join(workdir, "gbench%d.json" % k)
        subprocess.run([gbench, "--model=" + os.path.join(workdir, "m.pt"),
                        "--inputs=" + os.path.join(workdir, "x.pt"), "--spin_us=%d" % spin,
                        "--benchmark_repetitions=%d" % REPETITIONS, "--benchmark_out=" + out,
                        "--benchmark_out_format=json"], check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        outs.append(out)
    dump = os.path.join(workdir, "compare.json")
    subprocess.run(["/usr/bin/python3", COMPARE_PY, "-d", dump, "benchmarks"] + outs, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.monotonic() - start
    with open(dump) as f:
        rows = json.load(f)
    # The row carrying the U test, and the median aggregate's relative change.
    p = next(r["utest"]["time_pvalue"] for r in rows if r.get("utest", {}).get("time_pvalue") is not None)
    change = next(r["measurements"][0]["time"] for r in rows if r.get("aggregate_name") == "median")
    call = ("slower" if change > 0 else "faster") if p < 0.05 else "none"
    return call, wall, change


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tool", default="bazel-bin/tools/profile_graph")
    parser.add_argument("--trials", type=int, default=10, help="of each kind (A/A and slowed)")
    parser.add_argument("--effect", type=float, default=0.05, help="the slowdown, a share of the median run")
    parser.add_argument("--workdir", default="")
    args = parser.parse_args()
    tool = os.path.abspath(args.tool)
    with tempfile.TemporaryDirectory() as tmp:
        workdir = args.workdir or tmp
        gc.make_model(workdir, "resnet18")
        gbench = build_gbench(workdir)
        pilot = gc.median_run_us(gc.baseline(tool, workdir, 30))
        delay_us = max(1, round(args.effect * pilot))
        passes = "delay:%s:%d" % (gc.MODELS["resnet18"], delay_us)
        print("resnet18: median run %.0f us (pilot); the slowdown: %s (%.1f%%)" % (pilot, passes,
                                                                                 100 * delay_us / pilot))
        results = collections.defaultdict(list)  # (tool, kind) -> [(call, seconds)]
        for t in range(2 * args.trials):
            kind = "A/A" if t % 2 == 0 else "slowed"
            slowed = kind == "slowed"
            call, wall = gate(tool, workdir, passes if slowed else "")
            results[("gate", kind)].append((call, wall))
            call, wall, _ = hyperfine(tool, workdir, passes if slowed else "")
            results[("hyperfine", kind)].append((call, wall))
            call, wall, _ = compare_py(gbench, workdir, delay_us if slowed else 0)
            results[("compare.py", kind)].append((call, wall))
            print("trial %d (%s): %s" % (t + 1, kind, ", ".join(
                "%s %s" % (name, results[(name, kind)][-1][0]) for name in ("gate", "hyperfine", "compare.py"))),
                flush=True)
        print("| tool | kind | trials | calls | right | seconds to an answer (median) |")
        print("|---|---|---|---|---|---|")
        for name in ("gate", "hyperfine", "compare.py"):
            for kind in ("A/A", "slowed"):
                rows = results[(name, kind)]
                calls = collections.Counter(c for c, _ in rows)
                right = sum(1 for c, _ in rows if c == ("slower" if kind == "slowed" else "none") or
                            (name == "gate" and kind == "A/A" and c in ("same", "inconclusive")))
                print("| %s | %s | %d | %s | %d/%d | %.1f |" % (
                    name, kind, len(rows), ", ".join("%s %d" % kv for kv in sorted(calls.items())), right, len(rows),
                    statistics.median(w for _, w in rows)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
