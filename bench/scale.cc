// How graphprof scales with graph size: a chain of N tiny ops (x = x + 1).
//
//   ./bazelw run -c opt //bench:scale [-- --sizes=10000,100000,1000000 --runs=10]
//
// Part 1, in process, per size: the seconds of each phase (parse, prepare,
// plan, profile = inspection + timed runs, views + table, JSON, trace, HTML)
// and "outside", everything but the timed runs themselves. Load, plan and
// stats should grow linearly with N.
//
// Part 2, the CLI as a user runs it, on the 100k chain with --runs=10
// --format=json --trace: wall time, the time outside the timed runs, and
// peak RSS. The goal: outside <= 1 s + 10% of the timed runs, RSS < 1 GiB.
// Then the same with --html, and `profile_graph_full --help` (the cost of
// starting a process that loads LibTorch, part of every run's "outside").
//
// Part 3, merging 64 distinct reports of a 10k-node model (about 10 MB
// each), which the front does without LibTorch: wall time beside the
// front's start, peak RSS (goals: under 2 s in
// all, under 1 GiB) and the reader's parse rate in this process.
//
// The last line is
//   scale outside_s=<x> budget_s=<y> rss_mb=<z> html_mb=<h> merge_rss_mb=<m>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "bench/bench_util.h"
#include "profilers/toolbox/live_memory.h"
#include "interpreter/graph_plan.h"
#include "ir/loader.h"
#include "ir/prepared_graph.h"
#include "profilers/profiler.h"
#include "profilers/report/chrome_trace.h"
#include "profilers/report/html_report.h"
#include "profilers/report/report_json.h"
#include "profilers/report/text_report.h"
#include "profilers/report/views.h"

ABSL_FLAG(std::string, sizes, "10000,100000,1000000", "chain lengths for part 1");
ABSL_FLAG(int, runs, 10, "timed runs (part 1 uses 2 for sizes over 100k)");
ABSL_FLAG(std::string, tool, "tools/profile_graph", "the profile_graph binary (parts 2 and 3)");

