// Writing output files so that readers never see a partial file: the content
// goes to a temporary file next to the target, which is then renamed over it.
#ifndef GRAPHPROF_COMMON_OUTPUT_FILE_H_
#define GRAPHPROF_COMMON_OUTPUT_FILE_H_

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace graphprof {

// On failure nothing is left behind and the target is untouched; the message
// names the path ("cannot write out/report.json: No such file or directory").
absl::Status WriteFileAtomically(const std::string& path, absl::string_view contents);

// Fails early, without creating anything, if `path` could not be written:
// its directory does not exist or is not writable, or it is a directory.
absl::Status CheckWritable(const std::string& path);

}  // namespace graphprof

#endif  // GRAPHPROF_COMMON_OUTPUT_FILE_H_
