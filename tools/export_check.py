"""Exports a small model with this Python's PyTorch for tools/device_check.sh's
export step: torch.export.export, saved by graphprof.save_export (PyTorch's
outputs inside), so that the profile_graph just built opens, runs and
verifies a program written by the machine's own PyTorch (2.6-2.7: the
torch.export.save layout; 2.8+: the PT2 archive).

    python3 tools/export_check.py OUT.pt2

Prints the PyTorch version. Needs torch only (no torchvision, no graphprof
extension).
"""
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python", "graphprof"))
from _export import save_export  # noqa: E402


class Net(torch.nn.Module):
    """A convolution, batch norm, attention over the pixels and a linear head."""

    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.bn = torch.nn.BatchNorm2d(8)
        self.head = torch.nn.Linear(8, 4)

    def forward(self, x):
        y = torch.relu(self.bn(self.conv(x)))
        tokens = y.flatten(2).transpose(1, 2)  # (batch, pixels, channels)
        y = F.scaled_dot_product_attention(tokens, tokens, tokens)
        return self.head(y.mean(1))


def main():
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    torch.manual_seed(0)
    torch.set_num_threads(1)
    x = torch.randn(2, 3, 8, 8)
    save_export(torch.export.export(Net().eval(), (x,)), sys.argv[1], x)
    print(torch.__version__)


if __name__ == "__main__":
    main()
