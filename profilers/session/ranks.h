// One rank of a torch.distributed program: which rank this process is, as
// torchrun (or a user, by hand) tells it through the environment, and its
// group of ranks (c10d's TCPStore: rank 0 hosts it, as init_process_group's
// env:// rendezvous does), used for what profiling many ranks needs and
// nothing else: a barrier before each run (outside the timed region, so run
// k of every rank is the same step) and gathering every rank's report on
// rank 0 through the store (no shared file system).
//
// Failure is one line and never a hang: every wait ends after the group's
// timeout (a rank that died), or as soon as another rank has said it failed
// (Fail: the others then end with that rank's line), or when the store's
// host (rank 0) went away. Waits block on the store (no polling), so
// waiting ranks take no CPU from ranks still running.
//
// The variables, as torchrun sets them (docs/distributed.md):
//   RANK, WORLD_SIZE           required together; 0 <= RANK < WORLD_SIZE
//   MASTER_ADDR, MASTER_PORT   the store's address (MASTER_ADDR defaults to
//                              127.0.0.1 when WORLD_SIZE is 1)
//   TORCHELASTIC_USE_AGENT_STORE=True, TORCHELASTIC_RESTART_COUNT
//                              torchrun's own agent hosts the store: every
//                              rank is a client, its keys under
//                              /worker/attempt_<count>/ (as torch's
//                              _create_c10d_store does)
#ifndef GRAPHPROF_PROFILERS_SESSION_RANKS_H_
#define GRAPHPROF_PROFILERS_SESSION_RANKS_H_

#include <chrono>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace graphprof {

struct RankEnvironment {
  int rank = 0;
  int world_size = 1;
  std::string master_addr;
  int master_port = 0;
  // torchrun's agent hosts the store (TORCHELASTIC_USE_AGENT_STORE=True):
  // rank 0 connects as a client too, and keys live under `store_prefix`.
  bool agent_store = false;
  std::string store_prefix;
};

// The environment's rank, or nullopt when WORLD_SIZE is unset (not a rank).
// InvalidArgument, one line naming the variable, when the variables are
// partial or malformed. `getenv` is the environment (std::getenv by default).
absl::StatusOr<std::optional<RankEnvironment>> ReadRankEnvironment(
    const std::function<const char*(const char*)>& getenv = nullptr);

// How long a rank waits for the others, by default: at a barrier, for a
// report, to connect. Longer than any wait a living rank causes between two
// runs of one program; short enough that a rank that died ends the others
// within two minutes.
inline constexpr std::chrono::seconds kDefaultRankTimeout{90};

class RankGroup {
 public:
  // Joins the group: rank 0 hosts the store (unless torchrun's agent does)
  // and every rank connects, waiting at most `timeout` for the others.
  // Quiets c10's logging for the process (c10d logs its socket errors with
  // C++ backtraces; the group's failures are one line each, its own).
  static absl::StatusOr<std::unique_ptr<RankGroup>> Join(const RankEnvironment& env,
                                                         std::chrono::milliseconds timeout = kDefaultRankTimeout);
  ~RankGroup();

  int rank() const { return env_.rank; }
  int world_size() const { return env_.world_size; }
  const RankEnvironment& environment() const { return env_; }

  // Returns once every rank has entered its n-th barrier, as this one its
  // n-th (every rank calls Barrier in the same order; `name`, "run 3", is
  // for messages). Unavailable when a rank failed (its line) or the store
  // went away, DeadlineExceeded after the timeout, naming the ranks not
  // arrived.
  absl::Status Barrier(const std::string& name);
  // Every rank's `mine`, on rank 0 in rank order; an empty vector on the
  // others (which return once their value is stored). Every rank gathers in
  // the same order (`name` is for messages). Errors as Barrier's.
  absl::StatusOr<std::vector<std::string>> GatherOnRoot(const std::string& name, const std::string& mine);
  // Creates one process group of every rank (c10d gloo, on the group's
  // store; the group's timeout on every collective) and registers it under
  // each of `names`, as init_process_group registers the default group, so
  // that the graph's c10d functional collectives resolve them
  // (CollectiveGroupNames). Unimplemented, naming what is needed, where
  // LibTorch has no functional collectives or graphprof was built without
  // gloo's headers (the 1.13 build: docs/distributed.md).
  absl::Status RegisterProcessGroups(const std::vector<std::string>& names);
  // Tells the other ranks this one failed, with `line` (best effort: the
  // store may be gone), so their waits end with it instead of a timeout.
  void Fail(const std::string& line);

 private:
  RankGroup(RankEnvironment env, std::chrono::milliseconds timeout);
  // Waits for `key` (at most the timeout), then fails with a failed
  // rank's line if there is one.
  absl::Status WaitFor(const std::string& key, const std::string& what);
  std::string BarrierKey(int n) const;
  // Unavailable: the store went away (`when`: "at 'run 3'"), with `e`'s line.
  absl::Status LostStore(const std::string& when, const std::exception& e) const;

  RankEnvironment env_;
  std::chrono::milliseconds timeout_;
  struct Stores;
  std::unique_ptr<Stores> stores_;
  int barriers_ = 0;                  // barriers entered: the next one's number
  int gathers_ = 0;                   // gathers entered: the next one's number
};

}  // namespace graphprof

#endif  // GRAPHPROF_PROFILERS_SESSION_RANKS_H_
