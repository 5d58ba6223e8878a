// Starting profile_graph as the ranks of a torch.distributed program in
// tests: one process per rank with RANK, WORLD_SIZE, MASTER_ADDR and
// MASTER_PORT set (as torchrun sets them), waited for with a limit, or
// killed.
#ifndef GRAPHPROF_TESTS_RANK_PROCESSES_H_
#define GRAPHPROF_TESTS_RANK_PROCESSES_H_

#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

#include "tests/cli_test_util.h"

namespace graphprof::testing {

// A loopback port free now (the kernel's choice for a socket bound to 0).
int FreePort();

// Starts `argv` (argv[0] a path in the runfiles or absolute) with this
// process's environment plus `env` ("NAME=value"), stdout and stderr to
// files; -1 when it cannot start.
pid_t SpawnWith(std::vector<std::string> argv, const std::vector<std::string>& env, const std::string& out,
                const std::string& err);

struct RankProcess {
  pid_t pid = -1;
  std::string out_path, err_path;
  Result result;
  double seconds = 0;  // from the group's start to this rank's exit
};

// The ranks of one group: tools/profile_graph with `args`, then `extra[r]`
// for rank r, and the rank variables.
class RankProcesses {
 public:
  RankProcesses(int world_size, const std::vector<std::string>& args,
                const std::vector<std::vector<std::string>>& extra = {});
  ~RankProcesses();  // kills what still runs

  void Kill(int rank);
  // Waits for every rank, each at most `limit` seconds from the start (then
  // killed, and a test failure).
  std::vector<RankProcess>& Wait(double limit = 300);

 private:
  std::chrono::steady_clock::time_point start_;
  std::vector<RankProcess> ranks_;
};

}  // namespace graphprof::testing

#endif  // GRAPHPROF_TESTS_RANK_PROCESSES_H_
