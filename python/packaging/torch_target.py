"""What graphprof's pip build builds against: the torch of the Python that
runs the build (pip's Python, under --no-build-isolation).

    target = TorchTarget.of_this_python()   # or raises BuildError (one line)

Its fields go to CMake (Torch_DIR when torch ships its CMake package) and
into the built package (graphprof/_build_info.py), which refuses at import a
torch other than the one it was built against.
"""

import os
import sys
import sysconfig


class BuildError(Exception):
    """A build that cannot go on: one line for the user, no traceback."""


def _isolated():
    """Whether pip runs this build in an isolated environment: its build
    environments live in directories named pip-build-env-*, put on sys.path
    (and PYTHONPATH) for the backend."""
    paths = list(sys.path) + os.environ.get("PYTHONPATH", "").split(os.pathsep)
    return any("pip-build-env-" in p for p in paths)


NO_ISOLATION_HINT = (
    "this package builds against the torch installed in the Python that runs pip, which pip's build "
    "isolation hides: install with `pip install --no-build-isolation .` (or `pip wheel "
    "--no-build-isolation .`, `pip install --no-build-isolation -e .`)")


class TorchTarget:
    """torch as this Python imports it."""

    def __init__(self, version, distribution_version, cmake_dir, cxx11_abi, library_dir):
        self.version = version                            # torch.__version__
        self.distribution_version = distribution_version  # its installed distribution's, or None
        self.cmake_dir = cmake_dir                        # <prefix>/Torch with TorchConfig.cmake, or None
        self.cxx11_abi = cxx11_abi                        # torch._C._GLIBCXX_USE_CXX11_ABI (bool)
        self.library_dir = library_dir                    # the directory libtorch_cpu.so was loaded from

    @staticmethod
    def of_this_python():
        try:
            import torch
            import torch.utils
        except ImportError as e:
            if _isolated():
                raise BuildError(NO_ISOLATION_HINT) from None
            raise BuildError("%s has no torch (%s): install torch into it first (Debian: python3-torch)"
                             % (sys.executable, e)) from None
        try:
            from importlib import metadata
            distribution_version = metadata.version("torch")
        except Exception:  # noqa: BLE001  (no metadata: the import-time check uses torch.__version__)
            distribution_version = None
        prefix = getattr(torch.utils, "cmake_prefix_path", None)
        cmake_dir = os.path.join(prefix, "Torch") if prefix else None
        if cmake_dir and not os.path.isfile(os.path.join(cmake_dir, "TorchConfig.cmake")):
            cmake_dir = None  # Debian's python3-torch: its LibTorch's config is the system's (libtorch-dev)
        return TorchTarget(torch.__version__, distribution_version, cmake_dir,
                           bool(torch._C._GLIBCXX_USE_CXX11_ABI), _loaded_library_dir("libtorch_cpu.so"))

    def local_version(self):
        """torch's version as a PEP 440 local version label: 2.6.0 -> torch2.6.0,
        1.13.0a0+gitunknown -> torch1.13.0a0.gitunknown."""
        label = "".join(c if c.isalnum() else "." for c in self.version)
        return "torch" + ".".join(part for part in label.split(".") if part)


def _loaded_library_dir(name):
    """The directory of a shared library this process has loaded (by its
    file name's start), from /proc/self/maps; None if none."""
    try:
        with open("/proc/self/maps") as f:
            for line in f:
                path = line.rstrip("\n").split(None, 5)[-1]
                if os.path.basename(path).startswith(name):
                    return os.path.dirname(os.path.realpath(path))
    except OSError:
        pass
    return None


def wheel_tag():
    """The tag of an extension for this interpreter and platform, e.g.
    cp311-cp311-linux_x86_64."""
    impl = "cp" if sys.implementation.name == "cpython" else sys.implementation.name[:2]
    version = "%s%d%d" % (impl, sys.version_info[0], sys.version_info[1])
    platform = sysconfig.get_platform().replace("-", "_").replace(".", "_")
    return "%s-%s-%s" % (version, version, platform)
