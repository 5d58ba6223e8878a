// profile_graph: runs a TorchScript graph node by node and reports where the
// time goes. (First version: runs a zoo model through the interpreter,
// checks it against module.forward and prints a summary.)
#include <ATen/Parallel.h>
#include <torch/script.h>

#include <chrono>
#include <cstdio>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "interpreter/interpreter.h"
#include "ir/ivalue_util.h"
#include "ir/prepared_graph.h"
#include "ir/zoo/zoo.h"

ABSL_FLAG(std::string, zoo, "resnet18", "zoo model to run");

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  at::set_num_threads(1);
  torch::NoGradGuard no_grad;
  absl::StatusOr<graphprof::ZooModel> model = graphprof::MakeZooModel(absl::GetFlag(FLAGS_zoo));
  if (!model.ok()) {
    std::fprintf(stderr, "profile_graph: %s\n", std::string(model.status().message()).c_str());
    return 2;
  }
  absl::StatusOr<graphprof::PreparedGraph> prepared = graphprof::PrepareMethod(model->module);
  if (!prepared.ok()) {
    std::fprintf(stderr, "profile_graph: %s\n", std::string(prepared.status().message()).c_str());
    return 1;
  }
  auto plan = graphprof::GraphPlan::Build(*prepared);
  if (!plan.ok()) {
    std::fprintf(stderr, "profile_graph: %s\n", std::string(plan.status().message()).c_str());
    return 1;
  }
  graphprof::Interpreter interpreter(*plan);
  std::vector<c10::IValue> inputs = model->ExampleInputs(0);
  const auto start = std::chrono::steady_clock::now();
  absl::StatusOr<c10::IValue> out = interpreter.Run(inputs);
  const auto stop = std::chrono::steady_clock::now();
  if (!out.ok()) {
    std::fprintf(stderr, "profile_graph: %s\n", std::string(out.status().message()).c_str());
    return 1;
  }
  const bool identical = graphprof::IdenticalIValues(model->module.forward(inputs), *out);
  std::printf("%s: %zu nodes, output %s, %.1f ms, identical to forward: %s\n", model->name.c_str(),
              (*plan)->nodes().size(), graphprof::DescribeIValue(*out).c_str(),
              std::chrono::duration<double, std::milli>(stop - start).count(),
              identical ? "yes" : "NO");
  return identical ? 0 : 1;
}
