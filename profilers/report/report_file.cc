// ReadReportFile: the one way the CLI reads a report file (merge inputs,
// --compare / --baseline, check's two sides, workers' reports).
//
// The file is read with kJsonPadding spare bytes and parsed in place (no
// copy into simdjson's padded buffer). Read errors already name the path
// (common/read_file); parse errors get it prepended here. An allocation that
// fails (a report larger than memory) is ResourceExhausted, not a throw.
#include <new>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "common/read_file.h"
#include "profilers/report/report_json.h"

namespace graphprof {

absl::StatusOr<Report> ReadReportFile(const std::string& path, std::string& buffer) {
  try {
    if (absl::Status read = ReadFileInto(path, buffer, kJsonPadding); !read.ok()) return read;
    absl::StatusOr<Report> report = ReportFromPaddedJson(buffer);
    if (!report.ok()) return absl::Status(report.status().code(), absl::StrCat(path, ": ", report.status().message()));
    return report;
  } catch (const std::bad_alloc&) {
    return absl::ResourceExhaustedError(absl::StrCat(path, ": out of memory reading the report"));
  }
}

absl::StatusOr<Report> ReadReportFile(const std::string& path) {
  std::string buffer;
  return ReadReportFile(path, buffer);
}

}  // namespace graphprof
