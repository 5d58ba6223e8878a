// The report layer's messages name a front end's options only as the front
// end names them (profilers/report/option_names.h): plain words by default,
// profile_graph's flags with CliOptionNames, another front end's its own
// (Python's keyword arguments are checked from Python, in
// python/tests/graphprof_compare_test.py). Each message
// that points to an option, from the gate, merge and the diff.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "profilers/report/gate.h"
#include "profilers/report/merge.h"
#include "profilers/report/option_names.h"
#include "profilers/report/report_diff.h"
#include "profilers/report/report_json.h"
#include "tools/cli_option_names.h"

namespace graphprof {
namespace {

// A report of two nodes (relu ran, neg never did) over 4 runs; `backward`:
// training steps.
Report Make(const std::string& model, const std::string& process, bool backward) {
  const std::string metrics = backward ? R"([{"name": "time"}, {"name": "backward"}])" : R"([{"name": "time"}])";
  const std::string series = backward ? R"(, "series": {"backward": [2, 2, 2, 2]})" : "";
  absl::StatusOr<Report> report = ReportFromJson(absl::StrCat(
      R"({"schema_version": 2, "model": ")", model, R"(", "process": ")", process,
      R"(", "runs": 4, "warmup": 0, "timer_overhead_ns": 0, "run_ns": [20, 21, 22, 23], "metrics": )", metrics,
      R"(, "nodes": [{"id": 0, "parent": -1, "depth": 0, "name": "relu", "kind": "aten::relu",
                     "calls": [1, 1, 1, 1], "total_ns": [10, 11, 12, 13])", series, R"(},
                    {"id": 1, "parent": -1, "depth": 0, "name": "neg", "kind": "aten::neg",
                     "calls": [0, 0, 0, 0], "total_ns": [0, 0, 0, 0]}]})"));
  EXPECT_TRUE(report.ok()) << report.status();
  return *std::move(report);
}

// A front end of another kind (a configuration file's keys, say).
OptionNames ConfigKeys() {
  OptionNames names;
  names.backward = "training: true";
  names.allow_graph_change = "gate.graph_change: allow";
  names.allow_input_change = "gate.input_change: allow";
  names.diff_all = "diff.unexecuted: show";
  return names;
}

// Every message that points to an option, made with `names`.
std::vector<std::string> Messages(const OptionNames& names) {
  std::vector<std::string> out;
  GateOptions gate;
  gate.diff.names = names;
  const Report forward = Make("m", "p1", false), training = Make("m", "p1", true), other = Make("n", "p1", false);
  out.emplace_back(RunGate(forward, training, gate).status().message());
  out.emplace_back(RunGate(training, forward, gate).status().message());
  out.emplace_back(RunGate(forward, other, gate).status().message());
  Report passes = forward;
  passes.passes = "freeze";
  out.emplace_back(RunGate(forward, passes, gate).status().message());
  Report inputs = forward, other_inputs = forward;
  inputs.inputs = "f32[2]";
  other_inputs.inputs = "f32[3]";
  out.emplace_back(RunGate(inputs, other_inputs, gate).status().message());
  gate.allow_graph_change = gate.allow_input_change = true;
  Report other_graph_and_inputs = other;
  other_graph_and_inputs.inputs = "f32[3]";
  absl::StatusOr<GateResult> accepted = RunGate(inputs, other_graph_and_inputs, gate);
  if (accepted.ok()) {
    for (const std::string& line : accepted->accepted) out.push_back(line);
  } else {
    out.emplace_back(accepted.status().message());
  }
  ReportMerger merger(names);
  EXPECT_TRUE(merger.Add(forward, "a.json").ok());
  out.emplace_back(merger.Add(training, "b.json").message());
  DiffOptions diff;
  diff.names = names;
  const ReportDiff two_processes = DiffReports(forward, Make("m", "p2", false), diff);
  out.push_back(two_processes.noise_note);
  out.push_back(RenderDiff(two_processes, 0).substr(0, RenderDiff(two_processes, 0).find("\n\n")));
  return out;
}

