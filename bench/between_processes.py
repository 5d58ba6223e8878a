#!/usr/bin/python3
"""The gate between processes, as CI makes its comparisons: each side is
another invocation of profile_graph. Profiles a torchvision model
(--model, mobilenet_v2 by default) followed by a matrix product whose size is an input (1x1: nothing; 256x256: about 5% of the
run at one thread) in N processes of each, alternating, then runs
`profile_graph check` on every A/A pair (a_i, a_j), i < j, and every pair
(a_i, b_j), and counts the run total's verdicts; then the same with several
processes a side: --trials random draws of two disjoint sets of N/2 a
processes (A/A) and of N/2 a and N/2 b processes, each set merged
(`profile_graph merge`) as --workers would make it.

    /usr/bin/python3 bench/between_processes.py --tool=bazel-bin/tools/profile_graph --processes=10

Needs torch and torchvision (Debian 12's /usr/bin/python3 has both). Writes
only under --workdir (a temporary directory by default, removed at the end).
"""
import argparse
import collections
import json
import os
import random
import subprocess
import sys
import tempfile


def make_model(workdir, size, name):
    import torch
    import torchvision

    class WithMatmul(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.net = getattr(torchvision.models, name)().eval()

        def forward(self, x, y):
            return self.net(x), (y @ y).sum()

    torch.manual_seed(0)
    torch.jit.script(WithMatmul().eval()).save(os.path.join(workdir, "m.pt"))
    x = torch.randn(1, 3, 224, 224)
    torch.save((x, torch.randn(1, 1)), os.path.join(workdir, "a.pt"))
    torch.save((x, torch.randn(size, size)), os.path.join(workdir, "b.pt"))


def profile(tool, workdir, side, i, runs):
    """One process's report (--workers=0: a report saved as JSON is of 5
    processes by default; here each invocation is one process)."""
    out = os.path.join(workdir, "%s%d.json" % (side, i))
    subprocess.run([tool, "--model=" + os.path.join(workdir, "m.pt"), "--inputs=" + os.path.join(workdir, side + ".pt"),
                    "--threads=1", "--runs=%d" % runs, "--workers=0", "--format=json", "--output=" + out],
                   check=True, stdout=subprocess.DEVNULL)
    return out


def added_cost(a, b):
    """The matrix product's median time in the b processes (its node, measured
    by the profiles themselves, not by the verdicts) as a share of the a
    processes' median run."""
    def median(values):
        values = sorted(values)
        return values[len(values) // 2]
    node_ns, run_ns = [], []
    for path in b:
        with open(path) as f:
            report = json.load(f)
        node_ns += [median(n["total_ns"]) for n in report["nodes"] if n["kind"] == "aten::matmul"]
    for path in a:
        with open(path) as f:
            run_ns.append(median(json.load(f)["run_ns"]))
    return median(node_ns), median(run_ns)


def merged(tool, reports, workdir, name):
    out = os.path.join(workdir, name + ".json")
    subprocess.run([tool, "merge"] + reports + ["--format=json", "--output=" + out], check=True,
                   stdout=subprocess.DEVNULL)
    return out


def check(tool, base, current, workdir):
    out = os.path.join(workdir, "check.json")
    subprocess.run([tool, "check", "--baseline=" + base, current, "--allow_input_change", "--format=json",
                    "--output=" + out], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    with open(out) as f:
        diff = json.load(f)["diff"]
    return diff["total"], diff.get("speed", {}), diff["noise_model"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tool", default="bazel-bin/tools/profile_graph")
    parser.add_argument("--model", default="mobilenet_v2", help="a torchvision.models constructor")
    parser.add_argument("--processes", type=int, default=10)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--size", type=int, default=256, help="the matrix product's side on the slow side")
    parser.add_argument("--trials", type=int, default=20, help="draws of merged sides")
    parser.add_argument("--workdir", default="")
    args = parser.parse_args()
    tool = os.path.abspath(args.tool)
    with tempfile.TemporaryDirectory() as tmp:
        workdir = args.workdir or tmp
        make_model(workdir, args.size, args.model)
        a, b = [], []
        for i in range(args.processes):
            a.append(profile(tool, workdir, "a", i, args.runs))
            b.append(profile(tool, workdir, "b", i, args.runs))
        node_ns, run_ns = added_cost(a, b)
        print("the added cost: %.2f ms in the b processes (the node's median), %.1f%% of the a processes' median "
              "run (%.1f ms)" % (node_ns / 1e6, 100 * node_ns / run_ns, run_ns / 1e6))
        rng = random.Random(1)
        half = len(a) // 2
        merged_aa, merged_ab = [], []
        for t in range(args.trials):
            order = rng.sample(a, len(a))
            merged_aa.append((merged(tool, order[:half], workdir, "aa%d_base" % t),
                              merged(tool, order[half:2 * half], workdir, "aa%d_current" % t)))
            merged_ab.append((merged(tool, rng.sample(a, half), workdir, "ab%d_base" % t),
                              merged(tool, rng.sample(b, half), workdir, "ab%d_current" % t)))
        for name, pairs in (("A/A", [(a[i], a[j]) for i in range(len(a)) for j in range(i + 1, len(a))]),
                            ("+matmul", [(x, y) for x in a for y in b]),
                            ("A/A, %d processes a side" % half, merged_aa),
                            ("+matmul, %d processes a side" % half, merged_ab)):
            verdicts = collections.Counter()
            changes = []
            model = ""
            for base, current in pairs:
                total, speed, model = check(tool, base, current, workdir)
                verdicts[total["verdict"]] += 1
                changes.append(total["change"])
            changes.sort()
            print("%s, %d pairs (%s): %s; change at equal speed: median %+.1f%%, range %+.1f%% .. %+.1f%%" % (
                name, len(pairs), model, ", ".join("%s %d" % kv for kv in sorted(verdicts.items())),
                100 * changes[len(changes) // 2], 100 * changes[0], 100 * changes[-1]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
