"""graphprof.compile_aoti: a torch.export program compiled by AOTInductor into
one package that PyTorch's own loader runs and graphprof profiles per kernel
(docs/compiled.md).

The package is torch._inductor.aoti_compile_and_package's, compiled with
kernel profiling on (each generated kernel inside a RecordFunction scope),
plus two entries of graphprof's, stored whole: the program itself, saved by
graphprof.save_export with reference inputs and outputs (PROGRAM_ENTRY), and
which of the program's nodes each generated kernel computes (KERNELS_ENTRY),
recorded while Inductor names its kernels. The program gives the compiled
kernels their nodes, modules, source lines and work; its reference outputs
verify the compiled run. (PyTorch 2.6's wrapper source names the nodes of
its extern calls in comments, not those of its generated CPU kernels; newer
versions' provenance tracking records what KERNELS_ENTRY holds.)

Pure Python (torch only): usable without graphprof's extension.
"""

import json
import os
import shutil
import tempfile
import zipfile

try:
    from ._export import save_export
except ImportError:  # loaded by its path (the tests' fixture scripts), not as graphprof's
    from _export import save_export

# Where graphprof's program sits in the package, under the package's
# top-level folder (ir/compiled/aoti_package.h reads the same name).
PROGRAM_ENTRY = "graphprof/program.pt2"
KERNELS_ENTRY = "graphprof/kernels.json"


def _origins(scheduled):
    """The program's node names (FX `from_node`, as Inductor's own
    "Source Nodes" comments give them) and the ATen operators behind
    scheduler nodes `scheduled`, in the graph's order."""
    from torch._inductor.utils import aggregate_origins

    origins = [o for o in aggregate_origins(list(scheduled)) if o.op == "call_function"]
    order = {n: i for i, n in enumerate(origins[0].graph.nodes)} if origins else {}
    if len({o.graph for o in origins}) == 1:
        origins.sort(key=lambda n: order[n])
    nodes, aten = [], []
    for origin in origins:
        source = origin.meta.get("from_node")
        name = source[0].name if source else origin.name
        if name not in nodes:
            nodes.append(name)
        original = origin.meta.get("original_aten")
        if original is not None and str(original._overloadpacket) not in aten:
            aten.append(str(original._overloadpacket))
    return nodes, aten


class _KernelRecorder:
    """Records, while Inductor compiles, each generated CPU kernel's name
    and what it computes (CppScheduling.define_kernel, wrapped)."""

    def __init__(self):
        self.kernels = {}

    def __enter__(self):
        from torch._inductor.codegen import cpp

        self._scheduling = cpp.CppScheduling
        self._define = cpp.CppScheduling.define_kernel
        recorder, define = self, self._define

        def define_kernel(scheduling, src_code, nodes, *args, **kwargs):
            name = define(scheduling, src_code, nodes, *args, **kwargs)
            try:
                kernel_nodes, aten = _origins(nodes)
            except Exception as e:  # Inductor internals: never fail the compile over them
                kernel_nodes, aten = [], ["(not recorded: %s)" % e]
            recorder.kernels[name] = {"nodes": kernel_nodes, "aten": aten}
            return name

        cpp.CppScheduling.define_kernel = define_kernel
        return self

    def __exit__(self, *exc):
        self._scheduling.define_kernel = self._define
        return False


def _top_folder(names):
    """The folder every entry of a package is under ("" when none is)."""
    firsts = {name.split("/", 1)[0] for name in names if "/" in name}
    if len(firsts) == 1 and all("/" in name for name in names):
        return firsts.pop() + "/"
    return ""


def compile_aoti(ep, path, *args, **kwargs):
    """Compiles ExportedProgram `ep` with AOTInductor (kernel profiling on)
    into the package `path` and stores the program beside the compiled model
    in it, with ep.module()(*args, **kwargs)'s outputs as the reference
    (save_export's; without args, the program's example inputs). Returns the
    outputs. `path` is written only when everything succeeded (a temporary
    file beside it, renamed), so a failed compile leaves nothing behind;
    torch._inductor.aoti_load_package(path) loads it as any package.

    Compiling takes minutes (g++ compiles the generated C++); Inductor keeps
    its cache under TORCHINDUCTOR_CACHE_DIR (/tmp/torchinductor_<user>)."""
    import torch

    if not hasattr(ep, "module") or not hasattr(ep, "graph_signature"):
        raise TypeError("compile_aoti() takes a torch.export.ExportedProgram, got %s" % type(ep).__name__)
    if not isinstance(path, str):
        raise TypeError("compile_aoti(): path must be a str")
    if not hasattr(torch._inductor, "aoti_compile_and_package"):
        raise RuntimeError("compile_aoti() needs PyTorch 2.6 or later (torch._inductor.aoti_compile_and_package); "
                           "this is PyTorch %s" % torch.__version__)
    directory = os.path.dirname(os.path.abspath(path))
    work = tempfile.mkdtemp(prefix=".graphprof-compile-", dir=directory)
    try:
        program = os.path.join(work, "program.pt2")
        outputs = save_export(ep, program, *args, **kwargs)
        package = os.path.join(work, "package.pt2")
        from torch._inductor import config
        # A fresh compile: kernels taken from Inductor's cache would not be
        # named here (FX graph cache; the C++ compiler's cache still helps).
        with config.patch({"cpp.enable_kernel_profile": True, "fx_graph_cache": False}), _KernelRecorder() as recorder:
            torch._inductor.aoti_compile_and_package(ep, package_path=package)
        kernels = {"format": 1, "torch_version": torch.__version__, "kernels": recorder.kernels}
        with zipfile.ZipFile(package, "a", compression=zipfile.ZIP_STORED) as archive:
            names = archive.namelist()
            top = _top_folder(names)
            for entry in (PROGRAM_ENTRY, KERNELS_ENTRY):
                if top + entry in names:
                    raise RuntimeError("compile_aoti(): the compiled package already holds %s" % (top + entry))
            archive.write(program, top + PROGRAM_ENTRY)
            archive.writestr(top + KERNELS_ENTRY, json.dumps(kernels, indent=1))
        os.replace(package, path)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return outputs
