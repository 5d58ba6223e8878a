// The built-in model zoo: models written as TorchScript source with
// deterministic random weights, the tool's default material and the tests'.
//
//   resnet18      torchvision's ResNet-18 layout (same module names and
//                 parameter shapes), input 1x3x224x224
//   mlp           3-layer perceptron, input 32x784
//   gcn           2-layer GCN-style message passing over an edge list
//                 (index_select + index_add_/scatter_add_), inputs 1000x64, 2x5000:int64
//   transformer   one transformer encoder block (self-attention + FFN), input 2x64x256
//   control_flow  loops, ifs, list/tuple/dict, Optional, break/continue and an
//                 assert that raises on non-2-D input, input 8x32
//   tiny1000      1000 chained `x = x + 1` on a 1-element tensor (per-node overhead)
#ifndef GRAPHPROF_TOOLS_ZOO_ZOO_H_
#define GRAPHPROF_TOOLS_ZOO_ZOO_H_

#include <torch/script.h>

#include <cstdint>
#include <string>
#include "absl/strings/string_view.h"
#include <vector>

#include "absl/status/statusor.h"
#include "ir/input_spec.h"

namespace graphprof {

struct ZooModel {
  std::string name;
  std::string description;
  torch::jit::Module module;  // eval mode
  std::vector<InputSpec> inputs;  // default example inputs

  // Seeded random inputs following `inputs`.
  std::vector<c10::IValue> ExampleInputs(uint64_t seed = 0) const;
};

// Names in the order above.
std::vector<std::string> ZooNames();

// Builds a zoo model; weights depend only on (name, seed).
absl::StatusOr<ZooModel> MakeZooModel(absl::string_view name, uint64_t seed = 0);

namespace zoo {
// The individual builders (defined one per file).
ZooModel ResNet18(uint64_t seed);
ZooModel Mlp(uint64_t seed);
ZooModel Gcn(uint64_t seed);
ZooModel TransformerBlock(uint64_t seed);
ZooModel ControlFlow(uint64_t seed);
ZooModel TinyOps(uint64_t seed, int num_ops);
}  // namespace zoo

}  // namespace graphprof

#endif  // GRAPHPROF_TOOLS_ZOO_ZOO_H_
