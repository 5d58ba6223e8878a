"""Repository rule for the Python side: Debian's python3 and python3-torch.

The Python extension (//python:graphprof) is compiled against the Python
headers of the interpreter that will import it and linked against
libtorch_python.so from that interpreter's torch. A torch.jit.ScriptModule's
C++ object can only be handed to graphprof when that torch and the LibTorch
graphprof builds against (@libtorch) are the same library files, so this rule
checks it (Debian's python3-torch links the libtorch1.13 libraries that
libtorch-dev's headers belong to).

The interpreter is /usr/bin/python3, or $GRAPHPROF_PYTHON when set.

The generated repository exposes:
  @python_torch//:python_headers   Python.h and friends
  @python_torch//:torch_python     libtorch_python.so (+ headers, @libtorch)
  @python_torch//:py_toolchain     a Python toolchain running that interpreter
                                   (registered in WORKSPACE: py_test uses it)
  @python_torch//:defs.bzl         PYTHON_TORCH_OK (False when any of the
                                   above is missing or the LibTorch differs),
                                   PYTHON_TORCH_PROBLEM (why), PYTHON
"""

_DEBIAN_LIB_DIRS = [
    "/usr/lib/x86_64-linux-gnu",
    "/usr/lib/aarch64-linux-gnu",
    "/usr/lib",
]

_PROBE = """
import json, os, sys, sysconfig
info = {"include": sysconfig.get_paths()["include"], "version": sys.version.split()[0]}
try:
    import torch
    info["torch_lib"] = os.path.join(os.path.dirname(torch.__file__), "lib")
    info["torch_version"] = torch.__version__
except Exception as e:
    info["torch_error"] = "%s: %s" % (type(e).__name__, e)
print(json.dumps(info))
"""

def _realpath(ctx, path):
    result = ctx.execute(["readlink", "-f", path])
    return result.stdout.strip() if result.return_code == 0 else ""

def _write(ctx, python, problem, include_dir, torch_lib):
    if problem:
        # buildifier: disable=print
        print("graphprof: the Python extension is disabled: " + problem)
    linkopts = []
    if torch_lib:
        linkopts = ["-L" + torch_lib, "-l:libtorch_python.so", "-Wl,-rpath," + torch_lib]
    if include_dir and ctx.path(include_dir + "/Python.h").exists:
        ctx.symlink(include_dir, "include")
    else:
        ctx.file("include/.none", "")
    ctx.file("BUILD", """
load("@bazel_tools//tools/python:toolchain.bzl", "py_runtime_pair")

package(default_visibility = ["//visibility:public"])

cc_library(
    name = "python_headers",
    hdrs = glob(["include/**/*.h"]),
    includes = ["include"],
)

cc_library(
    name = "torch_python",
    linkopts = {linkopts},
    deps = [":python_headers", "@libtorch"],
)

py_runtime(
    name = "py3_runtime",
    interpreter_path = {python},
    python_version = "PY3",
    stub_shebang = "#!" + {python},
)

py_runtime_pair(
    name = "py_runtime_pair",
    py3_runtime = ":py3_runtime",
)

toolchain(
    name = "py_toolchain",
    toolchain = ":py_runtime_pair",
    toolchain_type = "@bazel_tools//tools/python:toolchain_type",
)
""".format(linkopts = repr(linkopts), python = repr(python)))
    ctx.file("defs.bzl", "PYTHON_TORCH_OK = %s\nPYTHON_TORCH_PROBLEM = %r\nPYTHON = %r\n" % (
        problem == "",
        problem,
        python,
    ))

def _python_torch_repository_impl(ctx):
    python = ctx.os.environ.get("GRAPHPROF_PYTHON", "/usr/bin/python3")
    if not ctx.path(python).exists:
        _write(ctx, python, "%s not found (./bazelw installs python3-torch)" % python, "", "")
        return
    probe = ctx.execute([python, "-c", _PROBE], environment = {"HOME": "/tmp"})
    if probe.return_code != 0:
        _write(ctx, python, "%s failed: %s" % (python, probe.stderr.strip()), "", "")
        return
    info = json.decode(probe.stdout.strip().splitlines()[-1])
    include_dir = info["include"]
    problems = []
    if not ctx.path(include_dir + "/Python.h").exists:
        problems.append("no %s/Python.h (install python3-dev)" % include_dir)
    if not ctx.path("/usr/include/pybind11/pybind11.h").exists:
        problems.append("no /usr/include/pybind11 (install pybind11-dev)")
    torch_lib = info.get("torch_lib", "")
    if not torch_lib:
        problems.append("%s cannot import torch (%s)" % (python, info.get("torch_error", "")))
    elif not ctx.path(torch_lib + "/libtorch_python.so").exists:
        problems.append("%s has no libtorch_python.so" % torch_lib)
    else:
        root = ctx.os.environ.get("LIBTORCH_DIR", "")
        lib_dirs = [root + "/lib"] if root else _DEBIAN_LIB_DIRS
        ours = ""
        for d in lib_dirs:
            if ctx.path(d + "/libtorch_cpu.so").exists:
                ours = _realpath(ctx, d + "/libtorch_cpu.so")
                break
        theirs = _realpath(ctx, torch_lib + "/libtorch_cpu.so")
        if ours != theirs:
            problems.append(("%s's torch %s uses %s but graphprof builds against %s: a ScriptModule cannot " +
                             "be passed between two LibTorch copies (use Debian's libtorch-dev and " +
                             "python3-torch, without LIBTORCH_DIR)") % (
                python,
                info.get("torch_version", "?"),
                theirs or "?",
                ours or "?",
            ))
    _write(ctx, python, "; ".join(problems), include_dir, torch_lib)

python_torch_repository = repository_rule(
    implementation = _python_torch_repository_impl,
    environ = ["GRAPHPROF_PYTHON", "LIBTORCH_DIR"],
    local = True,
)
