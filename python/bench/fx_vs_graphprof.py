"""torch.fx's ProfilingInterpreter (the fx profiling tutorial) vs graphprof,
side by side on the same resnet18 (eval, batch 1, one intra-op thread, no
grad), in one process, candidates interleaved.

    ./bazelw build -c opt //python:graphprof      # -c opt as the C++ benchmarks
    PYTHONPATH=bazel-bin/python /usr/bin/python3 python/bench/fx_vs_graphprof.py [--rounds N]

Prints each profiler's table (top rows) and every candidate's run time with
its ratio to the plain model run it instruments:

    fx ProfilingInterpreter run    / eager module(x)
    graphprof.profile timed run    / scripted module(x)   (the run time the report holds)
    graphprof.Interpreter(...).run / scripted module(x)   (C++ interpreter, no override)
    graphprof.Interpreter with a Python run_node timer    (the fx recipe over graphprof's graph)

then the same on a chain of 1000 small adds (fx's trace of it, scripted, for
graphprof), where the cost per node shows, and, unless --no-import-time, the
time `import graphprof` adds to `import torch`.
"""

import argparse
import os
import statistics
import subprocess
import sys
import time
import warnings
from typing import Any, Dict, List

import torch
import torch.fx
import torchvision

import graphprof


# --- The fx tutorial's ProfilingInterpreter ---------------------------------
# ("Building a Simple CPU Performance Profiler with FX"), written from its
# description: time every node's run_node and the whole run. The tutorial
# uses time.time() and tabulate; here time.perf_counter() (the interval
# clock, same cost) and a small formatter (tabulate is not a Debian default).
class ProfilingInterpreter(torch.fx.Interpreter):
    def __init__(self, mod: torch.nn.Module):
        gm = torch.fx.symbolic_trace(mod)
        super().__init__(gm)
        self.total_runtime_sec: List[float] = []
        self.runtimes_sec: Dict[torch.fx.Node, List[float]] = {}

    def run(self, *args) -> Any:
        t_start = time.perf_counter()
        return_val = super().run(*args)
        t_end = time.perf_counter()
        self.total_runtime_sec.append(t_end - t_start)
        return return_val

    def run_node(self, n: torch.fx.Node) -> Any:
        t_start = time.perf_counter()
        return_val = super().run_node(n)
        t_end = time.perf_counter()
        self.runtimes_sec.setdefault(n, [])
        self.runtimes_sec[n].append(t_end - t_start)
        return return_val

    def summary(self, should_sort: bool = False, top: int = 0) -> str:
        node_summaries: List[List[Any]] = []
        mean_total_runtime = statistics.mean(self.total_runtime_sec)
        for node, runtimes in self.runtimes_sec.items():
            mean_runtime = statistics.mean(runtimes)
            pct_total = mean_runtime / mean_total_runtime * 100
            node_summaries.append([node.op, str(node), mean_runtime, pct_total])
        if should_sort:
            node_summaries.sort(key=lambda s: s[2], reverse=True)
        if top:
            node_summaries = node_summaries[:top]
        headers = ["Op type", "Op", "Average runtime (s)", "Pct total runtime"]
        return _tabulate(node_summaries, headers)


def _tabulate(rows, headers):
    cells = [[str(h) for h in headers]] + [
        ["%.6f" % c if isinstance(c, float) and c < 1 else ("%.2f" % c if isinstance(c, float) else str(c))
         for c in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(cells[0], widths)),
             "  ".join("-" * w for w in widths)]
    lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths)) for r in cells[1:]]
    return "\n".join(lines)


# --- graphprof.Interpreter with the same per-node timer, in Python ----------
class TimedGraphprofInterpreter(graphprof.Interpreter):
    def __init__(self, module):
        super().__init__(module)
        self.runtimes_sec: Dict[int, List[float]] = {}

    def run_node(self, node):
        t_start = time.perf_counter()
        super().run_node(node)
        self.runtimes_sec.setdefault(node.id, []).append(time.perf_counter() - t_start)


