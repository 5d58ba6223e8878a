#include "profilers/toolbox/node_benchmark.h"

#include <string_view>

#include "profilers/profiler.h"

namespace graphprof {

absl::StatusOr<Report> BenchmarkNodes(std::shared_ptr<const GraphPlan> plan, const std::vector<c10::IValue>& inputs,
                                      const BenchmarkOptions& options) {
  if (options.steps < 1) return absl::InvalidArgumentError("steps must be at least 1");
  if (options.warmup < 1) return absl::InvalidArgumentError("warmup must be at least 1");
  ProfileOptions profile;
  profile.warmup = options.warmup;
  profile.runs = options.steps;
  profile.trace = false;
  profile.clock = options.clock;
  profile.backward.enabled = options.backward;
  if (options.progress) {
    const int total = options.warmup + options.steps;
    profile.progress = [&options, total](const char* phase, int done, int /*of*/) {
      const std::string_view p(phase);
      if (p == "warmup") options.progress(done, total);
      if (p == "timed") options.progress(options.warmup + done, total);
    };
  }
  return Profile(std::move(plan), inputs, profile);
}

}  // namespace graphprof
