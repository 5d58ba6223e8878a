// The complete check of profile_graph's options for profiling: the checks
// that need no LibTorch (ValidateCommon, cli_options.h: all a merge needs),
// then the ones that do: pass names and what they do to parameters, NVTX in
// this build, the device's name.
#ifndef GRAPHPROF_TOOLS_PROFILING_OPTIONS_H_
#define GRAPHPROF_TOOLS_PROFILING_OPTIONS_H_

#include "absl/status/status.h"
#include "tools/cli_options.h"

namespace graphprof::cli {

// InvalidArgument with one sentence naming the flag.
absl::Status Validate(const CliOptions& options);

}  // namespace graphprof::cli

#endif  // GRAPHPROF_TOOLS_PROFILING_OPTIONS_H_
