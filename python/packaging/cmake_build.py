"""graphprof's pip build: the project's CMake build (CMakeLists.txt at the
root), configured against a TorchTarget and built for what the Python package
holds, in a build directory kept between builds (so a reinstall recompiles
only what changed).

    tree = build(source_dir, target, settings)   # a BuiltTree, or BuildError
    tree.package_files()                          # [(path in the wheel, file)]

Settings (pip's --config-settings / -C): build-dir (default
<source>/build-pip/<wheel tag>-<torch>-<its location's hash>), build-type
(default Release, -O2), cmake-args (more arguments for the configure, split
on spaces; given twice, both). The compile launcher (ccache) and parallelism
come from CMake's own environment variables (CMAKE_CXX_COMPILER_LAUNCHER,
CMAKE_BUILD_PARALLEL_LEVEL; else every core).
"""

import glob
import os
import runpy
import shutil
import subprocess
import sys

from torch_target import BuildError, wheel_tag

# What the package holds, built by these CMake targets: the extension (and
# _build_info.py, written when configuring), and the command line.
TARGETS = ["graphprof_python", "profile_graph", "profile_graph_full"]
PACKAGE_SOURCES = "python/graphprof"       # in the source tree: the package's .py files
PACKAGE_DIR = "python/graphprof"           # in the build tree: _graphprof.so, _build_info.py
BUILT = ["_graphprof.so", "_build_info.py"]
TOOLS = ["tools/profile_graph", "tools/profile_graph_full"]  # in the build tree; bin/ in the package


class BuiltTree:
    def __init__(self, source_dir, build_dir):
        self.source_dir = source_dir
        self.build_dir = build_dir

    def package_files(self):
        """(path inside the wheel, file) for every file of the package: the
        .py files of the source tree (never a stale copy in the build tree),
        _graphprof.so and _build_info.py from the build, graphprof/bin/*."""
        files = [("graphprof/" + os.path.basename(p), p)
                 for p in sorted(glob.glob(os.path.join(self.source_dir, PACKAGE_SOURCES, "*.py")))]
        files += [("graphprof/" + name, os.path.join(self.build_dir, PACKAGE_DIR, name)) for name in BUILT]
        files += [("graphprof/bin/" + os.path.basename(t), os.path.join(self.build_dir, t)) for t in TOOLS]
        missing = [f for _, f in files if not os.path.isfile(f)]
        if missing or not any(name == "graphprof/__init__.py" for name, _ in files):
            raise BuildError("the CMake build did not make %s (in %s)"
                             % (", ".join(missing) or "graphprof/__init__.py", self.build_dir))
        return files


def _setting(settings, key, default=None):
    value = (settings or {}).get(key, default)
    if isinstance(value, list):  # pip passes a repeated -C key=value as a list
        value = value[-1]
    return value


def default_build_dir(source_dir, target):
    return os.path.join(source_dir, "build-pip",
                        "%s-%s-%s" % (wheel_tag(), target.local_version(), target.location_key()))


def _run(cmd, cwd, what, build_dir):
    print("graphprof: " + " ".join(cmd), flush=True)
    try:
        rc = subprocess.call(cmd, cwd=cwd)
    except OSError as e:
        raise BuildError("%s: cannot run %s: %s" % (what, cmd[0], e)) from None
    if rc != 0:
        raise BuildError("%s failed (exit %d): its output is above; the build directory is %s"
                         % (what, rc, build_dir))


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
    extra = (settings or {}).get("cmake-args") or []
    for args in (extra if isinstance(extra, list) else [extra]):
        configure += args.split()
    _run(configure, source_dir, "configuring graphprof with CMake", build_dir)
    check_configured_for(build_dir, target)
    command = [cmake, "--build", build_dir, "--target"] + TARGETS
    if "CMAKE_BUILD_PARALLEL_LEVEL" not in os.environ:
        command += ["--parallel", str(os.cpu_count() or 1)]
    _run(command, source_dir, "building graphprof with CMake", build_dir)
    return BuiltTree(source_dir, build_dir)


def _built_info(build_dir):
    """_build_info.py's values (the configure wrote it; it imports nothing), or {}."""
    path = os.path.join(build_dir, PACKAGE_DIR, "_build_info.py")
    return runpy.run_path(path) if os.path.isfile(path) else {}


def check_configured_for(build_dir, target):
    """What the configure found must be this Python's torch: its LibTorch
    (the extension shares LibTorch's objects with it), its libtorch_python,
    its version and C++ ABI (recorded in _build_info.py). A build directory
    configured before for another torch keeps what CMake found then."""
    problems = []
    library = _cache_value(build_dir, "TORCH_LIBRARY")
    if library and target.library_dir and os.path.dirname(os.path.realpath(library)) != target.library_dir:
        problems.append("LibTorch in %s, this torch's is in %s" % (os.path.dirname(os.path.realpath(library)),
                                                                 target.library_dir))
    python_library = _cache_value(build_dir, "GRAPHPROF_TORCH_PYTHON")
    if python_library and target.python_library and os.path.realpath(python_library) != target.python_library:
        problems.append("libtorch_python %s, this torch loads %s" % (os.path.realpath(python_library),
                                                                    target.python_library))
    info = _built_info(build_dir)
    if info.get("TORCH_VERSION") not in (None, target.version):
        problems.append("torch %s, this Python has %s" % (info["TORCH_VERSION"], target.version))
    if info.get("CXX11_ABI") not in (None, target.cxx11_abi):
        problems.append("_GLIBCXX_USE_CXX11_ABI=%d, this torch uses %d" % (info["CXX11_ABI"], target.cxx11_abi))
    if problems:
        raise BuildError("CMake's configuration in %s is for another torch (%s): remove that directory (or give "
                         "another: -C build-dir=DIR) and install again" % (build_dir, "; ".join(problems)))
