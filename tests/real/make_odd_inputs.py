#!/usr/bin/python3
"""Files people pass as --inputs by mistake (made by a Bazel genrule):

    /usr/bin/python3 tests/real/make_odd_inputs.py OUT_DIR

  OUT_DIR/dict_inputs.pt       torch.save({"x": tensor}): a dict, not positional inputs
  OUT_DIR/pickled_module.pt    torch.save(nn.Linear(...)): a pickled Python object

and files LibTorch 1.13 cannot read by itself (graphprof rewrites their pickle):

  OUT_DIR/one_element_list.pt  torch.save([x]): Python writes APPEND
  OUT_DIR/wide_ints.pt         torch.save((x, 2**40, -2**40)): 6-byte LONG1
  OUT_DIR/quantized.pt         torch.save([per-tensor qint8, per-channel qint8])

and valid files whose tensors cannot be copied for a run:

  OUT_DIR/huge_view.pt         a 4-byte storage expanded to 2**47 elements
  OUT_DIR/float_qparams.pt     per-channel quint8 with float zero points (clone refuses)
"""
import os
import sys

import torch

out = sys.argv[1]
torch.manual_seed(0)
torch.save({"x": torch.ones(2, 3)}, os.path.join(out, "dict_inputs.pt"))
torch.save(torch.nn.Linear(3, 2), os.path.join(out, "pickled_module.pt"))
x = torch.arange(6.0).reshape(2, 3)
torch.save([x], os.path.join(out, "one_element_list.pt"))
torch.save((x, 2**40, -(2**40)), os.path.join(out, "wide_ints.pt"))
torch.save([torch.quantize_per_tensor(x, 0.5, 1, torch.qint8),
            torch.quantize_per_channel(x, torch.tensor([0.5, 0.25], dtype=torch.double),
                                       torch.tensor([0, 2]), 0, torch.qint8)],
           os.path.join(out, "quantized.pt"))
torch.save(torch.ones(1).expand(2**31, 2**16), os.path.join(out, "huge_view.pt"))
torch.save(torch.quantize_per_channel(x, torch.tensor([0.5, 0.25]), torch.tensor([0.5, 0.2]), 0, torch.quint8),
           os.path.join(out, "float_qparams.pt"))
