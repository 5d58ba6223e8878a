#!/usr/bin/python3
"""Straggler calls among the ranks of one program, on real processes
(issue 59; docs/distributed.md, "What a straggler verdict means").

Each trial starts --ranks profile_graph processes as torchrun would (RANK,
WORLD_SIZE, MASTER_ADDR, MASTER_PORT), all with the same flags, on a model
scripted from Python (torchvision's resnet18, or a transformer encoder);
half the trials are A/As (ranks running the same code), half inject a known
straggler: --passes=delay:MODULE:US@RANK busy-waits US microseconds after
MODULE on the last rank only (the same graph on every rank). Counts the
trials in which any node row (and, in a second rendering of the same merged
report, any module row) names a straggler, and where.

    /usr/bin/python3 bench/rank_stragglers.py --tool=bazel-bin/tools/profile_graph --model=resnet18 --ranks=2 --trials=20

Needs torch and torchvision (Debian 12's /usr/bin/python3). Writes only under
--workdir (a temporary directory by default, removed).
"""
import argparse
import csv
import io
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time

# The models and where the delay goes: gate_calibration.py's (it saves m.pt, x.pt).
from gate_calibration import MODELS, make_model as save_model


def make_model(workdir, name):
    save_model(workdir, name)
    return os.path.join(workdir, "m.pt"), os.path.join(workdir, "x.pt")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_ranks(args, flags, output):
    port = free_port()
    procs = []
    for r in range(args.ranks):
        env = dict(os.environ, RANK=str(r), WORLD_SIZE=str(args.ranks), MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
        procs.append(subprocess.Popen([args.tool] + flags + ["--format=json", "--output=" + output], env=env,
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE))
    for r, p in enumerate(procs):
        out, err = p.communicate(timeout=600)
        if p.returncode != 0:
            sys.exit("rank %d failed (%d): %s" % (r, p.returncode, err.decode()))


def stragglers(args, report, group_by):
    out = subprocess.run([args.tool, "merge", report, "--format=csv", "--top=0", "--group_by=" + group_by],
                         check=True, capture_output=True, text=True).stdout
    rows = list(csv.DictReader(io.StringIO(out)))
    return [(row.get("name", ""), row["straggler_report"], row["straggler_excess"]) for row in rows
            if row.get("straggler_report")]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tool", required=True)
    parser.add_argument("--model", choices=sorted(MODELS), default="resnet18")
    parser.add_argument("--ranks", type=int, default=2)
    parser.add_argument("--trials", type=int, default=20)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--delay_us", type=int, default=2000)
    parser.add_argument("--workdir")
    args = parser.parse_args()
    args.tool = os.path.abspath(args.tool)
    workdir = args.workdir or tempfile.mkdtemp(prefix="rank-stragglers-")
    try:
        model, inputs = make_model(workdir, args.model)
        base = ["--model=" + model, "--inputs=" + inputs, "--runs=%d" % args.runs]
        counts = {"aa": [0, 0, 0], "slow": [0, 0, 0, 0]}  # trials; node rows called; module rows; slow: on its node
        start = time.time()
        for trial in range(args.trials):
            slow = trial % 2 == 1
            flags = base + (["--passes=delay:%s:%d@%d" % (MODELS[args.model], args.delay_us, args.ranks - 1)]
                            if slow else [])
            report = os.path.join(workdir, "r%d.json" % trial)
            run_ranks(args, flags, report)
            nodes, modules = stragglers(args, report, "node"), stragglers(args, report, "module")
            kind = "slow" if slow else "aa"
            counts[kind][0] += 1
            if slow:
                on_delay = [n for n in nodes if "delay_on_rank" in n[0] and n[1] == "rank %d" % (args.ranks - 1)]
                counts[kind][3] += 1 if on_delay else 0
                others = [n for n in nodes if n not in on_delay]
                counts[kind][1] += 1 if others else 0
            else:
                counts[kind][1] += 1 if nodes else 0
                counts[kind][2] += 1 if modules else 0
            print("trial %d %s: node stragglers %s; module stragglers %s" % (trial, kind, nodes, modules), flush=True)
            os.remove(report)
        aa, sl = counts["aa"], counts["slow"]
        print("\n%s, %d ranks, %d runs, %.0f s: A/A %d trials, a node straggler in %d, a module straggler in %d; "
              "slow rank (%d us after %s) %d trials, called on its delay node in %d, on another node in %d"
              % (args.model, args.ranks, args.runs, time.time() - start, aa[0], aa[1], aa[2], args.delay_us,
                 MODELS[args.model], sl[0], sl[3], sl[1]))
    finally:
        if not args.workdir:
            shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
