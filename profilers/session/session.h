// ProfileSession: one graph profiled, described and checked. The flow
// `profile_graph` and `graphprof.profile()` share, so that their reports of
// one model are the same report (tests/session_test.cc, and
// python/tests/graphprof_compare_test.py against the CLI's JSON):
//
//   1. plan SessionModel::prepared (GraphPlan::Build), then
//      SessionOptions::check_plan (profile_graph: --modules against the plan,
//      before any run)
//   2. Profile() it (profiler.h) with SessionOptions::profile
//   3. describe: Report::model, the sizes (parameters, trainable ones, the
//      module serialized, the inputs), the machine (given, or described when
//      the session starts), the roofline's ceilings (given, else the cached
//      ones for this machine and thread count, never measured here), a note
//      when passes were applied and one when the module is in training mode
//   4. with `verify`: the module run natively on a copy of the inputs, its
//      output against the plan's (CheckOutput, reference_check.h), and for training steps its
//      gradients (VerifyGradients; a comparison of nothing is noted, not
//      claimed: SetGradientVerification)
//
// What is the caller's: loading and preparing the model (the CLI from
// files, Python from live objects), inputs, observers, rendering and exit
// codes. The first failing step's status is returned unchanged (plan
// errors name the node, Profile's the run); nothing is half-filled.
#ifndef GRAPHPROF_PROFILERS_SESSION_SESSION_H_
#define GRAPHPROF_PROFILERS_SESSION_SESSION_H_

#include <torch/script.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "interpreter/graph_plan.h"
#include "ir/prepared_graph.h"
#include "profilers/profiler.h"
#include "profilers/verification/reference_check.h"
#include "profilers/report/report.h"

namespace graphprof {

// What a session profiles.
struct SessionModel {
  std::string name;                          // Report::model
  PreparedGraph prepared;                    // planned by the session
  std::optional<torch::jit::Module> module;  // as given: sizes, gradients, the float64 reference
  std::string method = "forward";
  // The graph as given, natively (a module's method, a script function, an
  // IR graph through the JIT); the session passes it copies of the inputs.
  std::function<absl::StatusOr<c10::IValue>(const std::vector<c10::IValue>&)> run_native;
};

struct SessionOptions {
  ProfileOptions profile;
  bool verify = true;
  OutputCheck check;  // check.transformed: passes were applied (prepared.passes names them)
  std::optional<Machine> machine;    // unset: described when the session starts
  std::optional<Ceilings> ceilings;  // unset: the cached ones, if any
  std::function<absl::Status(const GraphPlan&)> check_plan;  // before the runs; its error ends the session
};

absl::StatusOr<Report> RunProfileSession(SessionModel model, const std::vector<c10::IValue>& inputs,
                                         const SessionOptions& options);

// Step 3 alone (the sides of an A/B, which ProfileBeforeAfter profiles,
// are described with it): `name`, the sizes of `module` (if any) and
// `inputs`, the training-mode note, `machine`, and `ceilings` (unset: the
// cached ones for `machine` at this process's thread count).
void DescribeModel(Report& report, const std::string& name, const torch::jit::Module* module,
                   const std::vector<c10::IValue>& inputs, const Machine& machine,
                   const std::optional<Ceilings>& ceilings = std::nullopt);

}  // namespace graphprof

#endif  // GRAPHPROF_PROFILERS_SESSION_SESSION_H_
