// A chain of tiny tensor ops: measures per-node overhead, not compute.
#include <string>

#include "tools/zoo/layers.h"
#include "tools/zoo/zoo.h"

namespace graphprof::zoo {

ZooModel TinyOps(uint64_t seed, int num_ops) {
  (void)seed;  // no weights
  torch::jit::Module m = NewModule("TinyOps");
  std::string source = "\ndef forward(self, x):\n";
  for (int i = 0; i < num_ops; ++i) source += "    x = x + 1\n";
  source += "    return x\n";
  Define(m, source);
  ZooModel model{"tiny" + std::to_string(num_ops),
                 std::to_string(num_ops) + " chained x = x + 1 on a 1-element tensor", m, {}};
  model.inputs = {InputSpec{InputSpec::Kind::kTensor, {1}, c10::ScalarType::Float}};
  return model;
}

}  // namespace graphprof::zoo
