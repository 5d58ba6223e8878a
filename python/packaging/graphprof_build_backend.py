"""graphprof's PEP 517 build backend (pyproject.toml: backend-path), used by
`pip install --no-build-isolation .`, `pip wheel`, and `pip install -e`.

It builds the project's CMake build against the torch of the Python running
pip (torch_target.py), and writes a wheel (wheel_writer.py) holding:
graphprof/*.py, graphprof/_graphprof.so, graphprof/_build_info.py (the torch
it was built for, checked at import) and graphprof/bin/{profile_graph,
profile_graph_full} (the `graphprof` command and `python -m graphprof`).

Why in the tree, with no requirements: the build needs the user's own torch,
which pip's build isolation hides; a backend pip would have to download
(setuptools, scikit-build-core) would fail offline before any of graphprof's
code could say so. This one runs in isolation too, and says in one line to
use --no-build-isolation. It needs only the standard library, the same on
Debian 12 (Python 3.11, no scikit-build-core packaged) and Debian 13.
"""

import io
import os
import re
import subprocess
import sys
import tarfile

sys.dont_write_bytecode = True  # no __pycache__ left in the checkout by its own modules
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import cmake_build  # noqa: E402
from torch_target import BuildError, TorchTarget, wheel_tag  # noqa: E402
from wheel_writer import Metadata, write_wheel  # noqa: E402

SOURCE_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SUMMARY = "A per-node profiler for PyTorch graphs (TorchScript, torch.export), in C++ over LibTorch"
# The `graphprof` command: a script (pip points its #!python at the
# environment's Python) that starts profile_graph without importing torch; a
# console_scripts entry point would import the package, and so torch, first.
SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "graphprof_script.py")


def _fail(error):
    """One line on stderr (the last of the build's output pip shows), no traceback."""
    sys.stderr.write("\ngraphprof: %s\n" % error)
    sys.stderr.flush()
    raise SystemExit(1)


def _project_version():
    with open(os.path.join(SOURCE_DIR, "CMakeLists.txt")) as f:
        match = re.search(r"project\(graphprof\s+VERSION\s+([0-9.]+)", f.read())
    if not match:
        raise BuildError("CMakeLists.txt has no project(graphprof VERSION ...)")
    return match.group(1)


def _target():
    return TorchTarget.of_this_python()


def _metadata(target):
    # The torch it is built for, as the version's local label: 0.1.0+torch2.6.0.
    return Metadata("graphprof", "%s+%s" % (_project_version(), target.local_version()), SUMMARY, ">=3.8")


def _script(metadata):
    with open(SCRIPT) as f:
        return (metadata.data_dir() + "/scripts/graphprof", f.read(), 0o755)


def get_requires_for_build_wheel(config_settings=None):
    try:
        _target()  # under pip's isolation: the one-line hint, before anything is built
    except BuildError as e:
        _fail(e)
    return []


get_requires_for_build_editable = get_requires_for_build_wheel


def get_requires_for_build_sdist(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    try:
        return _metadata(_target()).write_dist_info(metadata_directory, wheel_tag())
    except BuildError as e:
        _fail(e)


prepare_metadata_for_build_editable = prepare_metadata_for_build_wheel


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    try:
        target = _target()
        tree = cmake_build.build(SOURCE_DIR, target, config_settings)
        metadata = _metadata(target)
        return write_wheel(wheel_directory, metadata, tree.package_files(), wheel_tag(), texts=[_script(metadata)])
    except BuildError as e:
        _fail(e)


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    """The package as a directory of links in the build tree (<build>/editable/graphprof):
    the .py files link to python/graphprof/ (edits show at the next import; a
    new .py file, or a C++ change, needs this install again, which rebuilds
    incrementally), the rest to what CMake built. The wheel holds only a .pth
    naming that directory."""
    try:
        target = _target()
        tree = cmake_build.build(SOURCE_DIR, target, config_settings)
        root = os.path.join(tree.build_dir, "editable")
        package = os.path.join(root, "graphprof")
        if os.path.isdir(package):
            for dirpath, dirnames, filenames in os.walk(package, topdown=False):
                for name in filenames + dirnames:
                    path = os.path.join(dirpath, name)
                    os.rmdir(path) if os.path.isdir(path) and not os.path.islink(path) else os.remove(path)
        for arcname, file in tree.package_files():  # the .py files are the source tree's
            path = os.path.join(root, arcname)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            os.symlink(file, path)
        metadata = _metadata(target)
        return write_wheel(wheel_directory, metadata, [], wheel_tag(),
                           texts=[("graphprof_editable.pth", root + "\n"), _script(metadata)])
    except BuildError as e:
        _fail(e)


def build_sdist(sdist_directory, config_settings=None):
    """The files git tracks (a source distribution is built from a git checkout)."""
    try:
        listed = subprocess.run(["git", "ls-files", "-z"], cwd=SOURCE_DIR, capture_output=True, check=True)
    except (OSError, subprocess.CalledProcessError):
        _fail(BuildError("a source distribution is made from a git checkout (git ls-files failed in %s)"
                         % SOURCE_DIR))
    base = "graphprof-%s" % _project_version()
    name = base + ".tar.gz"
    partial = os.path.join(sdist_directory, name + ".partial")
    try:
        with tarfile.open(partial, "w:gz") as tar:
            for path in sorted(p for p in listed.stdout.decode().split("\0") if p):
                full = os.path.join(SOURCE_DIR, path)
                if os.path.isfile(full):
                    tar.add(full, arcname=base + "/" + path, recursive=False)
            info = tarfile.TarInfo(base + "/PKG-INFO")
            text = ("Metadata-Version: 2.1\nName: graphprof\nVersion: %s\nSummary: %s\n"
                    % (_project_version(), SUMMARY)).encode()
            info.size = len(text)
            tar.addfile(info, io.BytesIO(text))
        os.replace(partial, os.path.join(sdist_directory, name))
    finally:
        if os.path.exists(partial):
            os.remove(partial)
    return name
