// A graph's IR as text lines, each tied to the node printed on it.
//
// Nodes are numbered in execution order over the whole graph, nested blocks
// included (a prim::If or prim::Loop before the nodes of its blocks): the
// same numbering as NodeIdentity::id and GraphPlan. Blocks are printed with
// their parameters and returns, as torch.jit's graph printer does.
#ifndef GRAPHPROF_IR_GRAPH_TEXT_H_
#define GRAPHPROF_IR_GRAPH_TEXT_H_

#include <string>
#include <vector>

#include "ir/ir_line.h"

namespace torch::jit {
struct Graph;
}  // namespace torch::jit

namespace graphprof {

std::vector<IrLine> GraphLines(const torch::jit::Graph& graph);

}  // namespace graphprof

#endif  // GRAPHPROF_IR_GRAPH_TEXT_H_
