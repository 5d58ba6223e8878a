// Turning LibTorch exceptions into absl::Status with one-line, human messages.
//
// LibTorch reports errors by throwing c10::Error (and subclasses) whose what()
// carries a C++ backtrace and, for TorchScript, a multi-line interpreter
// traceback. graphprof's API never lets an exception escape: every boundary
// catches and converts with these helpers.
#ifndef GRAPHPROF_COMMON_STATUS_UTIL_H_
#define GRAPHPROF_COMMON_STATUS_UTIL_H_

#include <exception>
#include <string>
#include "absl/strings/string_view.h"

#include "absl/status/status.h"

namespace graphprof {

// The most informative single line of an exception message: c10::Error
// backtraces are dropped, TorchScript tracebacks are reduced to the final
// "Error: message" line, whitespace is collapsed.
std::string OneLineMessage(absl::string_view message);

// The message of `e` without LibTorch's backtrace, as one line.
std::string ExceptionMessage(const std::exception& e);

// Status with `code` and "<context>: <one-line message of e>".
absl::Status StatusFromException(absl::StatusCode code, absl::string_view context,
                                 const std::exception& e);

// Prefixes the message of a non-OK status with "<context>: ".
absl::Status Annotate(const absl::Status& status, absl::string_view context);

}  // namespace graphprof

#endif  // GRAPHPROF_COMMON_STATUS_UTIL_H_
