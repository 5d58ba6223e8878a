#!/usr/bin/python3
"""Makes real models the way users make them, for //tests/real (Debian's python3-torch 1.13
and python3-torchvision 0.14; run by a Bazel genrule, nothing is committed).

    /usr/bin/python3 tests/real/make_real_models.py OUT_DIR NAME...

For each NAME (e.g. resnet18_script) it writes, with everything seeded:
  OUT_DIR/NAME.pt           torch.jit.save of the scripted or traced model (eval mode)
  OUT_DIR/NAME.inputs.pt    torch.save of a tuple of example inputs
  OUT_DIR/NAME.modules.txt  the ground truth: one line per named_modules() entry of the
                            loaded ScriptModule, "<name>\t<qualified type>" ("" for the root)
NAME ending in _export (PyTorch 2.x: torch.export) writes NAME.pt2 in place of
NAME.pt, by graphprof.save_export (export() below).
"""
import os
import sys

from typing import Dict, List, Optional

import torch
import torch.nn as nn


class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.fc1 = nn.Linear(d, 2 * d)
        self.act = nn.GELU()
        self.fc2 = nn.Linear(2 * d, d)

    def forward(self, x):
        return x + self.fc2(self.act(self.fc1(x)))


class LoopedModuleLists(nn.Module):
    """Two ModuleLists of the same block type, iterated in forward."""

    def __init__(self, d=16):
        super().__init__()
        self.blocks = nn.ModuleList([Block(d) for _ in range(3)])
        self.heads = nn.ModuleList([Block(d) for _ in range(2)])
        self.norm = nn.LayerNorm(d)

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        y = self.norm(x)
        for head in self.heads:
            y = head(y)
        return y


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        layer = nn.TransformerEncoderLayer(d_model=32, nhead=4, dim_feedforward=64, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, num_layers=2)
        self.proj = nn.Linear(32, 8)

    def forward(self, x):
        return self.proj(self.encoder(x))


