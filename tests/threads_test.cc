// One shared plan, four interpreters on four threads: every output must be
// identical to module.forward.
#include <ATen/Parallel.h>
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "interpreter/interpreter.h"
#include "profilers/profiler.h"
#include "ir/ivalue_util.h"
#include "tools/zoo/zoo.h"
#include "tests/test_util.h"

namespace graphprof {
namespace {

TEST(ThreadsTest, FourInterpretersShareOnePlan) {
  at::set_num_threads(1);
  for (const std::string name : {"resnet18", "control_flow", "gcn"}) {
    absl::StatusOr<ZooModel> model = MakeZooModel(name);
    ASSERT_TRUE(model.ok());
    auto plan = testing::PlanModule(model->module);
    ASSERT_NE(plan, nullptr);
    constexpr int kThreads = 4;
    constexpr int kRunsPerThread = 3;
    std::vector<std::vector<c10::IValue>> inputs;
    std::vector<c10::IValue> expected;
    for (int t = 0; t < kThreads; ++t) {
      inputs.push_back(model->ExampleInputs(100 + t));
      expected.push_back(model->module.forward(inputs.back()));
    }
    std::atomic<int> matches{0};
    std::vector<std::string> failures(kThreads);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        Interpreter interpreter(plan);
        for (int run = 0; run < kRunsPerThread; ++run) {
          absl::StatusOr<c10::IValue> out = interpreter.Run(inputs[t]);
          std::string why;
          if (!out.ok()) {
            failures[t] = std::string(out.status().message());
          } else if (!IdenticalIValues(expected[t], *out, &why)) {
            failures[t] = why;
          } else {
            ++matches;
          }
        }
      });
    }
    for (std::thread& thread : threads) thread.join();
    for (const std::string& failure : failures) EXPECT_EQ(failure, "") << name;
    EXPECT_EQ(matches.load(), kThreads * kRunsPerThread) << name;
  }
}

// The profiler over one shared plan: each thread its own
// ProfilingInterpreter, every report complete and every output right.
TEST(ThreadsTest, ProfilersShareOnePlan) {
  at::set_num_threads(1);
  for (const std::string name : {"mlp", "control_flow"}) {
    absl::StatusOr<ZooModel> model = MakeZooModel(name);
    ASSERT_TRUE(model.ok());
    auto plan = testing::PlanModule(model->module);
    ASSERT_NE(plan, nullptr);
    ASSERT_TRUE(plan->shareable());
    constexpr int kThreads = 3;
    std::vector<std::vector<c10::IValue>> inputs;
    std::vector<c10::IValue> expected;
    for (int t = 0; t < kThreads; ++t) {
      inputs.push_back(model->ExampleInputs(200 + t));
      expected.push_back(model->module.forward(inputs.back()));
    }
    std::vector<std::string> failures(kThreads);
    std::vector<size_t> nodes(kThreads, 0);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        ProfileOptions options;
        options.warmup = 1;
        options.runs = 3;
        options.memory = true;
        c10::IValue output;
        absl::StatusOr<Report> report = Profile(plan, inputs[t], options, &output);
        std::string why;
        if (!report.ok()) {
          failures[t] = std::string(report.status().message());
        } else if (!IdenticalIValues(expected[t], output, &why)) {
          failures[t] = why;
        } else {
          nodes[t] = report->nodes.size();
        }
      });
    }
    for (std::thread& thread : threads) thread.join();
    for (int t = 0; t < kThreads; ++t) {
      EXPECT_EQ(failures[t], "") << name;
      EXPECT_EQ(nodes[t], plan->nodes().size()) << name;
    }
  }
}

}  // namespace
}  // namespace graphprof
