#include "tests/real/real_model_util.h"

#include <gtest/gtest.h>

#include <fstream>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "ir/loader.h"

namespace graphprof::testing {

std::string RealModelPath(const std::string& file) { return "tests/real/" + file; }

RealModel LoadRealModel(const std::string& name) {
  RealModel model;
  absl::StatusOr<torch::jit::Module> module = LoadModule(RealModelPath(name + ".pt"));
  absl::StatusOr<std::vector<c10::IValue>> inputs = LoadInputs(RealModelPath(name + ".inputs.pt"));
  if (!module.ok() || !inputs.ok()) {
    ADD_FAILURE() << name << ": " << module.status() << " / " << inputs.status();
    return model;
  }
  std::ifstream list(RealModelPath(name + ".modules.txt"));
  std::string line;
  while (std::getline(list, line)) {
    std::vector<std::string> parts = absl::StrSplit(line, '\t');
    if (parts.size() == 2) model.modules[parts[0]] = parts[1];
  }
  if (model.modules.empty()) ADD_FAILURE() << name << ": no modules.txt";
  model.name = name;
  model.module = *std::move(module);
  model.inputs = *std::move(inputs);
  return model;
}

bool MatrixWork(const std::string& kind) {
  for (const char* k : {"conv", "linear", "matmul", "bmm", "baddbmm", "addmm", "einsum", "_native_multi_head_attention",
                        "scaled_dot_product"}) {
    if (absl::StrContains(kind, k)) return true;
  }
  return false;
}

}  // namespace graphprof::testing
