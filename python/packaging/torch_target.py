"""What graphprof's pip build builds against: the torch of the Python that
runs the build (pip's Python, under --no-build-isolation).

    target = TorchTarget.of_this_python()   # or raises BuildError (one line)

cmake_build.py gives CMake its cmake_dir (Torch_DIR, where torch ships its
CMake package) and, after configuring, checks that what CMake found and
recorded in graphprof/_build_info.py (the torch version, the C++ ABI, the
LibTorch directory) is this torch's: the package refuses at import any
other torch, and a build against the wrong one would only fail there.
"""

import hashlib
import os
import sys
import sysconfig


class BuildError(Exception):
    """A build that cannot go on: one line for the user, no traceback."""


def _isolated():
    """Whether a build frontend runs this build in an isolated environment:
    pip's live in directories named pip-build-env-*, python -m build's in
    build-env-*, put on sys.path (and PYTHONPATH) or as sys.prefix."""
    paths = list(sys.path) + os.environ.get("PYTHONPATH", "").split(os.pathsep) + [sys.prefix]
    return any("pip-build-env-" in p or os.path.basename(p).startswith("build-env-") for p in paths)


NO_ISOLATION_HINT = (
    "this package builds against the torch installed in the Python that runs pip, which pip's build "
    "isolation hides: install with `pip install --no-build-isolation .` (or `pip wheel "
    "--no-build-isolation .`, `pip install --no-build-isolation -e .`, `python -m build --no-isolation`)")


class TorchTarget:
    """torch as this Python imports it."""

    def __init__(self, version, cmake_dir, cxx11_abi, library_dir, python_library=None):
        self.version = version        # torch.__version__
        self.cmake_dir = cmake_dir    # <prefix>/Torch with TorchConfig.cmake, or None
        self.cxx11_abi = cxx11_abi    # torch._C._GLIBCXX_USE_CXX11_ABI (bool)
        self.library_dir = library_dir  # the directory libtorch_cpu.so was loaded from
        self.python_library = python_library  # the libtorch_python.so file loaded (real path), or None

    @staticmethod
    def of_this_python():
        # Isolated, even a torch that imports is not the user's (one a
        # frontend installed, or none): refuse before anything is built.
        if _isolated():
            raise BuildError(NO_ISOLATION_HINT)
        try:
            import torch
            import torch.utils
        except ImportError as e:
            venv = " (a virtual environment: made with --system-site-packages, if the torch is the system's?)" \
                if sys.prefix != sys.base_prefix else ""
            raise BuildError("%s has no torch (%s): install torch into it first (Debian: python3-torch)%s"
                             % (sys.executable, e, venv)) from None
        prefix = getattr(torch.utils, "cmake_prefix_path", None)
        cmake_dir = os.path.join(prefix, "Torch") if prefix else None
        if cmake_dir and not os.path.isfile(os.path.join(cmake_dir, "TorchConfig.cmake")):
            cmake_dir = None  # Debian's python3-torch: its LibTorch's config is the system's (libtorch-dev)
        target = TorchTarget(torch.__version__, cmake_dir, bool(torch._C._GLIBCXX_USE_CXX11_ABI),
                             _loaded_library_dir("libtorch_cpu.so"), _loaded_library("libtorch_python.so"))
        if not target.cxx11_abi:
            # Abseil, simdjson and GoogleTest come from the system, built with
            # the C++11 ABI: linking them with a pre-C++11-ABI LibTorch fails.
            raise BuildError("torch %s in %s uses the pre-C++11 ABI (_GLIBCXX_USE_CXX11_ABI=0), but graphprof links "
                             "the system's C++ libraries (Abseil, simdjson), built with the C++11 ABI: use a torch "
                             "built with it (Debian's python3-torch; pip's wheels from torch 2.7 on)"
                             % (target.version, sys.executable))
        return target

    def local_version(self):
        """torch's version as a PEP 440 local version label: 2.6.0 -> torch2.6.0,
        1.13.0a0+gitunknown -> torch1.13.0a0.gitunknown."""
        label = "".join(c if c.isalnum() else "." for c in self.version)
        return "torch" + ".".join(part for part in label.split(".") if part)

    def location_key(self):
        """8 hex digits naming where this torch's LibTorch is (two torches of
        one version in two environments get two build directories)."""
        return hashlib.sha256((self.library_dir or "").encode()).hexdigest()[:8]


def _loaded_library(name):
    """The real path of a shared library this process has loaded (by its
    file name's start), from /proc/self/maps; None if none."""
    try:
        with open("/proc/self/maps") as f:
            for line in f:
                path = line.rstrip("\n").split(None, 5)[-1]
                if os.path.basename(path).startswith(name):
                    return os.path.realpath(path)
    except OSError:
        pass
    return None


def _loaded_library_dir(name):
    path = _loaded_library(name)
    return os.path.dirname(path) if path else None


def wheel_tag():
    """The tag of an extension for this interpreter and platform, e.g.
    cp311-cp311-linux_x86_64."""
    impl = "cp" if sys.implementation.name == "cpython" else sys.implementation.name[:2]
    version = "%s%d%d" % (impl, sys.version_info[0], sys.version_info[1])
    platform = sysconfig.get_platform().replace("-", "_").replace(".", "_")
    return "%s-%s-%s" % (version, version, platform)
