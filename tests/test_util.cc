#include "tests/test_util.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>

#include "ir/ivalue_util.h"
#include "ir/loader.h"

namespace graphprof::testing {

std::string FixturePath(const std::string& name) { return "tests/fixtures/" + name; }

std::shared_ptr<const GraphPlan> PlanModule(const torch::jit::Module& module,
                                            const PrepareOptions& options, const PlanOptions& plan_options) {
  absl::StatusOr<PreparedGraph> prepared = PrepareMethod(module, options);
  if (!prepared.ok()) {
    ADD_FAILURE() << prepared.status();
    return nullptr;
  }
  absl::StatusOr<std::shared_ptr<const GraphPlan>> plan = GraphPlan::Build(*std::move(prepared), plan_options);
  if (!plan.ok()) {
    ADD_FAILURE() << plan.status();
    return nullptr;
  }
  return *plan;
}

std::shared_ptr<const GraphPlan> PlanIr(const std::string& ir_text, const std::string& name,
                                        const PlanOptions& plan_options) {
  absl::StatusOr<std::shared_ptr<torch::jit::Graph>> graph = ParseGraph(ir_text);
  if (!graph.ok()) {
    ADD_FAILURE() << graph.status();
    return nullptr;
  }
  absl::StatusOr<PreparedGraph> prepared = PrepareGraph(**graph, name);
  if (!prepared.ok()) {
    ADD_FAILURE() << prepared.status();
    return nullptr;
  }
  absl::StatusOr<std::shared_ptr<const GraphPlan>> plan = GraphPlan::Build(*std::move(prepared), plan_options);
  if (!plan.ok()) {
    ADD_FAILURE() << plan.status();
    return nullptr;
  }
  return *plan;
}

void ExpectIdentical(const c10::IValue& expected, const absl::StatusOr<c10::IValue>& actual) {
  ASSERT_TRUE(actual.ok()) << actual.status();
  std::string why;
  EXPECT_TRUE(IdenticalIValues(expected, *actual, &why)) << why;
}

c10::IValue NativeForward(torch::jit::Module& module, const std::vector<c10::IValue>& inputs) {
  return module.forward(inputs);
}

std::string TempDir(const std::string& name) {
  const char* base = std::getenv("TEST_TMPDIR");
  std::string dir = std::string(base != nullptr ? base : "/tmp") + "/" + name;
  mkdir(dir.c_str(), 0755);
  return dir;
}

namespace {

void Put(std::string& out, uint64_t v, int n) {
  for (int i = 0; i < n; ++i) out.push_back(static_cast<char>(v >> (8 * i)));
}

}  // namespace

std::string StoredZip(const std::map<std::string, std::string>& entries, const std::string& prefix) {
  std::string out, directory;
  for (const auto& [bare, data] : entries) {
    const std::string name = prefix.empty() ? bare : prefix + "/" + bare;
    const uint64_t local = out.size();
    Put(out, 0x04034b50, 4); Put(out, 20, 2); Put(out, 0, 2); Put(out, 0, 2); Put(out, 0, 4); Put(out, 0, 4);
    Put(out, data.size(), 4); Put(out, data.size(), 4); Put(out, name.size(), 2); Put(out, 0, 2);
    out += name;
    out += data;
    Put(directory, 0x02014b50, 4); Put(directory, 20, 2); Put(directory, 20, 2); Put(directory, 0, 2);
    Put(directory, 0, 2); Put(directory, 0, 4); Put(directory, 0, 4); Put(directory, data.size(), 4);
    Put(directory, data.size(), 4); Put(directory, name.size(), 2); Put(directory, 0, 2); Put(directory, 0, 2);
    Put(directory, 0, 2); Put(directory, 0, 2); Put(directory, 0, 4); Put(directory, local, 4);
    directory += name;
  }
  const uint64_t at = out.size();
  out += directory;
  Put(out, 0x06054b50, 4); Put(out, 0, 2); Put(out, 0, 2); Put(out, entries.size(), 2); Put(out, entries.size(), 2);
  Put(out, directory.size(), 4); Put(out, at, 4); Put(out, 0, 2);
  return out;
}

}  // namespace graphprof::testing
