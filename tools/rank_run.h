// profile_graph as one rank of a torch.distributed program (started by
// torchrun, or one process per rank with RANK, WORLD_SIZE, MASTER_ADDR and
// MASTER_PORT set; profilers/session/ranks.h): every rank profiles its
// program with the same flags, the ranks meeting at a barrier before each
// run, then rank 0 gathers the ranks' reports through the group's store,
// merges them (each run source naming its rank and world size) and writes
// the outputs; the other ranks write nothing. docs/distributed.md.
#ifndef GRAPHPROF_TOOLS_RANK_RUN_H_
#define GRAPHPROF_TOOLS_RANK_RUN_H_

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "profilers/report/report.h"
#include "profilers/session/ranks.h"
#include "sources/model_source.h"
#include "tools/cli_options.h"

namespace graphprof::cli {

// The rank this process is, joined to its group; null when the environment
// names no rank (WORLD_SIZE unset) or this is a --workers worker. Fails (one
// line) for malformed variables, flags a rank cannot run with (check, --ab,
// --compare, --compare_model, --runs=auto, --workers, --trace: each rank
// must run the same fixed steps in one process), or a group not joined.
absl::StatusOr<std::unique_ptr<RankGroup>> JoinRanksIfAny(const CliOptions& options);

// Rank 0: every rank's report (its own is `mine`), merged, each run source
// with its rank and its first timed run's trace events (the page's lanes).
// Other ranks: `mine` sent to rank 0 (of its events, the first run's only),
// and nullopt.
absl::StatusOr<std::optional<Report>> GatherRankReports(RankGroup& group, Report mine);

// A graph calling c10d functional collectives runs as a rank: the process
// group its nodes name is registered over the ranks first (`ranks` null:
// FailedPrecondition, one line saying how to run it, not the first run's
// "Could not resolve the process group"). OK for a graph without
// collectives and for compiled programs.
absl::Status PrepareCollectives(const ModelSource& source, RankGroup* ranks);

// Ends this rank's group membership after `code`: a failure is told to the
// other ranks (their waits end with this rank's line), then `code`.
int EndRank(RankGroup* group, int code);

}  // namespace graphprof::cli

#endif  // GRAPHPROF_TOOLS_RANK_RUN_H_
