#!/usr/bin/python3
"""Files people pass as --inputs by mistake (made by a Bazel genrule):

    /usr/bin/python3 tests/real/make_odd_inputs.py OUT_DIR

  OUT_DIR/dict_inputs.pt       torch.save({"x": tensor}): a dict, not positional inputs
  OUT_DIR/pickled_module.pt    torch.save(nn.Linear(...)): a pickled Python object
"""
import os
import sys

import torch

out = sys.argv[1]
torch.manual_seed(0)
torch.save({"x": torch.ones(2, 3)}, os.path.join(out, "dict_inputs.pt"))
torch.save(torch.nn.Linear(3, 2), os.path.join(out, "pickled_module.pt"))
