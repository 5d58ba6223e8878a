// The process groups a graph's collectives name. A program exported with
// c10d functional collectives (torch.distributed._functional_collectives:
// `_c10d_functional::all_reduce(x, "sum", "0")`, all_gather_into_tensor,
// reduce_scatter_tensor, broadcast, ...) names its group by a string, the
// operator's `group_name` argument, which must resolve to a registered
// process group when the node runs (profilers/session/ranks.h registers
// one under each name).
#ifndef GRAPHPROF_IR_COLLECTIVE_GROUPS_H_
#define GRAPHPROF_IR_COLLECTIVE_GROUPS_H_

#include <torch/csrc/jit/ir/ir.h>

#include <string>
#include <vector>

namespace graphprof {

// The constant `group_name` arguments of every node of the graph (blocks
// included) whose operator has one, sorted, each once; empty when the graph
// calls no collective.
std::vector<std::string> CollectiveGroupNames(const torch::jit::Graph& graph);

}  // namespace graphprof

#endif  // GRAPHPROF_IR_COLLECTIVE_GROUPS_H_
