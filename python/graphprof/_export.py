"""graphprof.save_export: a torch.export program saved with the outputs
PyTorch computed for it, so that profile_graph can verify its own run of the
program against them (docs/export.md).

Pure Python (torch only): usable without graphprof's extension, e.g. to make
.pt2 files on a machine where only PyTorch is installed.
"""

import io
import json


def save_export(ep, path, *args, **kwargs):
    """Saves ExportedProgram `ep` to `path` with torch.export.save, and adds
    (as the archive's extra files graphprof_reference.json and
    graphprof_reference.hex) the inputs, ep.module()(*args, **kwargs)'s
    outputs, the thread count and the PyTorch version they were computed
    with. Without args, the program's example inputs are used. Returns the
    outputs."""
    import torch

    if not hasattr(ep, "module") or not hasattr(ep, "graph_signature"):
        raise TypeError("save_export() takes a torch.export.ExportedProgram, got %s" % type(ep).__name__)
    if not isinstance(path, str):
        raise TypeError("save_export(): path must be a str")
    if not args and not kwargs:
        args, kwargs = ep.example_inputs
    # ep.module() runs on copies: a program that mutates its inputs
    # (x.add_(1)) changes neither the caller's tensors nor the inputs saved
    # beside the outputs, which are the inputs as given.
    from torch.utils import _pytree
    copy = _pytree.tree_map(lambda v: v.clone() if isinstance(v, torch.Tensor) else v, (tuple(args), dict(kwargs)))
    with torch.no_grad():
        outputs = ep.module()(*copy[0], **copy[1])
    buffer = io.BytesIO()
    torch.save(((tuple(args), dict(kwargs)), outputs), buffer)
    meta = {"format": 1, "torch_version": torch.__version__, "threads": torch.get_num_threads()}
    torch.export.save(ep, path, extra_files={"graphprof_reference.json": json.dumps(meta),
                                             "graphprof_reference.hex": buffer.getvalue().hex()})
    return outputs
