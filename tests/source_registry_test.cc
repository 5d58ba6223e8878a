// The model-source layer's promise (sources/model_source.h): an input
// format is its own file plus one registration. tests/graph_in_code_source.cc
// is a format no other file knows ("in_code:NAME", a graph built in code);
// linked into a profile_graph (:profile_graph_with_test_source) it runs
// through a profile, --ab=none, --compare_model and --workers=2, and
// through ProfileSource, the session graphprof.profile(path) runs, here
// in-process (this test links the format too).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <torch/script.h>

#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "profilers/session/source_session.h"
#include "sources/model_source.h"
#include "tests/cli_test_util.h"
#include "tests/test_util.h"

namespace graphprof {
namespace {

using ::graphprof::testing::ExpectOneLineError;
using ::graphprof::testing::Result;
using ::graphprof::testing::RunBinary;
using ::graphprof::testing::Slurp;
using ::graphprof::testing::TempDir;

constexpr char kTool[] = "tests/profile_graph_with_test_source";
constexpr char kModel[] = "--model=in_code:affine";

nlohmann::json RunJson(std::vector<std::string> args, const std::string& name) {
  const std::string out = TempDir("source_registry_test") + "/" + name + ".json";
  args.push_back("--format=json");
  args.push_back("--output=" + out);
  const Result r = RunBinary(kTool, args);
  EXPECT_EQ(r.code, 0) << r.err;
  if (r.code != 0) return nlohmann::json::object();
  return nlohmann::json::parse(Slurp(out));
}

bool HasNote(const nlohmann::json& report, const std::string& text) {
  for (const nlohmann::json& note : report["notes"]) {
    if (absl::StrContains(note.get<std::string>(), text)) return true;
  }
  return false;
}

std::vector<std::string> Kinds(const nlohmann::json& report) {
  std::vector<std::string> kinds;
  for (const nlohmann::json& node : report["nodes"]) {
    const std::string kind = node["kind"];
    if (kind != "prim::Constant") kinds.push_back(kind);
  }
  return kinds;
}

TEST(SourceRegistryTest, AProfileOfTheTestFormat) {
  const nlohmann::json j = RunJson({kModel, "--warmup=1", "--runs=2"}, "profile");
  EXPECT_EQ(j["model"], "in_code:affine");
  EXPECT_EQ(j["verified"], true) << j["verification"].dump();
  EXPECT_EQ(j["verification"]["reference"], "the graph built in code, run by the JIT");
  EXPECT_EQ(Kinds(j), (std::vector<std::string>{"aten::mul", "aten::add", "aten::relu"}));
  EXPECT_TRUE(HasNote(j, "a graph built in code (tests/graph_in_code_source.cc)")) << j["notes"].dump();
  EXPECT_TRUE(HasNote(j, "inputs: a 4x8 tensor made by the test's source")) << j["notes"].dump();
}

TEST(SourceRegistryTest, AnAaOfTheTestFormat) {
  const nlohmann::json j = RunJson({kModel, "--warmup=1", "--runs=4", "--ab=none", "--ab_copies=2"}, "aa");
  for (const char* side : {"a", "b"}) {
    EXPECT_EQ(j[side]["verified"], true) << side << j[side]["verification"].dump();
    EXPECT_TRUE(HasNote(j[side], "a graph built in code")) << side;
    EXPECT_EQ(j[side]["run_sources"].size(), 2u) << side << ": two copies, each its own Reload()";
  }
}

TEST(SourceRegistryTest, TheTestFormatAsTheMigrationDiffsB) {
  // A: the same computation as a TorchScript module, saved here.
  torch::jit::Module module("Affine");
  module.define("def forward(self, x):\n  return torch.relu(x * 2.0 + x)\n");
  const std::string path = TempDir("source_registry_test") + "/affine.pt";
  module.save(path);
  const nlohmann::json j =
      RunJson({"--model=" + path, "--compare_model=in_code:affine", "--warmup=1", "--runs=4"}, "migration");
  EXPECT_EQ(j["a"]["verified"], true) << j["a"]["verification"].dump();
  EXPECT_EQ(j["b"]["verified"], true) << j["b"]["verification"].dump();
  EXPECT_TRUE(absl::StrContains(j["b"]["model"].get<std::string>(), "in_code:affine (B: in code)")) << j["b"]["model"];
  int paired = 0;
  for (const nlohmann::json& n : j["diff"]["nodes"]) {
    const std::string kind = n["kind"];
    if (kind == "aten::mul" || kind == "aten::add" || kind == "aten::relu") paired += n["match"] != "removed" && n["match"] != "added";
  }
  EXPECT_EQ(paired, 3) << j["diff"]["nodes"].dump();
}

TEST(SourceRegistryTest, TheTestFormatInWorkerProcesses) {
  const nlohmann::json j = RunJson({kModel, "--warmup=1", "--runs=2", "--workers=2"}, "workers");
  EXPECT_EQ(j["verified"], true) << j["verification"].dump();
  EXPECT_TRUE(HasNote(j, "profiled in 2 worker processes")) << j["notes"].dump();
  EXPECT_TRUE(HasNote(j, "a graph built in code")) << j["notes"].dump();
}

TEST(SourceRegistryTest, WhatTheTestFormatCannotDoIsRefusedOnce) {
  ExpectOneLineError(RunBinary(kTool, {kModel, "--ab=cse"}), 1,
                     "in_code:affine: passes and freezing apply to TorchScript modules, not to a graph built in code");
  ExpectOneLineError(RunBinary(kTool, {kModel, "--backward"}), 1, "in_code:affine: training steps (--backward) need a TorchScript module");
  ExpectOneLineError(RunBinary(kTool, {kModel, "--method=predict"}), 1, "a graph built in code has no methods (--method)");
}

TEST(SourceRegistryTest, TheSessionPythonRuns) {
  // graphprof.profile(path) is ProfileSourceFile: OpenModelSource, the
  // source's inputs, ProfileSource. The same calls here, in-process.
  absl::StatusOr<std::unique_ptr<ModelSource>> source = OpenModelSource("in_code:affine", SourceRequest());
  ASSERT_TRUE(source.ok()) << source.status();
  absl::StatusOr<SuppliedInputs> inputs = (*source)->SupplyInputs(0);
  ASSERT_TRUE(inputs.ok()) << inputs.status();
  absl::StatusOr<std::vector<c10::IValue>> completed = (*source)->CompleteInputs(inputs->values, nullptr);
  ASSERT_TRUE(completed.ok()) << completed.status();
  SessionOptions session;
  session.profile.runs = 2;
  session.profile.warmup = 0;
  absl::StatusOr<Report> report = ProfileSource(**source, *completed, session, Tolerance());
  ASSERT_TRUE(report.ok()) << report.status();
  ASSERT_TRUE(report->verification.has_value());
  EXPECT_TRUE(report->verification->passed());
  EXPECT_EQ(report->model, "in_code:affine");
  EXPECT_EQ(report->notes.back(), "a graph built in code (tests/graph_in_code_source.cc)");
  // Wrong inputs: one error naming the source.
  absl::StatusOr<std::vector<c10::IValue>> two = (*source)->CompleteInputs({torch::ones({1}), torch::ones({1})}, nullptr);
  EXPECT_TRUE(absl::StrContains(two.status().message(), "in_code:affine takes 1 input (x: Tensor) but 2 were given"))
      << two.status();
}

}  // namespace
}  // namespace graphprof
