#include "tools/rank_run.h"

#include <algorithm>
#include <chrono>
#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/status_util.h"
#include "ir/collective_groups.h"
#include "profilers/report/merge.h"
#include "profilers/report/report_json.h"

namespace graphprof::cli {
namespace {

// What a rank cannot run with: every rank must take the same fixed steps,
// in this process.
absl::Status CheckRankOptions(const CliOptions& o, const RankEnvironment& env) {
  const std::string rank = absl::StrCat("rank ", env.rank, " of ", env.world_size, " (WORLD_SIZE is set)");
  if (o.check || !o.ab.empty() || !o.compare.empty() || !o.compare_model.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        rank, ": ranks profile one program together: not with check, --ab, --compare or --compare_model (merge "
              "or check the merged report they write)"));
  }
  if (o.runs_auto) {
    return absl::InvalidArgumentError(
        absl::StrCat(rank, ": --runs=auto: every rank must run the same steps: give a fixed --runs"));
  }
  if (o.workers > 0) {
    return absl::InvalidArgumentError(absl::StrCat(rank, ": --workers: each rank is one process: not with --workers"));
  }
  if (!o.trace.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(rank, ": --trace records one process's runs: not with ranks (yet)"));
  }
  if (!(o.rank_timeout > 0)) return absl::InvalidArgumentError("--rank_timeout must be above 0 seconds");
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<RankGroup>> JoinRanksIfAny(const CliOptions& options) {
  if (!options.worker_dir.empty()) return nullptr;  // a worker of one rank's own --workers
  absl::StatusOr<std::optional<RankEnvironment>> env = ReadRankEnvironment();
  if (!env.ok()) return env.status();
  if (!env->has_value()) return nullptr;
  if (absl::Status usable = CheckRankOptions(options, **env); !usable.ok()) return usable;
  const auto timeout = std::chrono::milliseconds(static_cast<int64_t>(options.rank_timeout * 1000));
  absl::StatusOr<std::unique_ptr<RankGroup>> group = RankGroup::Join(**env, timeout);
  if (!group.ok()) return group.status();
  // Every rank has joined before anything is loaded: a rank that cannot
  // start says so here, not at the first run.
  if (absl::Status met = (*group)->Barrier("joined"); !met.ok()) return met;
  return group;
}

absl::StatusOr<std::optional<Report>> GatherRankReports(RankGroup& group, Report mine) {
  mine.rank = group.rank();
  mine.world_size = group.world_size();
  if (group.world_size() == 1) return std::optional<Report>(std::move(mine));  // nothing to merge
  // The merge keeps the first timed run's events (a lane of the page's
  // timeline: merge.h); the others need not travel.
  mine.events.erase(std::remove_if(mine.events.begin(), mine.events.end(), [](const TraceEvent& e) { return e.run != 0; }),
                    mine.events.end());
  absl::StatusOr<std::vector<std::string>> all = group.GatherOnRoot("report", ReportToJson(mine));
  if (!all.ok()) return all.status();
  if (group.rank() != 0) return std::optional<Report>();
  ReportMerger merger;
  merger.Expect(group.world_size());
  for (size_t r = 0; r < all->size(); ++r) {
    absl::StatusOr<Report> report = ReportFromJson((*all)[r]);
    if (!report.ok()) return Annotate(report.status(), absl::StrCat("rank ", r, "'s report"));
    (*all)[r].clear();
    (*all)[r].shrink_to_fit();
    if (absl::Status added = merger.Add(*std::move(report), absl::StrCat("rank ", r)); !added.ok()) return added;
  }
  absl::StatusOr<Report> merged = merger.Finish();
  if (!merged.ok()) return merged.status();
  merged->notes.push_back(absl::StrCat(group.world_size(), " ranks of one torch.distributed program, meeting before "
                                       "every run (run k of every rank is the same step); a straggler is a rank "
                                       "slower than the others run by run (docs/distributed.md)"));
  for (const std::string& warning : merger.warnings()) merged->notes.push_back(absl::StrCat("merge: ", warning));
  return std::optional<Report>(*std::move(merged));
}

absl::Status PrepareCollectives(const ModelSource& source, RankGroup* ranks) {
  if (source.compiled() != nullptr || source.prepared().graph == nullptr) return absl::OkStatus();
  const std::vector<std::string> names = CollectiveGroupNames(*source.prepared().graph);
  if (names.empty()) return absl::OkStatus();
  if (ranks == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat(source.name(), " calls collectives of process group '", names.front(),
                     "': run it as the ranks of a torch.distributed program (torchrun --nproc-per-node=N "
                     "--no-python profile_graph ..., or WORLD_SIZE=1 RANK=0 for one rank; docs/distributed.md)"));
  }
  return ranks->RegisterProcessGroups(names);
}

int EndRank(RankGroup* group, int code) {
  if (group != nullptr && code != 0) {
    group->Fail(absl::StrCat("it ended with exit code ", code, " (its own line says why)"));
  }
  return code;
}

}  // namespace graphprof::cli
