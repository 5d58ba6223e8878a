"""AOTInductor packages of torchvision models, profiled per kernel
(docs/compiled.md): what bench/compiled_packages.sh runs.

  python3 compiled_packages.py make DIR MODEL...        (PyTorch 2.6+: the Debian 13 root)
      DIR/MODEL.aoti.pt2 by graphprof.compile_aoti and DIR/MODEL.pt2 by
      graphprof.save_export, from torchvision's MODEL (random weights, seed 0)
      on one 1x3x224x224 input
  python3 compiled_packages.py summarize DIR MODEL...
      from DIR/MODEL.aoti.json and DIR/MODEL.pt2.json (profile_graph
      --format=json of the package and of the program): one line per model
"""

import json
import os
import sys


def make(out_dir, names):
    import torch
    import torchvision

    here = os.path.dirname(os.path.abspath(__file__))
    sys.path.insert(0, os.path.join(here, "..", "python", "graphprof"))
    from _compiled import compile_aoti
    from _export import save_export

    for name in names:
        torch.manual_seed(0)
        model = getattr(torchvision.models, name)().eval()
        x = torch.randn(1, 3, 224, 224)
        ep = torch.export.export(model, (x,))
        save_export(ep, os.path.join(out_dir, name + ".pt2"), x)
        compile_aoti(ep, os.path.join(out_dir, name + ".aoti.pt2"), x)


def summarize(out_dir, names):
    for name in names:
        with open(os.path.join(out_dir, name + ".aoti.json")) as f:
            compiled = json.load(f)
        with open(os.path.join(out_dir, name + ".pt2.json")) as f:
            eager = json.load(f)
        runs = compiled["run_ns"] if "run_ns" in compiled else None
        rows = compiled["nodes"]
        inside = sum(sum(n["total_ns"]) for n in rows)
        total = sum(runs) if runs else 0
        flops = sum(n["flops"] for n in rows)
        eager_flops = sum(n["flops"] for n in eager["nodes"])
        modules = sorted({n["module"] for n in rows if n["module"]})
        top = max(rows, key=lambda n: n["mean_us"])
        print("%s: %d rows (%d generated kernels), rows %.2f%% of the run, verified %s, "
              "FLOPs rows/program %.6f (%.4g/%.4g), %d modules, top row %s in %s (%s)" % (
                  name, len(rows), sum(n["kind"].startswith("inductor::") for n in rows),
                  100.0 * inside / total if total else float("nan"), compiled["verified"],
                  flops / eager_flops if eager_flops else float("nan"), flops, eager_flops, len(modules),
                  top["kind"], top["module"] or "(root)", top["source"]))


if __name__ == "__main__":
    mode, out_dir, models = sys.argv[1], sys.argv[2], sys.argv[3:]
    {"make": make, "summarize": summarize}[mode](out_dir, models)