namespace graphprof {
namespace {

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

std::string Chain(int n) {
  std::string ir = "graph(%x : Tensor):\n  %one : int = prim::Constant[value=1]()\n";
  ir.reserve(static_cast<size_t>(n) * 48);
  std::string previous = "x";
  for (int i = 0; i < n; ++i) {
    absl::StrAppend(&ir, "  %v", i, " : Tensor = aten::add(%", previous, ", %one, %one)\n");
    previous = absl::StrCat("v", i);
  }
  absl::StrAppend(&ir, "  return (%", previous, ")\n");
  return ir;
}

void InProcess(int n, int runs) {
  std::vector<std::pair<std::string, double>> phases;
  auto time = [&](const char* name, const std::function<void()>& fn) {
    const auto start = std::chrono::steady_clock::now();
    fn();
    phases.emplace_back(name, Seconds(start));
  };
  const std::string ir = Chain(n);
  std::shared_ptr<torch::jit::Graph> graph;
  PreparedGraph prepared;
  std::shared_ptr<const GraphPlan> plan;
  Report report;
  time("parse", [&] { graph = *ParseGraph(ir); });
  time("prepare", [&] { prepared = *PrepareGraph(*graph, "chain"); });
  time("plan", [&] { plan = *GraphPlan::Build(prepared); });
  time("profile", [&] {
    ProfileOptions options;
    options.warmup = 0;
    options.runs = runs;
    options.memory = true;
    report = *Profile(plan, {torch::ones({1})}, options);
  });
  time("views+table", [&] {
    for (GroupBy g : {GroupBy::kNode, GroupBy::kKind, GroupBy::kModule}) {
      std::string table = RenderTable(report, *MakeView(report, ViewOptions{g, "", 20}));
    }
  });
  size_t json_bytes = 0, trace_bytes = 0, html_bytes = 0;
  time("json", [&] { json_bytes = ReportToJson(report).size(); });
  time("trace", [&] { trace_bytes = RenderChromeTrace(report).size(); });
  time("html", [&] { html_bytes = RenderHtml(report).size(); });
  double timed = 0;
  for (int64_t ns : report.run_ns()) timed += static_cast<double>(ns) / 1e9;
  double total = 0;
  std::vector<std::string> parts;
  for (const auto& [name, s] : phases) {
    total += s;
    parts.push_back(absl::StrFormat("%s=%.2f", name, s));
  }
  std::printf("n=%-8d runs=%-2d %s  | timed=%.2f outside=%.2f s  json=%.0fMB trace=%.0fMB html=%.1fMB\n", n, runs,
              absl::StrJoin(parts, " ").c_str(), timed, total - timed, json_bytes / 1e6, trace_bytes / 1e6,
              html_bytes / 1e6);
  std::fflush(stdout);
}

struct Child {
  int code = -1;
  double seconds = 0;
  long max_rss_kb = 0;
};

Child Run(const std::vector<std::string>& args) {
  std::vector<char*> argv;
  std::vector<std::string> copy = args;
  for (std::string& a : copy) argv.push_back(a.data());
  argv.push_back(nullptr);
  const auto start = std::chrono::steady_clock::now();
  Child child;
  std::fflush(stdout);
  // Closed by a successful exec (O_CLOEXEC): from then on /proc/<pid> shows
  // the new program, not the fork's copy of this one.
  int exec_pipe[2];
  if (pipe2(exec_pipe, O_CLOEXEC) != 0) return child;
  const pid_t pid = fork();
  if (pid < 0) {
    std::perror("scale: fork");
    close(exec_pipe[0]);
    close(exec_pipe[1]);
    return child;  // code -1
  }
  if (pid == 0) {
    close(exec_pipe[0]);
    freopen("/dev/null", "w", stdout);
    execv(argv[0], argv.data());
    _exit(127);
  }
  close(exec_pipe[1]);
  char byte;
  while (read(exec_pipe[0], &byte, 1) < 0 && errno == EINTR) {
  }
  close(exec_pipe[0]);
  int status = 0;
  // VmHWM only grows; polled every 2 ms, the last read before the exit
  // misses at most the last 2 ms of growth.
  // VmHWM, not getrusage's ru_maxrss: a forked child starts with a copy of
  // this process's page tables and exec keeps that size as its maximum, so
  // every child would report this process's RSS (gigabytes after part 1).
  for (;;) {
    if (absl::StatusOr<int64_t> peak = PeakResidentSetBytes(pid); peak.ok()) {
      child.max_rss_kb = std::max(child.max_rss_kb, static_cast<long>(*peak / 1024));
    }
    const pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid || done < 0) break;
    usleep(2000);
  }
  child.seconds = Seconds(start);
  child.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return child;
}

double TimedSeconds(const std::string& json_path) {
  std::ifstream in(json_path);
  const nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
  double timed = 0;
  if (j.is_object() && j.contains("run_ns")) {
    for (const auto& ns : j["run_ns"]) timed += ns.get<double>() / 1e9;
  }
  return timed;
}

}  // namespace
}  // namespace graphprof

