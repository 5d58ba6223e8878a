#include "tools/merge_command.h"

#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/terminal_text.h"
#include "profilers/report/merge.h"
#include "profilers/report/report_json.h"
#include "tools/cli_option_names.h"
#include "tools/report_output.h"

namespace graphprof::cli {
namespace {


// Reads merge inputs on two threads, the caller's and a helper, handed out
// in order to the caller: each thread parses the next report nobody has
// taken yet, at most kAhead beyond the last one merged (so at most kAhead + 1
// parsed reports exist besides the merged one). The caller parses while the
// report it needs next is not ready, and merges the reports in order; so
// both cores parse all the time, and the caller's merging is balanced by
// the helper parsing more (before, each thread parsed every other report and
// the caller, which also merges, was the bottleneck). Reading and parsing
// are most of a merge's time, and the reports are independent.
class MergeInputs {
 public:
  explicit MergeInputs(const std::vector<std::string>& paths) : paths_(paths), ready_(paths.size()) {
    if (paths_.size() > 1 && std::thread::hardware_concurrency() > 1) helper_ = std::thread([this] { Help(); });
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
    std::unique_lock<std::mutex> lock(mu_);
    while (!ready_[i].has_value()) {
      if (Claimable()) {
        ParseNext(lock, buffer_);
      } else {
        cv_.wait(lock);
      }
    }
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
  static constexpr size_t kAhead = 2;

  // Under mu_: a report nobody has taken, within kAhead of the merge.
  bool Claimable() const { return next_ < paths_.size() && next_ <= consumed_ + kAhead; }

  // Takes the next report and parses it with mu_ released.
  void ParseNext(std::unique_lock<std::mutex>& lock, std::string& buffer) {
    const size_t j = next_++;
    lock.unlock();
    absl::StatusOr<Report> report = ReadReportFile(paths_[j], buffer);
    lock.lock();
    ready_[j] = std::move(report);
    cv_.notify_all();
  }

  void Help() {
    std::string buffer;
    std::unique_lock<std::mutex> lock(mu_);
    while (true) {
      cv_.wait(lock, [&] { return stop_ || next_ >= paths_.size() || Claimable(); });
      if (stop_ || next_ >= paths_.size()) return;
      ParseNext(lock, buffer);
    }
  }

  const std::vector<std::string>& paths_;
  std::string buffer_;  // the caller's
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::optional<absl::StatusOr<Report>>> ready_;
  size_t next_ = 0;      // the first report nobody has taken
  size_t consumed_ = 0;  // reports merged
  bool stop_ = false;
  std::thread helper_;
};

}  // namespace

int RunMerge(const CliOptions& options, std::FILE* out, std::FILE* err) {
  if (absl::Status valid = ValidateCommon(options); !valid.ok()) return Fail(err, kExitUsage, valid);
  if (int code = CheckOutputs(options, err); code != kExitOk) return code;
  ReportMerger merger(CliOptionNames());
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
  const int code = WriteOutputs(files_only, *merged, *std::move(main), out, err);
  if (options.exit_when_done) {
    // The merged report and the merger are not freed: a 64-report merge of
    // a 10k-node graph holds ~100 MB in small blocks.
    std::fflush(out);
    std::fflush(err);
    std::_Exit(code);
  }
  return code;
}

}  // namespace graphprof::cli
