// Building blocks for the model zoo: torch.nn-like modules written as
// TorchScript source (Module::define) with deterministic random weights.
//
// Each builder returns a fresh module in eval mode whose parameter and buffer
// names and shapes follow torch.nn (Conv2d: weight [out, in, k, k], ...), so
// module paths in reports read like PyTorch's. Parameters require grad, as
// torch.nn's do; buffers do not. Children are called with
// `self.child.forward(x)` (C++-defined modules have no __call__).
#ifndef GRAPHPROF_TOOLS_ZOO_LAYERS_H_
#define GRAPHPROF_TOOLS_ZOO_LAYERS_H_

#include <ATen/core/Generator.h>
#include <torch/script.h>

#include <cstdint>
#include <string>
#include "absl/strings/string_view.h"
#include <utility>
#include <vector>

namespace graphprof::zoo {

// Seeded source of initial weights (its own generator: global RNG untouched).
class WeightInit {
 public:
  explicit WeightInit(uint64_t seed);
  at::Tensor Normal(at::IntArrayRef shape, double std);
  at::Tensor Uniform(at::IntArrayRef shape, double low, double high);

 private:
  at::Generator generator_;
};

// A module named `type_name` with `source` defined on it; `training` is false.
// Aborts the zoo build with a message on bad source (a programming error).
torch::jit::Module NewModule(absl::string_view type_name);
// Registers a trainable parameter (requires_grad = true).
void AddParameter(torch::jit::Module& module, const std::string& name, at::Tensor value);
void Define(torch::jit::Module& module, absl::string_view source);

torch::jit::Module Conv2d(WeightInit& init, int64_t in, int64_t out, int64_t kernel,
                          int64_t stride, int64_t padding, bool bias);
torch::jit::Module BatchNorm2d(WeightInit& init, int64_t channels);
torch::jit::Module Linear(WeightInit& init, int64_t in, int64_t out, bool bias = true);
torch::jit::Module LayerNorm(WeightInit& init, int64_t features);
// A parameterless module whose forward is `return <expression of x>`,
// e.g. Lambda("ReLU", "torch.relu(x)").
torch::jit::Module Lambda(absl::string_view type_name, absl::string_view expression);
// Children "0", "1", ... called in order, like torch.nn.Sequential.
torch::jit::Module Sequential(std::vector<torch::jit::Module> children);

}  // namespace graphprof::zoo

#endif  // GRAPHPROF_TOOLS_ZOO_LAYERS_H_
