#include "tools/trace_pattern.h"

#include "absl/strings/str_cat.h"
#include "common/path_pattern.h"

namespace graphprof::cli {

std::string ModelNameForFiles(const CliOptions& options) {
  if (!options.model.empty()) return FileSafeName(options.model);
  if (!options.ir.empty()) return FileSafeName(options.ir);
  return FileSafeName(options.zoo.empty() ? "resnet18" : options.zoo);
}

absl::Status ResolveTracePattern(CliOptions& options, std::time_t start, long pid) {
  if (!IsPathPattern(options.trace)) return absl::OkStatus();
  absl::StatusOr<std::string> path = ExpandPathPattern(options.trace, {ModelNameForFiles(options), start, pid});
  if (!path.ok()) return absl::Status(path.status().code(), absl::StrCat("--trace: ", path.status().message()));
  options.trace = *std::move(path);
  options.trace_is_new = true;
  return absl::OkStatus();
}

}  // namespace graphprof::cli