class Recurrent(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(input_size=12, hidden_size=24, num_layers=2, batch_first=True)
        self.head = nn.Linear(24, 5)

    def forward(self, x):
        out, _ = self.lstm(x)
        return self.head(out[:, -1])


class Branch(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        return torch.relu(self.fc(x))


class NestedFork(nn.Module):
    """Forks one branch and runs the other meanwhile."""

    def __init__(self):
        super().__init__()
        self.a = Branch()
        self.b = Branch()

    def forward(self, x):
        fa = torch.jit.fork(self.a, x)
        y = self.b(x)
        return torch.jit.wait(fa) + y


class Forks(nn.Module):
    """torch.jit.fork / wait: two forks, one of which forks again."""

    def __init__(self):
        super().__init__()
        self.left = NestedFork()
        self.right = Branch()
        self.head = nn.Linear(8, 4)

    def forward(self, x):
        f1 = torch.jit.fork(self.left, x)
        f2 = torch.jit.fork(self.right, x * 2)
        return self.head(torch.jit.wait(f1) + torch.jit.wait(f2))


@torch.jit.script
class Scaled:
    """A TorchScript class: prim::CreateObject, attributes set and read."""

    def __init__(self, t: torch.Tensor, scale: float):
        self.t = t
        self.scale = scale

    def value(self) -> torch.Tensor:
        return self.t * self.scale


class Shipped(nn.Module):
    """What shipped scripted models do beyond plain tensors (issue 41): a
    Dict[str, Tensor] input and output, an Optional argument left to its
    default, a script class, fork/wait over a dict and a with statement."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def branch(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.fc(x))

    def forward(self, feats: Dict[str, torch.Tensor], scale: Optional[float] = None) -> Dict[str, torch.Tensor]:
        futures: List[torch.jit.Future[torch.Tensor]] = []
        for k, v in feats.items():
            futures.append(torch.jit.fork(self.branch, v))
        out: Dict[str, torch.Tensor] = {}
        i = 0
        for k, v in feats.items():
            s = Scaled(torch.jit.wait(futures[i]), 1.5 if scale is None else scale)
            s.scale = s.scale * 2.0
            with torch.no_grad():
                out[k] = s.value() + v
            i += 1
        return out


def model_and_inputs(kind):
    import torchvision

    if kind == "resnet18":
        return torchvision.models.resnet18(), (torch.randn(1, 3, 224, 224),)
    if kind == "mobilenet_v2":
        return torchvision.models.mobilenet_v2(), (torch.randn(1, 3, 224, 224),)
    if kind == "mobilenet_v3_small":
        return torchvision.models.mobilenet_v3_small(), (torch.randn(1, 3, 224, 224),)
    if kind == "modulelist":
        return LoopedModuleLists(), (torch.randn(4, 16),)
    if kind == "transformer":
        return Encoder(), (torch.randn(2, 10, 32),)
    if kind == "lstm":
        return Recurrent(), (torch.randn(3, 7, 12),)
    # Scripted, both call warnings.warn in forward (an aten::warn node).
    # Small inputs keep the tests fast; both models accept them.
    if kind == "googlenet":
        return torchvision.models.googlenet(init_weights=True, aux_logits=False), (torch.randn(1, 3, 96, 96),)
    if kind == "inception_v3":
        return torchvision.models.inception_v3(init_weights=True, aux_logits=False), (torch.randn(1, 3, 80, 80),)
    if kind == "forks":
        return Forks(), (torch.randn(2, 8),)
    # ViT-B/16 on 64x64 images: 16 patches and the class token through all
    # 12 encoder layers (the same weights' shapes as at 224x224).
    if kind == "vit_b_16":
        return torchvision.models.vit_b_16(image_size=64), (torch.randn(1, 3, 64, 64),)
    if kind == "shipped":
        return Shipped(), ({"a": torch.randn(2, 4), "b": torch.randn(3, 4)},)
    if kind in DETECTION:
        return detection_model(kind), ([torch.rand(3, 160, 192)],)
    raise SystemExit(f"unknown model {kind}")


DETECTION = ("fasterrcnn", "retinanet", "ssdlite", "maskrcnn", "keypointrcnn")


def detection_model(kind):
    """torchvision's detection models, random weights, every box kept (score
    thresholds 0: with the default 0.05 random weights detect nothing and the
    mask and keypoint heads never run): script classes, with statements,
    defaulted targets, torchvision::nms and roi_align (an operator library).
    Images resized to 160-192 pixels and fewer proposals than the defaults
    keep a run to seconds; the same code runs."""
    from torchvision.models import detection as d

    small = dict(min_size=160, max_size=192)
    rcnn = dict(rpn_pre_nms_top_n_test=200, rpn_post_nms_top_n_test=100, box_detections_per_img=10, **small)
    none = dict(weights=None, weights_backbone=None)
    builders = {
        "fasterrcnn": lambda: d.fasterrcnn_mobilenet_v3_large_320_fpn(**none, box_score_thresh=0.0),
        "retinanet": lambda: d.retinanet_resnet50_fpn(**none, score_thresh=0.0, **small),
        "ssdlite": lambda: d.ssdlite320_mobilenet_v3_large(**none, score_thresh=0.0),
        "maskrcnn": lambda: d.maskrcnn_resnet50_fpn(**none, box_score_thresh=0.0, **rcnn),
        "keypointrcnn": lambda: d.keypointrcnn_resnet50_fpn(**none, box_score_thresh=0.0, **rcnn),
    }
    return builders[kind]()


def count_macs(model, inputs):
    """Multiply-accumulates of every convolution, linear and multi-head
    attention, from forward hooks on the eager modules (independent of
    graphprof's counter): conv out x Cin/groups x kernel, linear out x in,
    attention its four projections and its two products."""
    total = [0]

    def conv(m, args, out):
        total[0] += out.numel() * (m.in_channels // m.groups) * m.weight[0, 0].numel()

    def linear(m, args, out):
        total[0] += out.numel() * m.in_features

    def attention(m, args, out):
        # Called with keywords (query=, key=, value=): the hook sees no
        # arguments, so the sizes come from the output; self-attention (the
        # models here), so keys are as long as queries.
        y = out[0] if m.batch_first else out[0].transpose(0, 1)
        batch, lq, e = y.shape
        lk = lq
        total[0] += batch * (lq + 2 * lk) * e * e + batch * lq * e * e  # q, k, v and output projections
        total[0] += 2 * batch * lq * lk * e                              # scores and the weighted sum

    hooks = []
    for m in model.modules():
        if isinstance(m, nn.MultiheadAttention):
            hooks.append(m.register_forward_hook(attention))
        elif isinstance(m, (nn.Conv1d, nn.Conv2d, nn.Conv3d)):
            hooks.append(m.register_forward_hook(conv))
        elif type(m) is nn.Linear:  # the attention's out_proj is a subclass, counted with the attention
            hooks.append(m.register_forward_hook(linear))
    with torch.no_grad():
        model(*inputs)
    for h in hooks:
        h.remove()
    return total[0]


def make(out_dir, name):
    kind, how = name.rsplit("_", 1)
    torch.manual_seed(0)
    model, inputs = model_and_inputs(kind)
    if how == "trainmode":  # scripted as saved by someone who forgot .eval()
        model.train()
        how = "script"
    else:
        model.eval()
    if how == "export":
        export(out_dir, name, model, inputs)
        return
    if how == "script":
        scripted = torch.jit.script(model)
    elif how == "trace":
        # Traced with gradients enabled: the transformer's no-grad fast path
        # would collapse each layer into one fused op.
        scripted = torch.jit.trace(model, inputs, check_trace=False)
    else:
        raise SystemExit(f"unknown conversion {how}")
    with open(os.path.join(out_dir, name + ".macs.txt"), "w") as f:
        f.write(f"{count_macs(model, inputs)}\n")
    path = os.path.join(out_dir, name + ".pt")
    torch.jit.save(scripted, path)
    torch.save(inputs, os.path.join(out_dir, name + ".inputs.pt"))
    loaded = torch.jit.load(path)
    with open(os.path.join(out_dir, name + ".modules.txt"), "w") as f:
        for module_name, module in loaded.named_modules():
            f.write(f"{module_name}\t{module._c._type().qualified_name()}\n")


def export(out_dir, name, model, inputs):
    """NAME.pt2: torch.export.export of the eval-mode model, saved by
    graphprof.save_export (PyTorch's outputs for the inputs inside, the
    reference profile_graph verifies against); NAME.modules.txt from the
    eager model's named_modules() (module paths are what a program's
    nn_module_stack names); NAME.macs.txt and NAME.inputs.pt as for the
    others. PyTorch 2.x only (torch.export)."""
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python", "graphprof"))
    from _export import save_export

    with open(os.path.join(out_dir, name + ".macs.txt"), "w") as f:
        f.write(f"{count_macs(model, inputs)}\n")
    save_export(torch.export.export(model, inputs), os.path.join(out_dir, name + ".pt2"), *inputs)
    torch.save(inputs, os.path.join(out_dir, name + ".inputs.pt"))
    with open(os.path.join(out_dir, name + ".modules.txt"), "w") as f:
        for module_name, module in model.named_modules():
            f.write(f"{module_name}\t{type(module).__module__}.{type(module).__qualname__}\n")


def main():
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    torch.set_num_threads(1)
    for name in sys.argv[2:]:
        make(sys.argv[1], name)


if __name__ == "__main__":
    main()
