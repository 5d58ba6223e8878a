#include "tools/workers.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <algorithm>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

#include "absl/flags/commandlineflag.h"
#include "absl/flags/reflection.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "common/interrupt.h"
#include "profilers/report/merge.h"
#include "profilers/report/report_json.h"
#include "ir/loader.h"
#include "tools/cli_option_names.h"
#include "tools/progress.h"

extern char** environ;

namespace graphprof::cli {
namespace {

// Flags a worker must not get: its outputs and renderings are the parent's.
const std::set<std::string>& ParentOnlyFlags() {
  static const auto* flags = new std::set<std::string>{
      "workers", "output", "trace", "html", "annotate", "format", "compare", "progress", "group_by", "sort",
      "top", "modules", "worker_dir"};
  return *flags;
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string LastLine(const std::string& text) {
  std::vector<absl::string_view> lines = absl::StrSplit(text, '\n', absl::SkipWhitespace());
  return lines.empty() ? "" : std::string(lines.back());
}

// A temporary directory for the workers' reports, removed with its files
// and folders however RunWorkers returns (a failing worker included).
class WorkDir {
 public:
  WorkDir() {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = absl::StrCat(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp", "/graphprof-workers.XXXXXX");
    if (mkdtemp(pattern.data()) != nullptr) path_ = pattern;
  }
  ~WorkDir() {
    if (path_.empty()) return;
    for (const std::string& file : files_) std::remove(file.c_str());
    for (auto dir = dirs_.rbegin(); dir != dirs_.rend(); ++dir) rmdir(dir->c_str());
    rmdir(path_.c_str());
  }
  const std::string& path() const { return path_; }
  std::string File(const std::string& name) {
    files_.push_back(absl::StrCat(path_, "/", name));
    return files_.back();
  }
  // Makes folder `name` inside, removed with the rest.
  absl::StatusOr<std::string> Dir(const std::string& name) {
    std::string dir = absl::StrCat(path_, "/", name);
    if (mkdir(dir.c_str(), 0700) != 0) {
      return absl::InternalError(absl::StrCat("cannot make ", dir, ": ", std::strerror(errno)));
    }
    dirs_.push_back(dir);
    return dir;
  }

 private:
  std::string path_;
  std::vector<std::string> files_;
  std::vector<std::string> dirs_;
};

struct Exit {
  int code = -1;
  int signal = 0;
};

// Starts a worker and waits for it, calling `waiting` every few
// milliseconds meanwhile.
absl::StatusOr<Exit> Spawn(const std::string& executable, const std::vector<std::string>& args,
                           const std::string& err_path, const std::function<void()>& waiting) {
  std::vector<char*> argv;
  std::vector<std::string> copy = args;
  for (std::string& a : copy) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  pid_t pid = 0;
  const int started = posix_spawn(&pid, executable.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (started != 0) {
    return absl::UnavailableError(absl::StrCat("cannot start a worker (", executable, "): ", std::strerror(started)));
  }
  SetChildProcess(pid);
  int status = 0;
  pid_t waited;
  for (;;) {
    waited = waitpid(pid, &status, WNOHANG);
    if (waited < 0 && errno == EINTR) continue;
    if (waited != 0) break;
    waiting();
    usleep(20 * 1000);
  }
  SetChildProcess(0);
  Exit exit;
  if (waited < 0) return absl::InternalError(absl::StrCat("waiting for a worker: ", std::strerror(errno)));
  if (WIFEXITED(status)) exit.code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) exit.signal = WTERMSIG(status);
  return exit;
}

absl::StatusOr<Report> ReadWorkerReport(const std::string& path, int worker) {
  absl::StatusOr<Report> report = ReadReportFile(path);
  if (absl::IsNotFound(report.status())) {
    return absl::InternalError(absl::StrCat("worker ", worker, " wrote no report: ", report.status().message()));
  }
  if (!report.ok()) return absl::InternalError(absl::StrCat("worker ", worker, "'s report: ", report.status().message()));
  return report;
}

// --runs=auto: each worker stopped on its own; its note ("--runs=auto: 60
// timed runs, stopped when ...") is about its runs, not the merged report's.
// Each worker's line is taken out of its report and the merged report gets
// one note listing them all.
class AutoNotes {
 public:
  void Take(Report& report, int worker) {
    for (auto it = report.notes.begin(); it != report.notes.end();) {
      if (absl::StartsWith(*it, kPrefix)) {
        lines_.push_back(absl::StrCat("worker ", worker, ":", it->substr(sizeof(kPrefix) - 1)));
        it = report.notes.erase(it);
      } else {
        ++it;
      }
    }
  }
  void Put(Report& merged) const {
    if (!lines_.empty()) merged.notes.push_back(absl::StrCat("--runs=auto in each worker: ", absl::StrJoin(lines_, "; ")));
  }

 private:
  static constexpr char kPrefix[] = "--runs=auto:";
  std::vector<std::string> lines_;
};

}  // namespace

WorkerPlan GivenWorkers(const CliOptions& options) {
  WorkerPlan plan;
  plan.processes = options.workers;
  return plan;
}

std::vector<std::string> WorkerArguments(const std::vector<std::string>& argv, const std::string& dir,
                                         const WorkerPlan& plan) {
  std::set<std::string> removed(plan.drop.begin(), plan.drop.end());
  for (const std::string& flag : plan.flags) {
    absl::string_view body = absl::StripPrefix(flag, "--");
    removed.insert(std::string(body.substr(0, body.find('='))));
  }
  std::vector<std::string> out;
  if (!argv.empty()) out.push_back(argv[0]);
  bool flags_done = false;
  for (size_t i = 1; i < argv.size(); ++i) {
    const std::string& arg = argv[i];
    if (flags_done || arg.size() < 2 || arg[0] != '-') {
      out.push_back(arg);
      continue;
    }
    if (arg == "--") {
      flags_done = true;
      out.push_back(arg);
      continue;
    }
    absl::string_view body = absl::StripPrefix(absl::StripPrefix(arg, "-"), "-");
    const size_t eq = body.find('=');
    std::string name(body.substr(0, eq));
    const bool has_value = eq != absl::string_view::npos;
    const absl::CommandLineFlag* flag = absl::FindCommandLineFlag(name);
    bool negated = false;
    if (flag == nullptr && absl::StartsWith(name, "no")) {
      flag = absl::FindCommandLineFlag(name.substr(2));
      negated = flag != nullptr;
      if (negated) name = name.substr(2);
    }
    // --flag value: the value is the next argument (not for bools).
    const bool takes_next = !has_value && !negated && flag != nullptr && !flag->IsOfType<bool>();
    if (ParentOnlyFlags().count(name) > 0 || removed.count(name) > 0) {
      if (takes_next) ++i;
      continue;
    }
    out.push_back(arg);
    if (takes_next && i + 1 < argv.size()) out.push_back(argv[++i]);
  }
  // After a "--": flags would be positional arguments there.
  auto at = flags_done ? std::find(out.begin(), out.end(), "--") : out.end();
  std::vector<std::string> added = plan.flags;
  added.push_back(absl::StrCat("--worker_dir=", dir));
  added.push_back("--noprogress");
  out.insert(at, added.begin(), added.end());
  return out;
}

absl::StatusOr<WorkerReports> RunWorkers(const CliOptions& options, const WorkerPlan& plan, std::FILE* err,
                                         const std::string& executable) {
  WorkDir dir;
  if (dir.path().empty()) return absl::InternalError(absl::StrCat("cannot make a directory for the workers: ", std::strerror(errno)));
  const bool ab = !options.ab.empty();
  ReportMerger a(CliOptionNames()), b(CliOptionNames());
  AutoNotes a_auto, b_auto;
  WorkerReports result;
  std::set<std::string> printed;  // stderr lines already shown
  const int n = plan.processes;
  Progress progress(err, options.progress && IsTerminal(err));
  for (int w = 1; w <= n; ++w) {
    const std::string sub = absl::StrCat("w", w);
    absl::StatusOr<std::string> made = dir.Dir(sub);
    if (!made.ok()) return made.status();
    const std::string& sub_path = *made;
    const std::string err_path = dir.File(absl::StrCat(sub, ".stderr"));
    const std::string report_path = dir.File(absl::StrCat(sub, "/", kWorkerReport));
    const std::string a_path = dir.File(absl::StrCat(sub, "/", kWorkerA));
    const std::string b_path = dir.File(absl::StrCat(sub, "/", kWorkerB));
    absl::StatusOr<Exit> exit = Spawn(executable, WorkerArguments(options.argv, sub_path, plan), err_path,
                                      [&] { progress.Processes(w, plan.look ? 0 : n); });
    progress.Finish();  // the worker's lines, or the failure, on a line of their own
    const std::string errors = Slurp(err_path);
    if (!exit.ok()) return exit.status();
    if (exit->signal != 0) {
      return absl::AbortedError(absl::StrCat("worker ", w, " of ", n, " was stopped by signal ",
                                             exit->signal, errors.empty() ? "" : ": ", LastLine(errors)));
    }
    if (exit->code != kExitOk && exit->code != kExitMismatch) {
      const std::string line = LastLine(errors);
      return absl::AbortedError(absl::StrCat("worker ", w, " of ", n, " failed (exit ", exit->code, ")",
                                             line.empty() ? "" : ": ",
                                             std::string(absl::StripPrefix(line, "profile_graph: "))));
    }
    result.mismatch = result.mismatch || exit->code == kExitMismatch;
    for (absl::string_view line : absl::StrSplit(errors, '\n', absl::SkipWhitespace())) {
      if (printed.insert(std::string(line)).second) std::fprintf(err, "%s\n", std::string(line).c_str());
    }
    const std::string name = absl::StrCat("worker ", w);
    if (ab) {
      absl::StatusOr<Report> ra = ReadWorkerReport(a_path, w);
      if (!ra.ok()) return ra.status();
      absl::StatusOr<Report> rb = ReadWorkerReport(b_path, w);
      if (!rb.ok()) return rb.status();
      a_auto.Take(*ra, w);
      b_auto.Take(*rb, w);
      if (absl::Status added = a.Add(*std::move(ra), name); !added.ok()) return added;
      if (absl::Status added = b.Add(*std::move(rb), name); !added.ok()) return added;
    } else {
      absl::StatusOr<Report> r = ReadWorkerReport(report_path, w);
      if (!r.ok()) return r.status();
      a_auto.Take(*r, w);
      if (absl::Status added = a.Add(*std::move(r), name); !added.ok()) return added;
    }
    result.processes = w;
    if (plan.look && w < n) {
      if (std::optional<std::string> stop = plan.look(a, w); stop.has_value()) {
        result.stop_reason = *std::move(stop);
        break;
      }
    }
  }
  absl::StatusOr<Report> merged = a.Finish();
  if (!merged.ok()) return merged.status();
  result.report = *std::move(merged);
  a_auto.Put(result.report);
  if (ab) {
    absl::StatusOr<Report> merged_b = b.Finish();
    if (!merged_b.ok()) return merged_b.status();
    result.b = *std::move(merged_b);
    b_auto.Put(*result.b);
  }
  return result;
}

}  // namespace graphprof::cli
