// Which operator kinds are c10d collectives: one answer for the plan (they
// are side effects, run only on the ranks' own process group) and for the
// report (a collective's transfer and waiting). Torch-free, so the report
// layer can ask it.
#ifndef GRAPHPROF_IR_COLLECTIVE_KINDS_H_
#define GRAPHPROF_IR_COLLECTIVE_KINDS_H_

#include "absl/strings/match.h"
#include "absl/strings/string_view.h"

namespace graphprof {

// Whether `qualified_name` ("_c10d_functional::all_reduce") is a c10d
// collective or its wait: the namespaces c10d::, _c10d_functional:: and
// _c10d_functional_autograd:: (those LibTorch 1.13 and 2.6 register).
inline bool IsCollectiveOperator(absl::string_view qualified_name) {
  for (absl::string_view space : {"c10d::", "_c10d_functional::", "_c10d_functional_autograd::"}) {
    if (absl::StartsWith(qualified_name, space)) return true;
  }
  return false;
}

}  // namespace graphprof

#endif  // GRAPHPROF_IR_COLLECTIVE_KINDS_H_
