// A 3-layer perceptron: 784 -> 256 -> 128 -> 10.
#include "tools/zoo/layers.h"
#include "tools/zoo/zoo.h"

namespace graphprof::zoo {

ZooModel Mlp(uint64_t seed) {
  WeightInit init(seed);
  torch::jit::Module m = NewModule("MLP");
  m.register_module("fc1", Linear(init, 784, 256));
  m.register_module("fc2", Linear(init, 256, 128));
  m.register_module("fc3", Linear(init, 128, 10));
  Define(m, R"(
def forward(self, x):
    x = torch.relu(self.fc1.forward(x))
    x = torch.relu(self.fc2.forward(x))
    return torch.log_softmax(self.fc3.forward(x), 1)
)");
  ZooModel model{"mlp", "3-layer perceptron 784-256-128-10", m, {}};
  model.inputs = {InputSpec{InputSpec::Kind::kTensor, {32, 784}, c10::ScalarType::Float}};
  return model;
}

}  // namespace graphprof::zoo
