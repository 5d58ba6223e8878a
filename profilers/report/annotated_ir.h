// The graph's IR (Report::ir) with every node line suffixed by its profile:
//
//   %input.5 : Tensor = aten::conv2d(%x.1, %weight, ...)  # 4312 us 9.85% | layer1.0.conv1
//
// Nested blocks are printed with their parameters and returns, as in
// torch.jit's graph printer. Nodes that ran more than once per run say so
// (x4); nodes that never ran say "not executed".
#ifndef GRAPHPROF_PROFILERS_REPORT_ANNOTATED_IR_H_
#define GRAPHPROF_PROFILERS_REPORT_ANNOTATED_IR_H_

#include <string>

#include "absl/status/statusor.h"
#include "profilers/report/report.h"

namespace graphprof {

// Fails when the report carries no IR (e.g. a version 1 JSON report).
absl::StatusOr<std::string> RenderAnnotatedIr(const Report& report);

}  // namespace graphprof

#endif  // GRAPHPROF_PROFILERS_REPORT_ANNOTATED_IR_H_
