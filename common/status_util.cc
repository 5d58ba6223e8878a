#include "common/status_util.h"

#include <c10/util/Exception.h>

#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace graphprof {
namespace {

bool IsBacktraceLine(absl::string_view line) {
  // c10 backtrace frames look like "frame #3: ..." or "Exception raised from ...".
  return absl::StartsWith(line, "frame #") ||
         absl::StartsWith(line, "Exception raised from");
}

}  // namespace

std::string OneLineMessage(absl::string_view message) {
  std::vector<absl::string_view> lines;
  for (absl::string_view line : absl::StrSplit(message, '\n')) {
    line = absl::StripAsciiWhitespace(line);
    if (line.empty()) continue;
    if (IsBacktraceLine(line)) break;
    lines.push_back(line);
  }
  if (lines.empty()) return "unknown error";
  // A TorchScript interpreter traceback ends with the real error, e.g.
  // "RuntimeError: expected 2-D input"; everything else puts it first.
  if (lines.size() > 1 && absl::StartsWith(lines.front(), "The following operation failed")) {
    return std::string(lines.back());
  }
  return std::string(lines.front());
}

std::string ExceptionMessage(const std::exception& e) {
  if (const auto* c10_error = dynamic_cast<const c10::Error*>(&e)) {
    return OneLineMessage(c10_error->what_without_backtrace());
  }
  return OneLineMessage(e.what());
}

absl::Status StatusFromException(absl::StatusCode code, absl::string_view context,
                                 const std::exception& e) {
  return absl::Status(code, absl::StrCat(context, ": ", ExceptionMessage(e)));
}

absl::Status Annotate(const absl::Status& status, absl::string_view context) {
  if (status.ok()) return status;
  return absl::Status(status.code(), absl::StrCat(context, ": ", status.message()));
}

}  // namespace graphprof