def _timed(fn, *args):
    t = time.perf_counter()
    fn(*args)
    return time.perf_counter() - t


def _import_time(repeats=5):
    """Median seconds of `import torch` and of `import torch, graphprof`, each in a fresh process."""
    def once(code):
        out = subprocess.run([sys.executable, "-c", "import time; t = time.perf_counter(); " + code +
                              "; print(time.perf_counter() - t)"], capture_output=True, text=True, check=True,
                             env=dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p)))
        return float(out.stdout.strip().splitlines()[-1])

    torch_only = [once("import torch") for _ in range(repeats)]
    both = [once("import torch, graphprof") for _ in range(repeats)]
    after_torch = [once("import torch; t = time.perf_counter(); import graphprof") for _ in range(repeats)]
    return statistics.median(torch_only), statistics.median(both), statistics.median(after_torch)


class Chain(torch.nn.Module):
    """1000 small adds: where per-node costs show (resnet18's convolutions hide them)."""

    def forward(self, x):
        for _ in range(1000):
            x = x + 1
        return x


CANDIDATES = ("eager", "fx", "script", "graphprof", "gp_interp", "gp_timed")
ROWS = [
    ("eager module(x)", "eager", None),
    ("fx ProfilingInterpreter run", "fx", "eager"),
    ("scripted module(x)", "script", None),
    ("graphprof.profile timed run", "graphprof", "script"),
    ("graphprof.Interpreter run (C++)", "gp_interp", "script"),
    ("graphprof.Interpreter + Python run_node timer", "gp_timed", "script"),
]


def measure(eager, scripted, x, rounds, k):
    """Interleaved rounds of every candidate; returns (median seconds, median
    ratios to the plain run, the fx interpreter)."""
    fx_interp = ProfilingInterpreter(eager)
    gp_interp = graphprof.Interpreter(scripted)
    gp_timed = TimedGraphprofInterpreter(scripted)
    assert torch.equal(fx_interp.run(x), eager(x))
    assert torch.equal(gp_interp.run(x), scripted(x))
    for _ in range(3):  # warm-up of every candidate
        eager(x), scripted(x), fx_interp.run(x), gp_interp.run(x), gp_timed.run(x)
    fx_interp.total_runtime_sec.clear()
    fx_interp.runtimes_sec.clear()

    times = {name: [] for name in CANDIDATES}
    # Per round, each candidate's median over its runs relative to its plain
    # run's median in the same round, so that drift of a shared machine
    # cancels out; the median over rounds is reported.
    ratios = {name: [] for _, name, plain in ROWS if plain}
    for _ in range(rounds):
        this = {
            "eager": [_timed(eager, x) for _ in range(k)],
            "fx": [_timed(fx_interp.run, x) for _ in range(k)],
            "script": [_timed(scripted, x) for _ in range(k)],
            "graphprof": [ns / 1e9 for ns in graphprof.profile(scripted, x, runs=k, warmup=1, verify=False).run_ns],
        }
        # profile() also serialized the module (model size) and freed it:
        # one untimed run puts the allocator back where the others find it.
        gp_interp.run(x)
        this["gp_interp"] = [_timed(gp_interp.run, x) for _ in range(k)]
        this["gp_timed"] = [_timed(gp_timed.run, x) for _ in range(k)]
        for name, values in this.items():
            times[name] += values
        m = {name: statistics.median(v) for name, v in this.items()}
        for _, name, plain in ROWS:
            if plain:
                ratios[name].append(m[name] / m[plain])
    med = {name: statistics.median(v) for name, v in times.items()}
    ratio = {name: statistics.median(v) for name, v in ratios.items()}
    return med, ratio, fx_interp


