// The graph's IR with every node line suffixed by its profile:
//
//   %input.5 : Tensor = aten::conv2d(%x.1, %weight, ...)  # 4312 us 9.85% | layer1.0.conv1
//
// Nested blocks are printed with their parameters and returns, as in
// torch.jit's graph printer. Nodes that ran more than once per run say so (x4).
#ifndef GRAPHPROF_PROFILERS_ANNOTATED_IR_H_
#define GRAPHPROF_PROFILERS_ANNOTATED_IR_H_

#include <string>

#include "absl/status/statusor.h"
#include "interpreter/graph_plan.h"
#include "profilers/report.h"

namespace graphprof {

// Fails if the report was not made from this plan's graph (node count or kinds differ).
absl::StatusOr<std::string> RenderAnnotatedIr(const GraphPlan& plan, const Report& report);

}  // namespace graphprof

#endif  // GRAPHPROF_PROFILERS_ANNOTATED_IR_H_
