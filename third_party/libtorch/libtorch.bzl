"""Repository rule for LibTorch.

Uses the unpacked official LibTorch named by the LIBTORCH_DIR environment variable
(e.g. a CUDA build: it has include/ and lib/), and otherwise Debian's libtorch-dev
(headers in /usr/include, libraries in the multiarch lib directory).

The generated repository exposes:
  @libtorch//:libtorch      headers + link options
  @libtorch//:defs.bzl      LIBTORCH_HAS_CUDA (True when lib/ has libtorch_cuda.so)
"""

_HEADER_DIRS = ["torch", "ATen", "c10", "caffe2"]

_DEBIAN_LIB_DIRS = [
    "/usr/lib/x86_64-linux-gnu",
    "/usr/lib/aarch64-linux-gnu",
    "/usr/lib",
]

def _find_debian_libdir(ctx):
    for d in _DEBIAN_LIB_DIRS:
        if ctx.path(d + "/libtorch_cpu.so").exists:
            return d
    return None

def _libtorch_repository_impl(ctx):
    root = ctx.os.environ.get("LIBTORCH_DIR", "")
    if root:
        include_dir = root + "/include"
        lib_dir = root + "/lib"
        if not ctx.path(lib_dir + "/libtorch_cpu.so").exists:
            fail("LIBTORCH_DIR=%s has no lib/libtorch_cpu.so; point it at an unpacked LibTorch" % root)
        includes = ["include", "include/torch/csrc/api/include"]
    else:
        include_dir = "/usr/include"
        lib_dir = _find_debian_libdir(ctx)
        if lib_dir == None:
            fail("LibTorch not found: install Debian's libtorch-dev (./bazelw does) or set LIBTORCH_DIR")

        # /usr/include is already on the default search path; only the C++ API
        # directory (<torch/torch.h>) needs adding.
        includes = ["include/torch/csrc/api/include"]

    for d in _HEADER_DIRS:
        if ctx.path(include_dir + "/" + d).exists:
            ctx.symlink(include_dir + "/" + d, "include/" + d)

    has_cuda = ctx.path(lib_dir + "/libtorch_cuda.so").exists
    libs = ["-ltorch", "-ltorch_cpu", "-lc10"]
    if has_cuda:
        # CUDA kernels register themselves from static initialisers: keep the
        # libraries even though no symbol of theirs is referenced directly.
        libs = ["-Wl,--no-as-needed", "-ltorch_cuda", "-lc10_cuda", "-Wl,--as-needed"] + libs
    linkopts = []
    if root:
        linkopts += ["-L" + lib_dir, "-Wl,-rpath," + lib_dir]
    linkopts += libs

    ctx.file("BUILD", """
package(default_visibility = ["//visibility:public"])

cc_library(
    name = "libtorch",
    hdrs = glob(["include/**/*.h", "include/**/*.hpp", "include/**/*.cuh"]),
    includes = {includes},
    linkopts = {linkopts},
)
""".format(includes = repr(includes), linkopts = repr(linkopts)))
    ctx.file("defs.bzl", "LIBTORCH_HAS_CUDA = %s\nLIBTORCH_DIR = %r\n" % (has_cuda, root))

libtorch_repository = repository_rule(
    implementation = _libtorch_repository_impl,
    environ = ["LIBTORCH_DIR"],
    local = True,
)
