#include "ir/collective_groups.h"

#include <torch/csrc/jit/ir/constants.h>

#include <set>

namespace graphprof {
namespace {

void Collect(const torch::jit::Block& block, std::set<std::string>& names) {
  for (const torch::jit::Node* node : block.nodes()) {
    for (const torch::jit::Block* inner : node->blocks()) Collect(*inner, names);
    const c10::FunctionSchema* schema = node->maybeSchema();
    if (schema == nullptr) continue;
    const auto index = schema->argumentIndexWithName("group_name");
    if (!index.has_value() || static_cast<size_t>(*index) >= node->inputs().size()) continue;
    const auto value = torch::jit::toIValue(node->input(*index));
    if (value.has_value() && value->isString()) names.insert(value->toStringRef());
  }
}

}  // namespace

std::vector<std::string> CollectiveGroupNames(const torch::jit::Graph& graph) {
  std::set<std::string> names;
  Collect(*graph.block(), names);
  return std::vector<std::string>(names.begin(), names.end());
}

}  // namespace graphprof