def print_times(title, med, ratio, nodes=None):
    print(title)
    print("  %-46s %9s   %s" % ("", "median", "x its plain run (median over rounds)" +
                                ("; added per node" if nodes else "")))
    for label, name, plain in ROWS:
        line = "  %-46s %6.2f ms" % (label, med[name] * 1e3)
        if plain:
            line += "   x%.3f" % ratio[name]
            if nodes:
                line += "   %+.2f us" % ((med[name] - med[plain]) * 1e6 / nodes[name])
        print(line)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=30, help="interleaved rounds (default 30)")
    parser.add_argument("--per-round", type=int, default=2, help="runs of each candidate per round (default 2)")
    parser.add_argument("--top", type=int, default=8, help="table rows shown (default 8)")
    parser.add_argument("--chain-per-round", type=int, default=10,
                        help="runs of each candidate per round on the 1000-add chain (default 10)")
    parser.add_argument("--no-chain", action="store_true", help="skip the 1000-add chain")
    parser.add_argument("--no-import-time", action="store_true")
    args = parser.parse_args()

    torch.set_num_threads(1)
    torch.manual_seed(0)
    model = torchvision.models.resnet18().eval()
    scripted = torch.jit.script(model)
    x = torch.randn(1, 3, 224, 224)
    k = args.per_round

    with torch.no_grad():
        med, ratio, fx_interp = measure(model, scripted, x, args.rounds, k)
        # The table: one report of as many runs as the rounds made.
        report = graphprof.profile(scripted, x, runs=args.rounds * k, warmup=1)

    fx_nodes = len(fx_interp.runtimes_sec)
    fx_cover = sum(statistics.mean(v) for v in fx_interp.runtimes_sec.values()) / statistics.mean(
        fx_interp.total_runtime_sec)

    print("== torch.fx ProfilingInterpreter (fx tutorial), resnet18, %d runs ==" % len(fx_interp.total_runtime_sec))
    print(fx_interp.summary(should_sort=True, top=args.top))
    print("(%d fx nodes; node times add up to %.1f%% of the run)" % (fx_nodes, 100 * fx_cover))
    print()
    print("== graphprof.profile, the same resnet18 scripted, %d runs ==" % report.runs)
    print(report.summary())
    print(report.table("node", top=args.top))
    print(report.table("kind", top=args.top))
    print()
    print_times("== resnet18 run time, %d interleaved rounds of %d runs each, 1 thread, no grad ==" % (args.rounds, k),
                med, ratio)
    line = "ratio_vs_plain resnet18: fx=%.4f graphprof=%.4f graphprof_interpreter=%.4f graphprof_python_run_node=%.4f" % (
        ratio["fx"], ratio["graphprof"], ratio["gp_interp"], ratio["gp_timed"])

    if not args.no_chain:
        # The same 1000-node graph for both: fx's trace of the chain, scripted.
        chain = torch.fx.symbolic_trace(Chain())
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # TorchScript's note about GraphModule attributes
            chain_scripted = torch.jit.script(chain)
        y = torch.zeros(1)
        with torch.no_grad():
            cmed, cratio, _ = measure(chain, chain_scripted, y, args.rounds, args.chain_per_round)
        per_run = graphprof.profile(chain_scripted, y, runs=1, warmup=0).nodes
        gp_nodes = sum(n["calls"][0] for n in per_run if n["depth"] == 0)
        fx_count = len(chain.graph.nodes)
        nodes = {"fx": fx_count, "graphprof": gp_nodes, "gp_interp": gp_nodes, "gp_timed": gp_nodes}
        print()
        print_times("== 1000 x (x + 1) on a 1-element tensor (fx: %d nodes, graphprof: %d), %d rounds of %d ==" % (
            fx_count, gp_nodes, args.rounds, args.chain_per_round), cmed, cratio, nodes)
        line += "\nratio_vs_plain chain1000: fx=%.4f graphprof=%.4f graphprof_interpreter=%.4f " \
                "graphprof_python_run_node=%.4f" % (cratio["fx"], cratio["graphprof"], cratio["gp_interp"],
                                                     cratio["gp_timed"])
    print()
    print(line)

    if not args.no_import_time:
        torch_s, both_s, after_s = _import_time()
        print()
        print("import time (median of 5 fresh processes): import torch %.0f ms; import torch, graphprof %.0f ms; "
              "import graphprof after torch %.0f ms" % (torch_s * 1e3, both_s * 1e3, after_s * 1e3))


if __name__ == "__main__":
    main()