int main(int argc, char** argv) {
  graphprof::bench::InitBenchmark(argc, argv);
  using namespace graphprof;
  const int runs = absl::GetFlag(FLAGS_runs);
  std::printf("part 1: in process, seconds per phase (chain of N aten::add)\n");
  for (absl::string_view size : absl::StrSplit(absl::GetFlag(FLAGS_sizes), ',')) {
    int n = 0;
    if (absl::SimpleAtoi(size, &n) && n > 0) InProcess(n, n > 100000 ? 2 : runs);
  }

  const std::string tool = absl::GetFlag(FLAGS_tool);
  const std::string dir = absl::StrCat(std::getenv("TMPDIR") != nullptr ? std::getenv("TMPDIR") : "/tmp",
                                       "/graphprof_scale_", getpid());
  system(absl::StrCat("mkdir -p ", dir).c_str());
  const std::string ir = dir + "/chain100k.ir";
  std::ofstream(ir) << Chain(100000);
  const std::string json = dir + "/report.json", trace = dir + "/trace.json", html = dir + "/report.html";
  const std::vector<std::string> command = {tool,          "--ir=" + ir,        "--input=1",
                                            "--warmup=0",  "--runs=10",         "--noverify",
                                            "--format=json", "--output=" + json, "--trace=" + trace};
  // What a profiling process costs before main() (loading LibTorch, in
  // profile_graph_full, which the front starts): the floor of any run.
  const Child help = Run({tool + "_full", "--help"});
  // The front alone (no LibTorch): the floor of a merge.
  const Child front_help = Run({tool, "--help"});
  const Child cli = Run(command);
  const double timed = TimedSeconds(json);
  const double outside = cli.seconds - timed;
  const double budget = 1.0 + 0.1 * timed;
  struct stat st;
  const double json_mb = stat(json.c_str(), &st) == 0 ? st.st_size / 1e6 : 0;
  const double trace_mb = stat(trace.c_str(), &st) == 0 ? st.st_size / 1e6 : 0;
  std::printf("part 2: profile_graph on the 100k chain, --runs=10 --format=json --trace (exit %d)\n", cli.code);
  std::printf("  wall %.2f s, timed runs %.2f s, outside %.2f s (budget 1 s + 10%% = %.2f s), peak RSS %.0f MB, "
              "JSON %.0f MB, trace %.0f MB; profile_graph_full --help alone takes %.2f s\n",
              cli.seconds, timed, outside, budget, cli.max_rss_kb / 1024.0, json_mb, trace_mb, help.seconds);
  std::vector<std::string> with_html = command;
  with_html.push_back("--html=" + html);
  const Child cli_html = Run(with_html);
  const double timed_html = TimedSeconds(json);
  const double html_mb = stat(html.c_str(), &st) == 0 ? st.st_size / 1e6 : 0;
  std::printf("  the same with --html: wall %.2f s, outside %.2f s, peak RSS %.0f MB, HTML %.1f MB (exit %d)\n",
              cli_html.seconds, cli_html.seconds - timed_html, cli_html.max_rss_kb / 1024.0, html_mb, cli_html.code);

  // Part 3: 64 reports of a 10k-node model.
  const std::string ir10k = dir + "/chain10k.ir";
  std::ofstream(ir10k) << Chain(10000);
  const std::string one = dir + "/r0.json";
  Run({tool, "--ir=" + ir10k, "--input=1", "--warmup=0", "--runs=10", "--noverify", "--format=json", "--output=" + one});
  // 64 distinct reports (as 64 ranks write them): the same numbers, each
  // with its own report_id, which merge uses to count runs once.
  std::string text;
  {
    std::ifstream in(one);
    std::stringstream buffer;
    buffer << in.rdbuf();
    text = buffer.str();
  }
  const std::string id_key = "\"report_id\":\"";
  const size_t id_at = text.find(id_key);
  std::vector<std::string> merge = {tool, "merge"};
  double input_mb = 0;
  for (int i = 0; i < 64; ++i) {
    const std::string copy = absl::StrCat(dir, "/r", i, ".json");
    std::string distinct = text;
    if (id_at == std::string::npos) {
      std::printf("part 3: the report has no report_id: the 64 copies would be one report\n");
      return 1;
    }
    distinct.insert(id_at + id_key.size(), absl::StrCat("rank", i, "-"));
    std::ofstream(copy) << distinct;
    input_mb += distinct.size() / 1e6;
    merge.push_back(copy);
  }
  merge.push_back("--format=json");
  merge.push_back("--output=" + dir + "/merged.json");
  const Child merged = Run(merge);
  // The reader alone, in this process: best of 3 parses of one report.
  double parse_s = 1e9;
  for (int i = 0; i < 3; ++i) {
    const auto start = std::chrono::steady_clock::now();
    const absl::StatusOr<Report> parsed = ReportFromJson(text);
    parse_s = std::min(parse_s, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    if (!parsed.ok()) std::printf("part 3: the report does not read back: %s\n", parsed.status().ToString().c_str());
  }
  std::printf("part 3: merge of 64 distinct reports of a 10k-node model, %.0f MB (exit %d): %.2f s wall (the front's "
              "start alone %.2f s), peak RSS %.0f MB; ReportFromJson reads %.0f MB/s (%.1f MB in %.3f s)\n",
              input_mb, merged.code, merged.seconds, front_help.seconds, merged.max_rss_kb / 1024.0,
              text.size() / 1e6 / parse_s, text.size() / 1e6, parse_s);
  system(absl::StrCat("rm -rf ", dir).c_str());
  std::printf("scale outside_s=%.2f budget_s=%.2f rss_mb=%.0f html_mb=%.1f merge_rss_mb=%.0f\n", outside, budget,
              cli.max_rss_kb / 1024.0, html_mb, merged.max_rss_kb / 1024.0);
  return 0;
}