TEST(OptionNamesTest, PlainWordsByDefault) {
  const std::vector<std::string> messages = Messages(OptionNames{});
  ASSERT_EQ(messages.size(), 10u) << absl::StrJoin(messages, "\n");
  for (const std::string& m : messages) {
    EXPECT_FALSE(m.empty());
    EXPECT_FALSE(absl::StrContains(m, "--")) << m;
    EXPECT_FALSE(absl::StrContains(m, "=True")) << m;
  }
  EXPECT_EQ(messages[0], "the baseline holds forward runs only, the current report training steps: their times "
                         "measure different things; profile both the same way");
  EXPECT_TRUE(absl::StrContains(messages[2], "; if the model changed on purpose, allow a graph change (nodes are then "
                                             "paired as a diff pairs them)"))
      << messages[2];
  EXPECT_TRUE(absl::EndsWith(messages[3], "; if that is the change to judge, allow a graph change")) << messages[3];
  EXPECT_TRUE(absl::EndsWith(messages[4], "; if that is intended, allow an input change")) << messages[4];
  EXPECT_TRUE(absl::StartsWith(messages[5], "another graph: ")) << messages[5];
  EXPECT_EQ(messages[7], "b.json holds training steps and the others forward runs only: their backward times cannot "
                         "be merged");
  EXPECT_TRUE(absl::EndsWith(messages[8], "profile both sides in several processes and merge each side's reports"))
      << messages[8];
  EXPECT_TRUE(absl::StrContains(messages[9], "2 never executed, not shown\n")) << messages[9];
}

TEST(OptionNamesTest, TheCliNamesItsFlags) {
  const std::vector<std::string> messages = Messages(CliOptionNames());
  ASSERT_EQ(messages.size(), 10u);
  EXPECT_TRUE(absl::StrContains(messages[0], "the current report training steps (--backward): ")) << messages[0];
  EXPECT_TRUE(absl::StrContains(messages[1], "the baseline holds training steps (--backward), ")) << messages[1];
  EXPECT_TRUE(absl::StrContains(messages[2], "allow a graph change (--allow_graph_change: nodes are then paired"))
      << messages[2];
  EXPECT_TRUE(absl::EndsWith(messages[3], "allow a graph change (--allow_graph_change)")) << messages[3];
  EXPECT_TRUE(absl::EndsWith(messages[4], "allow an input change (--allow_input_change)")) << messages[4];
  EXPECT_TRUE(absl::StartsWith(messages[5], "another graph (--allow_graph_change): ")) << messages[5];
  EXPECT_TRUE(absl::StartsWith(messages[6], "other inputs (--allow_input_change): ")) << messages[6];
  EXPECT_TRUE(absl::StrContains(messages[7], "b.json holds training steps (--backward) and")) << messages[7];
  EXPECT_TRUE(absl::EndsWith(messages[8], "profile both sides with --workers")) << messages[8];
  EXPECT_TRUE(absl::StrContains(messages[9], "2 never executed, not shown (--diff_all)\n")) << messages[9];
}

TEST(OptionNamesTest, AnotherFrontEndNamesItsOwn) {
  const std::vector<std::string> messages = Messages(ConfigKeys());
  ASSERT_EQ(messages.size(), 10u);
  for (const std::string& m : messages) EXPECT_FALSE(absl::StrContains(m, "--")) << m;
  EXPECT_TRUE(absl::StrContains(messages[0], "training steps (training: true)")) << messages[0];
  EXPECT_TRUE(absl::StrContains(messages[2], "(gate.graph_change: allow: nodes are then paired")) << messages[2];
  EXPECT_TRUE(absl::StartsWith(messages[6], "other inputs (gate.input_change: allow): ")) << messages[6];
  // No name for several processes: the words say what to do.
  EXPECT_TRUE(absl::EndsWith(messages[8], "in several processes and merge each side's reports")) << messages[8];
  EXPECT_TRUE(absl::StrContains(messages[9], "not shown (diff.unexecuted: show)")) << messages[9];
}

}  // namespace
}  // namespace graphprof
