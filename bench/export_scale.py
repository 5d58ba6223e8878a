#!/usr/bin/python3
"""Opening large torch.export programs: profile_graph on a chain of N adds
(x = x + 1, unrolled by torch.export into N aten::add nodes) exported by
PyTorch 2.x and saved by graphprof.save_export, against the same chain as
TorchScript (torch.jit.trace: N aten::add nodes too), each as a user runs it.

    tools/torch2_root.sh -- env GRAPHPROF_TOOL=build-26/tools/profile_graph \\
        python3 bench/export_scale.py [--sizes 1000,10000] [--repeats 3] > bench/results/export_scale.txt

Per size and format, the median over --repeats invocations of the whole
process (`--runs=1 --warmup=0`: loading, planning, the inspection run, one
timed run, the report) and its peak RSS; then the ratio .pt2 / TorchScript.
The goal: a program opens about as fast as the TorchScript of the same
graph. PyTorch's own export and save times are printed for scale (not ours).
"""
import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

import torch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python", "graphprof"))
from _export import save_export  # noqa: E402
from export_pairs import Chain  # noqa: E402  (bench/, this script's folder)


def run(tool, args):
    """Wall seconds and peak RSS (KiB) of one profile_graph process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    start = time.monotonic()
    r = subprocess.run([tool] + args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.monotonic() - start
    if r.returncode != 0:
        raise SystemExit(f"{tool} {' '.join(args)} failed ({r.returncode}): {r.stderr.strip()[-300:]}")
    # ru_maxrss of the children is the largest so far: a later, smaller child
    # leaves it as it was, so each size runs its larger format first.
    return wall, max(before, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="1000,10000")
    parser.add_argument("--repeats", type=int, default=3)
    a = parser.parse_args()
    tool = os.environ.get("GRAPHPROF_TOOL", os.path.join(ROOT, "build-26", "tools", "profile_graph"))
    torch.set_num_threads(1)
    print(f"export_scale: PyTorch {torch.__version__}, {tool}, {a.repeats} invocations each, medians")
    with tempfile.TemporaryDirectory() as d:
        for n in [int(s) for s in a.sizes.split(",")]:
            x = torch.randn(1, 8)
            start = time.monotonic()
            ep = torch.export.export(Chain(n), (x,))
            exported = time.monotonic() - start
            pt2 = os.path.join(d, f"chain{n}.pt2")
            start = time.monotonic()
            save_export(ep, pt2, x)
            saved = time.monotonic() - start
            ts = os.path.join(d, f"chain{n}.pt")
            inputs = os.path.join(d, f"chain{n}.inputs.pt")
            torch.jit.trace(Chain(n), (x,), check_trace=False).save(ts)
            torch.save((x,), inputs)
            nodes = sum(1 for node in ep.graph.nodes if node.op == "call_function")
            print(f"N={n}: {nodes} operator nodes; PyTorch's torch.export.export {exported:.1f} s, "
                  f"save_export {saved:.1f} s")
            common = ["--runs=1", "--warmup=0", "--format=json", "--output=" + os.path.join(d, "out.json")]
            walls = {"pt2": [], "ts": []}
            rss = {}
            for _ in range(a.repeats):  # alternated
                for fmt, args in (("pt2", ["--model=" + pt2]), ("ts", ["--model=" + ts, "--inputs=" + inputs])):
                    wall, peak = run(tool, args + common)
                    walls[fmt].append(wall)
                    rss[fmt] = peak
            for fmt, name in (("pt2", ".pt2 (torch.export)"), ("ts", ".pt (TorchScript trace)")):
                print(f"  {name:24s} whole process {statistics.median(walls[fmt]):6.2f} s "
                      f"(runs {', '.join(f'{w:.2f}' for w in walls[fmt])}), peak RSS so far {rss[fmt] // 1024} MiB")
            print(f"  .pt2 / TorchScript: {statistics.median(walls['pt2']) / statistics.median(walls['ts']):.2f}x")


if __name__ == "__main__":
    main()
