// Shared helpers for graphprof's tests.
#ifndef GRAPHPROF_TESTS_TEST_UTIL_H_
#define GRAPHPROF_TESTS_TEST_UTIL_H_

#include <torch/script.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "interpreter/graph_plan.h"
#include "ir/prepared_graph.h"

namespace graphprof::testing {

// Path of a committed fixture (tests/fixtures/<name>) inside the test's runfiles.
std::string FixturePath(const std::string& name);

// Prepares and plans a module's method / an IR text; fails the test and
// returns null on error.
std::shared_ptr<const GraphPlan> PlanModule(const torch::jit::Module& module,
                                            const PrepareOptions& options = {},
                                            const PlanOptions& plan_options = {});
std::shared_ptr<const GraphPlan> PlanIr(const std::string& ir_text, const std::string& name = "ir",
                                        const PlanOptions& plan_options = {});

// A Loop adding x to itself n times, then a mul (inputs: a tensor x and n):
// nodes 0-1 constants, 2 the Loop, 3 its add, 4 the mul.
inline constexpr const char* kLoopIr = R"IR(
graph(%x : Tensor, %n : int):
  %true : bool = prim::Constant[value=1]()
  %one : int = prim::Constant[value=1]()
  %y : Tensor = prim::Loop(%n, %true, %x)
    block0(%i : int, %h : Tensor):
      %h2 : Tensor = aten::add(%h, %x, %one)
      -> (%true, %h2)
  %z : Tensor = aten::mul(%y, %y)
  return (%z)
)IR";

// Expects `actual` to be OK and identical to `expected` (IdenticalIValues).
void ExpectIdentical(const c10::IValue& expected, const absl::StatusOr<c10::IValue>& actual);

// module.forward(inputs) (copies the inputs).
c10::IValue NativeForward(torch::jit::Module& module, const std::vector<c10::IValue>& inputs);

// A fresh directory under TEST_TMPDIR.
std::string TempDir(const std::string& name);

// A zip of stored entries (name -> bytes; CRCs left 0: graphprof does not
// check them), each under `prefix` when given, as PyTorchStreamWriter
// writes: .pt2 archives and AOTInductor packages made in tests.
std::string StoredZip(const std::map<std::string, std::string>& entries, const std::string& prefix = "");

}  // namespace graphprof::testing

#endif  // GRAPHPROF_TESTS_TEST_UTIL_H_
