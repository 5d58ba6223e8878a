// InlineCalls: inlines every prim::CallMethod / prim::CallFunction of a
// graph, recursively, exactly as torch::jit::Inline does (the same graph
// comes out), but records the call on *every* inlined node.
//
// LibTorch 1.13's inliner extends the inlined call stack only of callee
// nodes it reaches through the value map: top-level nodes with outputs.
// Nodes inside If/Loop blocks of an inlined method, and nodes without
// outputs (prim::RaiseException, BatchNorm's `num_batches_tracked += 1`),
// keep a partial stack or none, so their module path would be wrong
// (scripted torchvision resnet18: 162 of 690 nodes).
#ifndef GRAPHPROF_IR_INLINER_H_
#define GRAPHPROF_IR_INLINER_H_

#include <torch/script.h>

#include <string>
#include <vector>

namespace graphprof {

void InlineCalls(torch::jit::Graph& graph);

// The same for a graph whose inputs hold modules (a prim::fork's subgraph):
// a call on input k gets instance name input_instances[k] (the attribute
// the caller read it from) where that is not empty.
void InlineCalls(torch::jit::Graph& graph, std::vector<std::string> input_instances);

}  // namespace graphprof

#endif  // GRAPHPROF_IR_INLINER_H_
