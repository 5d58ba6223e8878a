// The delay pass: a slowdown of known size injected into a real model, for
// calibrating verdicts (issue 55: a gate's power and false-call rate are
// measured against an effect whose true size is known without the gate).
//
//   --passes=delay:MODULE:US      (graphprof.profile(..., passes="delay:layer3:500"))
//
// After the last node (in execution order, top-level block) of module MODULE
// (a named_modules() path: the node's own module or one below it) that has a
// Tensor output, it inserts graphprof::delay(x, US), which busy-waits US
// microseconds of the steady clock and returns x itself (an alias: no copy,
// the output unchanged, so verification still holds); the later uses of x
// use its result. The delay node keeps the chosen node's module path, source
// and call stack: it is a row of MODULE. Its size is known by construction:
// the wait ends at a deadline on the steady clock, whatever the machine's
// speed, and its own node row measures it (docs/statistics.md, "A known
// effect"). The graph is inlined first (as the `inline` pass).
//
//   --passes=delay:MODULE:US@RANK
//
// The same node in every process, graphprof::delay_on_rank(x, US, RANK),
// which busy-waits only in the process whose RANK variable (torchrun's) is
// RANK: every rank of a torch.distributed program profiles the same graph
// (their reports merge), one of them is a known straggler there
// (docs/distributed.md).
#ifndef GRAPHPROF_IR_DELAY_PASS_H_
#define GRAPHPROF_IR_DELAY_PASS_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "ir/passes.h"

namespace graphprof {

inline constexpr char kDelayPassPrefix[] = "delay:";
inline constexpr char kDelayOp[] = "graphprof::delay";
inline constexpr char kDelayOnRankOp[] = "graphprof::delay_on_rank";
inline constexpr int64_t kMaxDelayUs = 10'000'000;  // 10 s

// "delay:MODULE:US" or "delay:MODULE:US@RANK" -> the pass; InvalidArgument
// (one line) for another shape, an empty module, US outside [1,
// kMaxDelayUs] or a negative rank.
absl::StatusOr<Pass> ParseDelayPass(absl::string_view text);

// The pass itself (`rank` -1: on every process). Applying it fails
// (NotFound) when no node of `module_path` has a Tensor output.
Pass DelayPass(std::string module_path, int64_t us, int64_t rank = -1);

}  // namespace graphprof

#endif  // GRAPHPROF_IR_DELAY_PASS_H_
