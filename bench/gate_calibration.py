#!/usr/bin/python3
"""The gate's calibration as CI makes its comparisons (issue 55, item 4):
each trial is a baseline made by one invocation of profile_graph and a
`profile_graph check --runs=auto` by another, defaults otherwise; half the
trials A/A, half with a known slowdown injected by the delay pass
(--passes=delay:MODULE:US, docs/statistics.md "A known effect"), sized to
--effect of the model's median run time measured first. Counts the run
total's verdicts (false calls in the A/As, power on the slowdowns), false
node and module calls (rows called slower or faster in an A/A), and the time
each check took (its own `seconds` and the process's wall time).

    /usr/bin/python3 bench/gate_calibration.py --tool=bazel-bin/tools/profile_graph --model=resnet18 --trials=200

Models: torchvision's resnet18 (1x3x224x224; the delay after layer3) and a
transformer (nn.TransformerEncoder, 2 layers, d_model 256, 8 heads, 1x128
tokens; the delay after layers.1), scripted. Trials alternate A/A and
slowed. Needs torch and torchvision (Debian 12's /usr/bin/python3). Writes
only under --workdir (a temporary directory by default, removed).
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

MODELS = {"resnet18": "layer3", "transformer": "layers.1"}


def make_model(workdir, name):
    import torch
    torch.manual_seed(0)
    if name == "resnet18":
        import torchvision
        module, x = torchvision.models.resnet18().eval(), torch.randn(1, 3, 224, 224)
    else:
        layer = torch.nn.TransformerEncoderLayer(d_model=256, nhead=8, dim_feedforward=1024, batch_first=True)
        module, x = torch.nn.TransformerEncoder(layer, num_layers=2).eval(), torch.randn(1, 128, 256)
    torch.jit.script(module).save(os.path.join(workdir, "m.pt"))
    torch.save(x, os.path.join(workdir, "x.pt"))


def common(workdir):
    return ["--model=" + os.path.join(workdir, "m.pt"), "--inputs=" + os.path.join(workdir, "x.pt"), "--threads=1"]


def baseline(tool, workdir, runs, flags=()):
    out = os.path.join(workdir, "base.json")
    subprocess.run([tool] + common(workdir) + ["--runs=%d" % runs, "--format=json", "--output=" + out] + list(flags),
                   check=True, stdout=subprocess.DEVNULL)
    return out


def median_run_us(path):
    with open(path) as f:
        return statistics.median(json.load(f)["run_ns"]) / 1e3


def check(tool, workdir, base, passes):
    out = os.path.join(workdir, "check.json")
    extra = ["--passes=" + passes, "--allow_graph_change"] if passes else []
    start = time.monotonic()
    p = subprocess.run([tool, "check", "--baseline=" + base] + common(workdir) +
                       ["--runs=auto", "--format=json", "--output=" + out] + extra,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.monotonic() - start
    if p.returncode not in (0, 4, 5):
        raise SystemExit("check failed (exit %d): %s" % (p.returncode, p.stderr.strip()))
    with open(out) as f:
        result = json.load(f)
    os.remove(out)
    return result, wall


def called_rows(diff):
    """(table, name, change, q, base and current medians in us) of each node
    or module row called slower or faster."""
    out = []
    for table in ("nodes", "modules"):
        rows = diff.get(table, [])
        for row in rows if isinstance(rows, list) else []:
            if row.get("verdict") in ("slower", "faster"):
                out.append((table, row.get("name") or row.get("module") or row.get("path") or "?", row.get("change"),
                            row.get("q"), row.get("base_median_us"), row.get("current_median_us")))
    return out


def row_calls(diff):
    """Node and module rows called slower or faster (an A/A has no new or
    removed rows: every such call is false)."""
    calls = 0
    for table in ("nodes", "modules"):
        rows = diff.get(table, [])
        calls += sum(1 for row in rows if isinstance(rows, list) and row.get("verdict") in ("slower", "faster"))
    return calls


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tool", default="bazel-bin/tools/profile_graph")
    parser.add_argument("--model", default="resnet18", choices=sorted(MODELS))
    parser.add_argument("--trials", type=int, default=200, help="of each kind (A/A and slowed)")
    parser.add_argument("--effect", type=float, default=0.05, help="the slowdown, a share of the median run")
    parser.add_argument("--runs", type=int, default=30, help="the baseline's timed runs")
    parser.add_argument("--workdir", default="")
    parser.add_argument("--baseline_flags", default="",
                        help="more flags for the baseline's command (e.g. '--workers=10'), space-separated")
    parser.add_argument("--aa_only", action="store_true", help="A/A trials only (false calls, no power)")
    parser.add_argument("--show_rows", action="store_true",
                        help="print each row an A/A called, with its change, q and both sides' medians")
    args = parser.parse_args()
    tool = os.path.abspath(args.tool)
    with tempfile.TemporaryDirectory() as tmp:
        workdir = args.workdir or tmp
        make_model(workdir, args.model)
        pilot = median_run_us(baseline(tool, workdir, args.runs, args.baseline_flags.split()))
        delay_us = max(1, round(args.effect * pilot))
        passes = "delay:%s:%d" % (MODELS[args.model], delay_us)
        print("%s: median run %.0f us (pilot); the slowdown: %s (%.1f%%)" % (args.model, pilot, passes,
                                                                             100 * delay_us / pilot))
        results = {"A/A": [], "slowed": []}
        for t in range(2 * args.trials):
            kind = "A/A" if t % 2 == 0 else "slowed"
            if args.aa_only and kind != "A/A":
                continue
            start = time.monotonic()
            base = baseline(tool, workdir, args.runs, args.baseline_flags.split())
            base_wall = time.monotonic() - start
            result, wall = check(tool, workdir, base, passes if kind == "slowed" else "")
            results[kind].append((result, wall, base_wall))
            if args.show_rows and kind == "A/A":
                for table, name, change, q, bm, cm in called_rows(result["diff"]):
                    print("    A/A trial %d: %s row %s called, change %s, q %s, medians %s -> %s us (processes %s, %s)"
                          % (t // 2, table, name, change, q, bm, cm, result["diff"].get("base_processes"),
                             result["diff"].get("current_processes")), flush=True)
        for kind, rows in results.items():
            if not rows:
                continue
            verdicts = collections.Counter(r["diff"]["total"]["verdict"] for r, _, _ in rows)
            seconds = sorted(r["seconds"] for r, _, _ in rows)
            walls = sorted(w for _, w, _ in rows)
            looks = sorted(r["looks"] for r, _, _ in rows)
            processes = sorted(r["processes"] for r, _, _ in rows)
            base_walls = sorted(b for _, _, b in rows)
            reasons = collections.Counter(r["stop_reason"].split(" (")[0] for r, _, _ in rows)
            false_rows = sum(row_calls(r["diff"]) for r, _, _ in rows) if kind == "A/A" else 0
            false_trials = sum(1 for r, _, _ in rows if row_calls(r["diff"]) > 0) if kind == "A/A" else 0
            print("%s, %d trials: total %s; looks median %d (max %d); check seconds median %.1f (p90 %.1f), "
                  "process wall median %.1f s%s" % (
                      kind, len(rows), ", ".join("%s %d" % kv for kv in sorted(verdicts.items())),
                      looks[len(looks) // 2], looks[-1], seconds[len(seconds) // 2],
                      seconds[min(len(seconds) - 1, int(0.9 * len(seconds)))], walls[len(walls) // 2],
                      "; node/module rows called: %d, in %d trials" % (false_rows, false_trials)
                      if kind == "A/A" else ""))
            print("    current processes median %d (max %d); the baseline's invocation: median %.1f s" % (
                processes[len(processes) // 2], processes[-1], base_walls[len(base_walls) // 2]))
            print("    stopped: " + "; ".join("%s: %d" % kv for kv in reasons.most_common()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
