"""The `graphprof` command and `python -m graphprof`: profile_graph, the
command line installed inside this package (graphprof/bin/), with the same
arguments, after checking that this Python's torch is the one the package
was built against (the binaries link its LibTorch).

Self-contained (no graphprof or torch import): the `graphprof` script loads
this file by path, so the command starts without importing torch.
"""

import importlib.util
import os
import re
import runpy
import sys

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))


SOURCE_PACKAGE = ("graphprof: %s is graphprof's source package (no extension built in it), first on sys.path here: "
                  "it hides an installed graphprof; run Python from another directory")


def is_source_package():
    """Whether this package is python/graphprof of a checkout (no extension
    next to it), rather than an installed or built one."""
    return (not any(name.startswith("_graphprof") and name.endswith(".so") for name in os.listdir(_PACKAGE_DIR))
            and os.path.isfile(os.path.join(_PACKAGE_DIR, "_build_info.py.in")))


def tool_path(name="profile_graph"):
    """The path of one of the package's programs (profile_graph,
    profile_graph_full); FileNotFoundError (one line) where the package has
    none (a build tree's package: bazel-bin/tools/profile_graph)."""
    path = os.path.join(_PACKAGE_DIR, "bin", name)
    if not os.path.isfile(path):
        if is_source_package():
            raise FileNotFoundError(SOURCE_PACKAGE % _PACKAGE_DIR)
        raise FileNotFoundError("graphprof: %s has no %s: the command line comes with `pip install "
                                "--no-build-isolation .`; in a build tree run tools/profile_graph there"
                                % (_PACKAGE_DIR, os.path.join("bin", name)))
    return path


def _built_info():
    """_build_info.py's values (the CMake build writes it; it imports
    nothing), or None for a package without one (a Bazel build tree's)."""
    path = os.path.join(_PACKAGE_DIR, "_build_info.py")
    return runpy.run_path(path) if os.path.isfile(path) else None


def _installed_torch_version():
    """torch.__version__ without importing torch (torch/version.py); None if
    this Python has no torch, "" if its version cannot be read."""
    spec = importlib.util.find_spec("torch")
    if spec is None or not spec.submodule_search_locations:
        return None
    try:
        with open(os.path.join(list(spec.submodule_search_locations)[0], "version.py")) as f:
            match = re.search(r"^__version__\s*=\s*['\"]([^'\"]*)['\"]", f.read(), re.M)
    except OSError:
        return ""
    return match.group(1) if match else ""


def torch_mismatch(imported_version, imported_abi=None):
    """One line when the package was built for another torch than
    imported_version (None: no torch at all) or, when imported_abi (torch's
    _GLIBCXX_USE_CXX11_ABI) is given, with another C++ ABI; else None."""
    info = _built_info()
    if info is None:
        return None
    built = info["TORCH_VERSION"]
    if built == imported_version:
        if imported_abi is None or info["CXX11_ABI"] == bool(imported_abi):
            return None
        return ("graphprof: %s was compiled with _GLIBCXX_USE_CXX11_ABI=%d, but this Python's torch %s uses %d: "
                "reinstall graphprof in this environment (pip install --no-build-isolation <graphprof's source>)"
                % (_PACKAGE_DIR, info["CXX11_ABI"], imported_version, imported_abi))
    if imported_version is None:
        return ("graphprof: %s has no torch; graphprof in %s was built against torch %s"
                % (sys.executable, _PACKAGE_DIR, built))
    return ("graphprof: %s was built against torch %s, but this Python (%s) has torch %s: reinstall graphprof "
            "in this environment (pip install --no-build-isolation <graphprof's source>)"
            % (_PACKAGE_DIR, built, sys.executable, imported_version))


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    installed = _installed_torch_version()
    problem = torch_mismatch(installed) if installed != "" else None
    if problem:
        sys.stderr.write(problem + "\n")
        return 1
    try:
        path = tool_path()
    except FileNotFoundError as e:
        sys.stderr.write(str(e) + "\n")
        return 1
    sys.stdout.flush()
    os.execv(path, ["graphprof"] + argv)  # replaces this process: profile_graph's exit status is the command's
