#!/usr/bin/python3
"""A/A false-positive rates of graphprof's verdicts on real torchvision models.

    ./bazelw build -c opt //tools:profile_graph
    /usr/bin/python3 bench/aa_false_positives.py [--repeats N] [--workers K] [--ab-copies C] [--only-inprocess] \
        > bench/results/aa_false_positives.txt

For scripted torchvision resnet18 and mobilenet_v2 (random weights, batch 1,
224x224, one thread), it runs:

  * in one process: `profile_graph --ab=none` (the module against itself, A's
    and B's runs interleaved, each side on --ab_copies copies of the module)
    N times;
  * between processes: pairs of `--workers=K` profiles, diffed with
    `profile_graph check --baseline=a.json b.json` (whose JSON holds the diff),
    N times; and the same pairs with one worker each (`--workers=0`), to show
    what a single-process comparison calls between processes;

With --export (PyTorch 2.x: run it in the Debian 13 root, with
GRAPHPROF_TOOL the LibTorch 2.6 build's profile_graph),
the models are torch.export programs saved by graphprof.save_export (.pt2)
and profiled on their own reference inputs:

    tools/torch2_root.sh -- env GRAPHPROF_TOOL=build-26/tools/profile_graph \
        python3 bench/aa_false_positives.py --export --only-inprocess

and counts, per comparison, the node, module and kind rows called `faster`
or `slower`, and the run total's verdict. Nothing changed between the two
sides, so every such call is a false positive: the share of rows called
should stay at or below alpha (0.05), and the run total should never be
faster or slower.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# GRAPHPROF_TOOL: a copy of the binary, so that a build meanwhile cannot
# replace it under the benchmark.
TOOL = os.environ.get("GRAPHPROF_TOOL", os.path.join(ROOT, "bazel-bin", "tools", "profile_graph"))


def make_models(out, export):
    save = ("save_export(torch.export.export(m, (x,)), f'{out}/{name}.pt2', x)" if export else
            "torch.jit.script(m).save(f'{out}/{name}.pt'); torch.save((x,), f'{out}/{name}.inputs.pt')")
    code = f"""
import torch, torchvision
{f'import sys; sys.path.insert(0, "{ROOT}/python/graphprof"); from _export import save_export' if export else ''}
torch.manual_seed(0)
torch.set_num_threads(1)
out = "{out}"
for name in ["resnet18", "mobilenet_v2"]:
    m = getattr(torchvision.models, name)().eval()
    x = torch.randn(1, 3, 224, 224)
    {save}
"""
    # The Python of the root under --export (torch.export is PyTorch 2.x's).
    python = sys.executable if export else "/usr/bin/python3"
    subprocess.run([python, "-c", code], check=True, env=dict(os.environ, OMP_NUM_THREADS="1"),
                   stderr=subprocess.DEVNULL)


def run(args):
    r = subprocess.run([TOOL] + args, capture_output=True, text=True)
    if r.returncode not in (0, 4):
        sys.exit(f"profile_graph {' '.join(args)} failed ({r.returncode}): {r.stderr.strip()}")
    return r


def calls(diff):
    """(rows called, rows) per table, and the total's verdict."""
    out = {}
    for table in ("nodes", "modules", "kinds"):
        counts = diff["verdict_counts"][table]
        out[table] = (counts["faster"] + counts["slower"], sum(counts.values()))
    return out, diff["total"]["verdict"]


def summarize(label, results):
    lines = [f"{label}: {len(results)} comparisons"]
    for table in ("nodes", "modules", "kinds"):
        called = sum(r[0][table][0] for r in results)
        rows = sum(r[0][table][1] for r in results)
        worst = max(r[0][table][0] / max(1, r[0][table][1]) for r in results)
        lines.append(f"  {table:8s} {called:5d} of {rows:6d} rows called faster/slower: rate {called / max(1, rows):.4f}"
                     f" (worst comparison {worst:.4f})")
    totals = [r[1] for r in results]
    lines.append("  run total verdicts: " + ", ".join(f"{v} {totals.count(v)}" for v in
                                                      ("faster", "slower", "same", "inconclusive") if totals.count(v)))
    return "\n".join(lines)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--repeats", type=int, default=10)
    p.add_argument("--workers", type=int, default=3)
    p.add_argument("--runs", type=int, default=10)
    p.add_argument("--models", default="resnet18,mobilenet_v2")
    p.add_argument("--ab-copies", type=int, default=None, help="--ab_copies (default: the tool's)")
    p.add_argument("--only-inprocess", action="store_true", help="only the --ab=none comparisons")
    p.add_argument("--export", action="store_true",
                   help="torch.export programs (.pt2, graphprof.save_export) instead of scripted modules")
    p.add_argument("--no-single", action="store_true",
                   help="skip the single-process profiles compared between processes")
    a = p.parse_args()
    if not os.path.exists(TOOL):
        sys.exit(f"{TOOL} is missing: ./bazelw build -c opt //tools:profile_graph")
    with tempfile.TemporaryDirectory() as d:
        make_models(d, a.export)
        copies = [] if a.ab_copies is None else [f"--ab_copies={a.ab_copies}"]
        print(f"graphprof A/A false positives{' (torch.export programs)' if a.export else ''}: --runs={a.runs}, alpha 0.05, min_effect 0.02, {a.repeats} repeats"
              + (f", --ab_copies={a.ab_copies}" if copies else ""))
        load = os.getloadavg()[0]
        print(f"load average at the start: {load:.2f}")
        for model in a.models.split(","):
            files = ["--model", f"{d}/{model}.pt2"] if a.export else [
                "--model", f"{d}/{model}.pt", "--inputs", f"{d}/{model}.inputs.pt"]
            base = files + [f"--runs={a.runs}", "--warmup=3", "--noverify"]
            inprocess = []
            for _ in range(a.repeats):
                r = run(base + ["--ab=none", "--format=json"] + copies)
                inprocess.append(calls(json.loads(r.stdout)["diff"]))
            print(summarize(f"{model}, one process, --ab=none (interleaved)", inprocess))
            if a.only_inprocess:
                sys.stdout.flush()
                continue
            for workers in (a.workers,) if a.no_single else (a.workers, 0):
                between = []
                for i in range(a.repeats):
                    paths = []
                    for side in ("a", "b"):
                        path = f"{d}/{model}-{workers}-{i}-{side}.json"
                        run(base + [f"--workers={workers}", "--format=json", f"--output={path}"])
                        paths.append(path)
                    r = run(["check", f"--baseline={paths[0]}", paths[1], "--format=json", "--fail_on=total"])
                    between.append(calls(json.loads(r.stdout)["diff"]))
                label = (f"{model}, two --workers={workers} profiles (processes the unit)" if workers else
                         f"{model}, two single-process profiles (only within-process noise modelled)")
                print(summarize(label, between))
            sys.stdout.flush()


if __name__ == "__main__":
    main()
