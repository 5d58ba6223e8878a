#include "tools/process_plan.h"

#include <algorithm>
#include <cmath>
#include <memory>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace graphprof::cli {
namespace {

// What keeps the profile in one process whatever it is: flags that observe
// one process, and --workers given (0 or K) or this being a worker.
bool OneProcessAsked(const CliOptions& o) {
  return o.Given("workers") || !o.worker_dir.empty() || !o.trace.empty() || o.nvtx || o.nvtx_iters > 0 ||
         o.cuda_profile;
}

std::string RunsFlag(int runs) { return absl::StrCat("--runs=", runs); }

int Spread(int runs, int processes) { return std::max(kLeastRunsPerProcess, (runs + processes - 1) / processes); }

std::optional<ProcessChoice> SavedReport(const CliOptions& o) {
  if (o.check || !o.ab.empty() || !o.compare.empty() || !o.compare_model.empty()) return std::nullopt;
  // --html shows one process's timeline beside the report; a check's page
  // (the diff) has none, and follows its baseline below.
  if (o.format != Format::kJson || o.output.empty() || !o.html.empty()) return std::nullopt;
  // Fewer runs than two a process: as few processes as give two each.
  const int processes = o.runs_auto ? kDefaultProcesses : std::min(kDefaultProcesses, o.runs / kLeastRunsPerProcess);
  if (processes < 2) return std::nullopt;
  ProcessChoice choice;
  choice.plan.processes = processes;
  if (o.runs_auto) {
    choice.plan.flags.push_back(absl::StrFormat("--max_time=%g", o.max_time / processes));
    choice.note = absl::StrCat("profiled in ", processes, " processes, one after another, each with --runs=auto for 1/",
                               processes, " of --max_time");
  } else {
    const int each = Spread(o.runs, processes);
    choice.plan.flags.push_back(RunsFlag(each));
    choice.note = absl::StrCat("profiled in ", processes, " processes, one after another, ", each, " timed runs each");
  }
  absl::StrAppend(&choice.note, ": a report saved as JSON is timed in several processes, so that comparisons with "
                                "it count what processes differ by (--workers=0: in one process)");
  return choice;
}

std::optional<ProcessChoice> CheckAgainstProcesses(const CliOptions& o, const Report& base, SequentialGate* gate) {
  const int k = std::min<int>(static_cast<int>(base.run_sources.size()), kMaxWorkers);
  if (k < 2) return std::nullopt;
  ProcessChoice choice;
  if (!o.runs_auto || gate == nullptr) {
    const int each = Spread(o.runs, k);
    choice.plan.processes = k;
    choice.plan.flags.push_back(RunsFlag(each));
    choice.note = absl::StrCat("profiled in ", k, " processes, one after another, ", each,
                               " timed runs each, as the baseline's ", k, " processes");
    return choice;
  }
  const int each = std::max(kLeastRunsPerProcess, static_cast<int>(std::lround(static_cast<double>(base.runs) / k)));
  choice.sequential = true;
  gate->TimedInProcesses(kMostCheckProcesses);
  choice.plan.processes = kMostCheckProcesses;
  choice.plan.flags.push_back(RunsFlag(each));
  choice.plan.drop.push_back("max_time");  // a worker's runs are fixed
  const double budget = o.max_time;
  auto started = std::make_shared<double>(SecondsSinceStart());
  choice.plan.look = [gate, budget, started, each](const ReportMerger& merged,
                                                   int workers) -> std::optional<std::string> {
    if (IsProcessLook(workers)) {
      absl::StatusOr<Report> so_far = merged.SoFar();  // never empty here: `workers` were merged
      if (so_far.ok()) {
        if (std::optional<std::string> stop = gate->Look(*so_far); stop.has_value()) return stop;
      }
    }
    const double now = SecondsSinceStart();
    const double per_process = (now - *started) / workers;
    if (now + per_process > budget) {
      return absl::StrFormat("--max_time=%g s: the next process would end past it (%d processes of %d runs, %.1f s each)",
                             budget, workers, each, per_process);
    }
    return std::nullopt;
  };
  choice.note = absl::StrCat("profiled in processes one after another, ", each,
                             " timed runs each (the baseline's per process), until the gate's verdict");
  return choice;
}

}  // namespace

std::optional<ProcessChoice> ChooseProcesses(const CliOptions& options, const std::optional<Report>& base,
                                             SequentialGate* gate) {
  if (OneProcessAsked(options)) return std::nullopt;
  if (options.check) return base.has_value() ? CheckAgainstProcesses(options, *base, gate) : std::nullopt;
  return SavedReport(options);
}

}  // namespace graphprof::cli
