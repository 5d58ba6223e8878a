#include "tools/zoo/zoo.h"

#include <functional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/status_util.h"

namespace graphprof {
namespace {

struct Entry {
  const char* name;
  std::function<ZooModel(uint64_t)> build;
};

const std::vector<Entry>& Registry() {
  static const auto* entries = new std::vector<Entry>{
      {"resnet18", zoo::ResNet18},
      {"mlp", zoo::Mlp},
      {"gcn", zoo::Gcn},
      {"transformer", zoo::TransformerBlock},
      {"control_flow", zoo::ControlFlow},
      {"tiny1000", [](uint64_t seed) { return zoo::TinyOps(seed, 1000); }},
  };
  return *entries;
}

}  // namespace

std::vector<c10::IValue> ZooModel::ExampleInputs(uint64_t seed) const {
  // The zoo's own input specs are small and valid by construction.
  absl::StatusOr<std::vector<c10::IValue>> made = MakeRandomInputs(inputs, seed);
  return made.ok() ? *std::move(made) : std::vector<c10::IValue>{};
}

std::vector<std::string> ZooNames() {
  std::vector<std::string> names;
  for (const Entry& e : Registry()) names.push_back(e.name);
  return names;
}

absl::StatusOr<ZooModel> MakeZooModel(absl::string_view name, uint64_t seed) {
  for (const Entry& e : Registry()) {
    if (name != e.name) continue;
    try {
      return e.build(seed);
    } catch (const std::exception& ex) {
      return StatusFromException(absl::StatusCode::kInternal, absl::StrCat("zoo model ", name), ex);
    }
  }
  return absl::NotFoundError(absl::StrCat("unknown zoo model '", name,
                                          "' (known: ", absl::StrJoin(ZooNames(), ", "), ")"));
}

}  // namespace graphprof
