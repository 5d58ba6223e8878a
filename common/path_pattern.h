// Output file names from a pattern, so that repeated experiments keep every
// file instead of overwriting one (torch_geometric.profile's
// rename_profile_file, done before the file is written):
//
//   profile-{model}-{date}.json   ->  profile-resnet18-20250301-142507.json
//   traces/{model}-{n}.json       ->  traces/resnet18-0.json, then -1, -2, ...
//
// Placeholders:
//   {model}  the model's name, file-safe (see FileSafeName)
//   {date}   when the run started, UTC: yyyymmdd-hhmmss
//   {pid}    the process id
//   {n}      the first number 0, 1, 2, ... that makes the name free
// A '{' always starts a placeholder: an unknown one, or one not closed, is
// an error naming it. A pattern never names an existing file: without {n},
// a taken name gets "-1", "-2", ... before its extension (NumberedPath).
// Patterns may name directories too; those must exist.
#ifndef GRAPHPROF_COMMON_PATH_PATTERN_H_
#define GRAPHPROF_COMMON_PATH_PATTERN_H_

#include <ctime>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace graphprof {

// True when `path` has a '{' (is a pattern rather than a file name).
bool IsPathPattern(absl::string_view path);

struct PathPatternValues {
  std::string model;      // FileSafeName applied when expanding
  std::time_t start = 0;  // for {date}
  long pid = 0;
};

// InvalidArgument for an unknown or unclosed placeholder (one line, naming
// it and listing the known ones); ResourceExhausted when no free name is
// found among the first 100000 numbers.
absl::StatusOr<std::string> ExpandPathPattern(absl::string_view pattern, const PathPatternValues& values);

// Only the syntax: what ExpandPathPattern would refuse before looking at files.
absl::Status CheckPathPattern(absl::string_view pattern);

// "dir/trace.json", 2 -> "dir/trace-2.json"; no extension: "dir/trace-2".
// A leading dot does not start an extension (".trace" -> ".trace-2").
std::string NumberedPath(absl::string_view path, int n);

// The first of path, NumberedPath(path, 1), NumberedPath(path, 2), ... that
// names nothing (a dangling symlink names something); ResourceExhausted
// after 100000 tries.
absl::StatusOr<std::string> FirstFreePath(const std::string& path);

// A name for file names: the last path component without its extension,
// characters other than letters, digits, '.', '_' and '-' replaced by '-'
// ("zoo:resnet18" -> "zoo-resnet18", "models/m.pt" -> "m"); "model" if
// nothing is left.
std::string FileSafeName(absl::string_view name);

}  // namespace graphprof

#endif  // GRAPHPROF_COMMON_PATH_PATTERN_H_
