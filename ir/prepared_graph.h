// Preparing a method's graph for node-by-node interpretation.
//
// The module itself is never mutated: the graph is copied, calls are inlined
// (InlineCalls, so every node knows the module it came from through its
// inlined call stack), and dead leftovers such as unused Function constants
// are removed. With `passes`, they first run in order on a clone of the
// module (ir/passes.h: freeze, optimize_for_inference, ...); `freeze` is
// short for a freeze pass in front. Module paths are resolved against the
// original module (ModulePaths), so they stay the same after the passes.
#ifndef GRAPHPROF_IR_PREPARED_GRAPH_H_
#define GRAPHPROF_IR_PREPARED_GRAPH_H_

#include <torch/script.h>

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/module_paths.h"
#include "ir/passes.h"

namespace graphprof {

struct PrepareOptions {
  std::string method = "forward";
  // Freeze the module first (it must be in eval mode).
  bool freeze = false;
  // Passes to apply (after freezing) before the graph is taken.
  std::vector<Pass> passes;
  // Inline calls to methods and functions. Without it, prim::CallMethod and
  // prim::CallFunction nodes remain and run as single (opaque) nodes.
  bool inline_calls = true;
};

// Who a node is, when the input format says so itself (a torch.export
// program's node name, module path and source line) rather than the graph's
// inlined call stacks and source ranges.
struct NodeOrigin {
  std::string name;    // "conv2d_3"
  std::string module;  // "layer1.0.conv1"; "" for the root module
  std::string source;  // "torchvision/models/resnet.py:92"; "" when unknown
};

// A graph ready for the interpreter, plus what it needs at run time.
struct PreparedGraph {
  // "<module type>.<method>" or the name given to PrepareGraph.
  std::string name;
  std::shared_ptr<torch::jit::Graph> graph;
  // The module whose method this graph is (the transformed clone with passes).
  // Its object is bound to the graph's first input, `self`.
  c10::optional<torch::jit::Module> module;
  std::string method;
  // Node of `graph` -> the node of the source graph it was copied from
  // (the method's graph, or the graph given to PrepareGraph). Nodes the
  // preparation created (inlined bodies) are absent.
  std::unordered_map<const torch::jit::Node*, const torch::jit::Node*> original_of;
  // Names nodes' modules as named_modules() does; null for bare graphs.
  std::shared_ptr<const ModulePaths> module_paths;
  // The passes applied, in order ("freeze -> optimize_for_inference"), or "".
  std::string passes;
  // Nodes whose identity the input format gave (see NodeOrigin); GraphPlan
  // takes their module, source and label (<module>/<name>) from here.
  std::unordered_map<const torch::jit::Node*, NodeOrigin> origins;

  bool has_self() const { return module.has_value(); }
  // Number of inputs a caller passes: graph inputs minus `self`.
  size_t num_user_inputs() const;
  // Those inputs for messages: "x: Tensor, edge_index: Tensor".
  std::string DescribeUserInputs() const;
};

// Module methods run by LibTorch's own executor (the native reference of
// --verify, benchmarks' native cases) run without the TensorExpr fuser, for
// the whole process, from the first PrepareMethod on: LibTorch 2.6's
// profiling executor fused a training step's graph on the CPU and spent
// minutes compiling it with LLVM (a benchmark of the zoo mlp "never
// returned"), and fused kernels round differently from the unfused
// operators graphprof's interpreter runs. Debian's LibTorch 1.13 did not
// fuse these graphs.
void UseUnfusedNativeExecution();

absl::StatusOr<PreparedGraph> PrepareMethod(const torch::jit::Module& module,
                                            const PrepareOptions& options = {});

// Prepares a graph the caller hands over (e.g. just parsed): inlined and
// dead code removed in place, no copy (original_of stays empty).
absl::StatusOr<PreparedGraph> PrepareOwnedGraph(std::shared_ptr<torch::jit::Graph> graph, std::string name);

// Prepares a bare graph (e.g. from ParseGraph): copied, inlined, dead code removed.
absl::StatusOr<PreparedGraph> PrepareGraph(const torch::jit::Graph& graph, std::string name,
                                           bool inline_calls = true);

}  // namespace graphprof

#endif  // GRAPHPROF_IR_PREPARED_GRAPH_H_
