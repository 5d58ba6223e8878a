"""graphprof's pip build: the project's CMake build (CMakeLists.txt at the
root), configured against a TorchTarget and built for what the Python package
holds, in a build directory kept between builds (so a reinstall recompiles
only what changed).

    tree = build(source_dir, target, settings)   # a BuiltTree, or BuildError
    tree.package_files()                          # [(path in the wheel, file)]

Settings (pip's --config-settings / -C): build-dir (default
<source>/build-pip/<wheel tag>-<torch>), build-type (default Release, -O2),
cmake-args (more arguments for the configure, split on spaces). The compile
launcher (ccache) and parallelism come from CMake's own environment variables
(CMAKE_CXX_COMPILER_LAUNCHER, CMAKE_BUILD_PARALLEL_LEVEL).
"""

import glob
import os
import shutil
import subprocess
import sys

from torch_target import BuildError, wheel_tag

# What the package holds, built by these CMake targets: the extension (and
# the package's .py files, _build_info.py), and the command line.
TARGETS = ["graphprof_python", "profile_graph", "profile_graph_full"]
PACKAGE_DIR = "python/graphprof"           # in the build tree: *.py, _graphprof.so, _build_info.py
TOOLS = ["tools/profile_graph", "tools/profile_graph_full"]  # in the build tree; bin/ in the package


class BuiltTree:
    def __init__(self, build_dir):
        self.build_dir = build_dir

    def package_files(self):
        """(path inside the wheel, file in the build tree) for every file of
        the package: graphprof/*.py, graphprof/_graphprof.so, graphprof/bin/*."""
        package = os.path.join(self.build_dir, PACKAGE_DIR)
        files = []
        for path in sorted(glob.glob(os.path.join(package, "*.py")) + glob.glob(os.path.join(package, "*.so"))):
            files.append(("graphprof/" + os.path.basename(path), path))
        for tool in TOOLS:
            files.append(("graphprof/bin/" + os.path.basename(tool), os.path.join(self.build_dir, tool)))
        missing = [f for _, f in files if not os.path.isfile(f)]
        names = {name for name, _ in files}
        for needed in ("graphprof/__init__.py", "graphprof/_graphprof.so", "graphprof/_build_info.py"):
            if needed not in names:
                missing.append(os.path.join(self.build_dir, PACKAGE_DIR, os.path.basename(needed)))
        if missing:
            raise BuildError("the CMake build did not make %s (in %s)" % (", ".join(missing), self.build_dir))
        return files


def _setting(settings, key, default=None):
    value = (settings or {}).get(key, default)
    if isinstance(value, list):  # pip passes a repeated -C key=value as a list
        value = value[-1]
    return value


def default_build_dir(source_dir, target):
    return os.path.join(source_dir, "build-pip", "%s-%s" % (wheel_tag(), target.local_version()))


def _run(cmd, cwd, what):
    print("graphprof: " + " ".join(cmd), flush=True)
    try:
        rc = subprocess.call(cmd, cwd=cwd)
    except OSError as e:
        raise BuildError("%s: cannot run %s: %s" % (what, cmd[0], e)) from None
    if rc != 0:
        raise BuildError("%s failed (exit %d): its output is above; the build directory is %s"
                         % (what, rc, cmd[cmd.index("-B") + 1] if "-B" in cmd else cwd))


def _cache_value(build_dir, name):
    try:
        with open(os.path.join(build_dir, "CMakeCache.txt")) as f:
            for line in f:
                if line.startswith(name + ":"):
                    return line.rstrip("\n").split("=", 1)[1]
    except OSError:
        pass
    return None


def build(source_dir, target, settings):
    cmake = shutil.which("cmake")
    if cmake is None:
        raise BuildError("graphprof's build needs CMake 3.18 or later on PATH (Debian: apt install cmake)")
    build_dir = os.path.abspath(_setting(settings, "build-dir") or default_build_dir(source_dir, target))
    build_type = _setting(settings, "build-type", "Release")
    configure = [cmake, "-S", source_dir, "-B", build_dir,
                 "-DCMAKE_BUILD_TYPE=" + build_type,
                 # Bazel's -c opt: -O2, assertions off.
                 "-DCMAKE_CXX_FLAGS_RELEASE=-O2 -DNDEBUG",
                 "-DGRAPHPROF_BUILD_TESTS=OFF",
                 "-DGRAPHPROF_PYTHON=" + sys.executable]
    if not os.path.isfile(os.path.join(build_dir, "CMakeCache.txt")) and shutil.which("ninja"):
        configure += ["-G", "Ninja"]
    if target.cmake_dir:
        configure.append("-DTorch_DIR=" + target.cmake_dir)
    configure += (_setting(settings, "cmake-args") or "").split()
    _run(configure, source_dir, "configuring graphprof with CMake")
    _check_same_libtorch(build_dir, target)
    _run([cmake, "--build", build_dir, "--target"] + TARGETS, source_dir, "building graphprof with CMake")
    return BuiltTree(build_dir)


def _check_same_libtorch(build_dir, target):
    """The LibTorch CMake found must be the one this Python's torch loads:
    the extension shares LibTorch's objects with it."""
    library = _cache_value(build_dir, "TORCH_LIBRARY")
    if not library or not target.library_dir:
        return  # nothing to compare (a LibTorch CMake found without TORCH_LIBRARY): the import-time check remains
    found = os.path.dirname(os.path.realpath(library))
    if found != target.library_dir:
        raise BuildError("CMake found LibTorch in %s, but %s's torch %s loads it from %s: point CMake at that "
                         "torch with -C cmake-args=-DTorch_DIR=<its share/cmake/Torch>"
                         % (found, sys.executable, target.version, target.library_dir))
