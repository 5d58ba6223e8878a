// A model that exercises the interpreter's control flow and containers:
// for/while loops with break and continue, if/else, lists, tuples, a dict,
// Optional refinement, a helper method, string formatting, and an assert that
// raises on bad input (non-2-D).
#include "tools/zoo/layers.h"
#include "tools/zoo/zoo.h"

namespace graphprof::zoo {

ZooModel ControlFlow(uint64_t seed) {
  WeightInit init(seed);
  torch::jit::Module m = NewModule("ControlFlow");
  m.register_module("layer", Linear(init, 32, 32));
  m.register_attribute("steps", c10::IntType::get(), int64_t{4});
  Define(m, R"(
def scale(self, h: Tensor, i: int) -> Tensor:
    if i % 2 == 0:
        return h * 0.5
    return h

def forward(self, x: Tensor):
    assert x.dim() == 2, "control_flow expects a 2-D input"
    feats: List[Tensor] = []
    stats: Dict[str, Tensor] = {}
    h = x
    for i in range(self.steps):
        h = torch.tanh(self.layer.forward(h))
        h = self.scale(h, i)
        if bool(h.sum() > 0):
            feats.append(h)
        else:
            feats.append(-h)
        stats["step{}".format(i)] = h.mean()
    best: Optional[Tensor] = None
    j = 0
    while j < len(feats):
        f = feats[j]
        j += 1
        if j == 2:
            continue
        if best is None:
            best = f
        else:
            best = torch.maximum(best, f)
        if j > 10:
            break
    pair = (best, len(feats))
    out = pair[0]
    total = torch.zeros([1])
    for key in stats.keys():
        total = total + stats[key]
    if out is None:
        return x, total
    return out * float(pair[1]), total
)");
  ZooModel model{"control_flow", "loops, ifs, list/tuple/dict, Optional, assert", m, {}};
  model.inputs = {InputSpec{InputSpec::Kind::kTensor, {8, 32}, c10::ScalarType::Float}};
  return model;
}

}  // namespace graphprof::zoo
