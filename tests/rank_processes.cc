#include "tests/rank_processes.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <thread>

#include "absl/strings/str_cat.h"
#include "tests/test_util.h"

extern char** environ;

namespace graphprof::testing {

int FreePort() {
  const int s = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t size = sizeof(addr);
  int port = 0;
  if (bind(s, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0 &&
      getsockname(s, reinterpret_cast<sockaddr*>(&addr), &size) == 0) {
    port = ntohs(addr.sin_port);
  }
  close(s);
  EXPECT_GT(port, 0) << "no free port";
  return port;
}

pid_t SpawnWith(std::vector<std::string> args, const std::vector<std::string>& extra_env, const std::string& out,
                const std::string& err) {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) env.emplace_back(*e);
  env.insert(env.end(), extra_env.begin(), extra_env.end());
  std::vector<char*> argv, envp;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  for (std::string& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid = -1;
  if (posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), envp.data()) != 0) {
    ADD_FAILURE() << "cannot start " << args[0];
    pid = -1;
  }
  posix_spawn_file_actions_destroy(&actions);
  return pid;
}

RankProcesses::RankProcesses(int world_size, const std::vector<std::string>& args,
                             const std::vector<std::vector<std::string>>& extra)
    : start_(std::chrono::steady_clock::now()) {
  static int groups = 0;
  const std::string dir = TempDir(absl::StrCat("ranks", groups++));
  const int port = FreePort();
  for (int r = 0; r < world_size; ++r) {
    RankProcess rank;
    rank.out_path = absl::StrCat(dir, "/out", r);
    rank.err_path = absl::StrCat(dir, "/err", r);
    std::vector<std::string> argv = {"tools/profile_graph"};
    argv.insert(argv.end(), args.begin(), args.end());
    if (r < static_cast<int>(extra.size())) argv.insert(argv.end(), extra[r].begin(), extra[r].end());
    rank.pid = SpawnWith(argv,
                         {absl::StrCat("RANK=", r), absl::StrCat("WORLD_SIZE=", world_size), "MASTER_ADDR=127.0.0.1",
                          absl::StrCat("MASTER_PORT=", port)},
                         rank.out_path, rank.err_path);
    ranks_.push_back(rank);
  }
}

RankProcesses::~RankProcesses() {
  for (RankProcess& r : ranks_) {
    if (r.pid > 0) {
      kill(r.pid, SIGKILL);
      waitpid(r.pid, nullptr, 0);
    }
  }
}

void RankProcesses::Kill(int rank) { kill(ranks_[rank].pid, SIGKILL); }

std::vector<RankProcess>& RankProcesses::Wait(double limit) {
  for (RankProcess& r : ranks_) {
    if (r.pid <= 0) continue;
    int status = 0;
    bool killed = false;
    while (true) {
      const pid_t done = waitpid(r.pid, &status, WNOHANG);
      r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
      if (done == r.pid) break;
      if (r.seconds > limit && !killed) {
        ADD_FAILURE() << "a rank still runs after " << limit << " s";
        kill(r.pid, SIGKILL);
        killed = true;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    r.pid = -1;
    r.result.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    r.result.out = Slurp(r.out_path);
    r.result.err = Slurp(r.err_path);
  }
  return ranks_;
}

}  // namespace graphprof::testing
