"""What graphprof's Python tests share (graphprof_test.py,
graphprof_compare_test.py): the sanitizer preload, which must run before
torch is imported, torch and graphprof themselves, runfiles, and the small
models the tests profile. Import it first.
"""

import os
import re
import sys
from typing import List


def _preload_sanitizer_runtime():
    """Under --config=asan (or tsan) the extension links a sanitizer runtime,
    which must be the first library of the process, before Python's own; and
    ASan's exception interceptor needs libstdc++ loaded when it starts (Python
    does not link it). So re-run this test with both preloaded. The C++
    tests link the runtime into their executables and need none of this."""
    if os.environ.get("GRAPHPROF_SANITIZER_PRELOADED"):
        return
    for entry in sys.path:
        so = os.path.join(entry or ".", "graphprof", "_graphprof.so")
        if os.path.exists(so):
            break
    else:
        return
    with open(so, "rb") as f:
        runtime = re.search(rb"lib[at]san\.so\.\d+", f.read())
    if runtime is None:
        return
    preload = [runtime.group().decode(), "libstdc++.so.6"] + os.environ.get("LD_PRELOAD", "").split()
    env = dict(os.environ, LD_PRELOAD=" ".join(preload), GRAPHPROF_SANITIZER_PRELOADED="1")
    os.execve(sys.executable, [sys.executable] + sys.argv, env)


_preload_sanitizer_runtime()

import torch  # noqa: E402  (after the sanitizer check)

import graphprof  # noqa: E402

torch.manual_seed(0)


# GRAPHPROF_TEST_INSTALLED=1 (tools/pip_check.sh): the suites test the package
# pip installed, never the source tree's or a build tree's: graphprof must
# come from outside this checkout, and the command line is the package's own.
_INSTALLED = os.environ.get("GRAPHPROF_TEST_INSTALLED") == "1"
if _INSTALLED:
    _checkout = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    if os.path.abspath(graphprof.__file__).startswith(_checkout + os.sep):
        raise SystemExit("GRAPHPROF_TEST_INSTALLED=1 but graphprof was imported from this checkout (%s), "
                         "not an installed package" % graphprof.__file__)


def _runfile(path):
    """A file of the test's runfiles (or of bazel-bin when run by hand); with
    GRAPHPROF_TEST_INSTALLED=1, tools/profile_graph is the installed package's."""
    if _INSTALLED and path == "tools/profile_graph":
        from graphprof import _cli
        return _cli.tool_path("profile_graph")
    srcdir = os.environ.get("TEST_SRCDIR")
    if srcdir:
        return os.path.join(srcdir, os.environ.get("TEST_WORKSPACE", "graphprof"), path)
    here = os.path.dirname(os.path.abspath(__file__))
    return os.path.join(here, "..", "..", "bazel-bin", path)


class ControlFlow(torch.nn.Module):
    """A loop whose body takes one branch or the other, over a list input."""

    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(8, 8)

    def forward(self, x, n: int, flags: List[bool]):
        for i in range(n):
            if flags[i % len(flags)]:
                x = self.lin(x)
            else:
                x = torch.relu(x) + 1
        return x


class Raises(torch.nn.Module):
    def forward(self, x):
        if x.sum() > 0:
            raise ValueError("x must not be positive")
        return x * 2


class ConvBn(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, 3)
        self.bn = torch.nn.BatchNorm2d(8)

    def forward(self, x):
        return torch.relu(self.bn(self.conv(x)))


@torch.jit.script
def _double(x):
    return x * 2


def _resnet18():
    import torchvision

    return torch.jit.script(torchvision.models.resnet18().eval())
