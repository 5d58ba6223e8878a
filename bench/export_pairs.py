#!/usr/bin/python3
"""The model pairs of bench/export_overhead.cc: each model as a torch.export
program (.pt2, PyTorch 2.x, saved by graphprof.save_export with its example
inputs) and as TorchScript (torch.jit.script or trace, by the PyTorch that
runs this: Debian 12's 1.13 for the Bazel build's LibTorch).

    /usr/bin/python3 bench/export_pairs.py script DIR          # DIR/NAME.pt
    tools/torch2_root.sh --bind=DIR -- python3 bench/export_pairs.py export DIR   # DIR/NAME.pt2

Models (seeded): resnet18 (torchvision, input 1x3x128x128: mostly
convolutions, the profiler's cost small beside each node) and chain1000
(x = x + 1 a thousand times on 1x8: the profiler's cost per node in full).
"""
import os
import sys

import torch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class Chain(torch.nn.Module):
    def __init__(self, n):
        super().__init__()
        self.n = n

    def forward(self, x):
        for _ in range(self.n):
            x = x + 1
        return x


def models():
    import torchvision

    torch.manual_seed(0)
    yield "resnet18", torchvision.models.resnet18().eval(), (torch.randn(1, 3, 128, 128),), True
    yield "chain1000", Chain(1000), (torch.randn(1, 8),), False


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("script", "export"):
        raise SystemExit("usage: export_pairs.py script|export DIR")
    mode, out = sys.argv[1], sys.argv[2]
    torch.set_num_threads(1)
    for name, model, inputs, scriptable in models():
        if mode == "script":
            saved = torch.jit.script(model) if scriptable else torch.jit.trace(model, inputs, check_trace=False)
            saved.save(os.path.join(out, name + ".pt"))
        else:
            sys.path.insert(0, os.path.join(ROOT, "python", "graphprof"))
            from _export import save_export

            save_export(torch.export.export(model, inputs), os.path.join(out, name + ".pt2"), *inputs)
        print(f"export_pairs: {name} ({mode}) in {out}")


if __name__ == "__main__":
    main()
