#include "tools/merge_command.h"

#include <condition_variable>
#include <mutex>
#include <new>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/terminal_text.h"
#include "ir/loader.h"
#include "profilers/report/merge.h"
#include "profilers/report/report_json.h"
#include "tools/report_output.h"

namespace graphprof::cli {
namespace {

// One merge input read and parsed into `buffer` (reused: no fresh 10 MB
// buffer, and no page faults, per report). Errors name the file.
absl::StatusOr<Report> ReadMergeInput(const std::string& path, std::string& buffer) {
  if (absl::Status read = ReadFileInto(path, buffer); !read.ok()) return read;
  absl::StatusOr<Report> report = ReportFromJson(buffer);
  if (!report.ok()) return absl::Status(report.status().code(), absl::StrCat(path, ": ", report.status().message()));
  return report;
}

// Reads merge inputs in order on two threads: the caller's reads the even
// ones, a helper the odd ones, at most one ahead of the merge (so at most two
// parsed reports exist besides the merged one). Reading and parsing are
// nearly all of a merge's time, and the reports are independent.
class MergeInputs {
 public:
  explicit MergeInputs(const std::vector<std::string>& paths) : paths_(paths), ready_(paths.size()) {
    if (paths_.size() > 1 && std::thread::hardware_concurrency() > 1) {
      helper_ = std::thread([this] { ReadOdd(); });
    }
  }
  ~MergeInputs() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    if (helper_.joinable()) helper_.join();
  }

  // The i-th report, i = 0, 1, ... in order; Consumed(i) once it is merged.
  absl::StatusOr<Report> Take(size_t i) {
    if (!helper_.joinable() || i % 2 == 0) return ReadMergeInput(paths_[i], buffer_);
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return ready_[i].has_value(); });
    absl::StatusOr<Report> report = *std::move(ready_[i]);
    ready_[i].reset();
    return report;
  }
  void Consumed(size_t i) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      consumed_ = i + 1;
    }
    cv_.notify_all();
  }

 private:
  void ReadOdd() {
    std::string buffer;
    for (size_t i = 1; i < paths_.size(); i += 2) {
      {
        // Starts report i while the caller reads i - 1.
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, [&] { return stop_ || consumed_ + 1 >= i; });
        if (stop_) return;
      }
      absl::StatusOr<Report> report = absl::InternalError("not read");
      try {
        report = ReadMergeInput(paths_[i], buffer);
      } catch (const std::bad_alloc&) {
        report = absl::ResourceExhaustedError(absl::StrCat(paths_[i], ": out of memory reading the report"));
      }
      {
        std::lock_guard<std::mutex> lock(mu_);
        ready_[i] = std::move(report);
      }
      cv_.notify_all();
    }
  }

  const std::vector<std::string>& paths_;
  std::string buffer_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::optional<absl::StatusOr<Report>>> ready_;
  size_t consumed_ = 0;
  bool stop_ = false;
  std::thread helper_;
};

}  // namespace

int RunMerge(const CliOptions& options, std::FILE* out, std::FILE* err) {
  if (absl::Status valid = Validate(options); !valid.ok()) return Fail(err, kExitUsage, valid);
  if (int code = CheckOutputs(options, err); code != kExitOk) return code;
  ReportMerger merger;
  merger.Expect(static_cast<int>(options.merge.size()));
  MergeInputs inputs(options.merge);
  for (size_t i = 0; i < options.merge.size(); ++i) {
    const std::string& path = options.merge[i];
    absl::StatusOr<Report> report = inputs.Take(i);
    if (!report.ok()) return Fail(err, kExitFailure, report.status());
    const size_t slash = path.rfind('/');
    const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
    if (absl::Status added = merger.Add(*std::move(report), name); !added.ok()) return Fail(err, kExitFailure, added);
    inputs.Consumed(i);
  }
  for (const std::string& warning : merger.warnings()) {
    std::fprintf(err, "profile_graph: warning: merge: %s\n", EscapeForTerminal(warning).c_str());
  }
  absl::StatusOr<Report> merged = merger.Finish();
  if (!merged.ok()) return Fail(err, kExitFailure, merged.status());
  absl::StatusOr<MainOutput> main = ReportOutput(*merged, options);
  if (!main.ok()) return Fail(err, kExitUsage, main.status());
  CliOptions files_only;  // no trace or annotation for merged reports
  files_only.output = options.output;
  files_only.html = options.html;
  return WriteOutputs(files_only, *merged, *std::move(main), out, err);
}

}  // namespace graphprof::cli
