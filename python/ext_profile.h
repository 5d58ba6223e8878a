// What graphprof.profile() and graphprof.ab() run (profile_command.cc's flow
// for one module or script function): the target prepared from a Python
// object, its inputs converted, profiled, described and verified.
#ifndef GRAPHPROF_PYTHON_EXT_PROFILE_H_
#define GRAPHPROF_PYTHON_EXT_PROFILE_H_

#include <pybind11/pybind11.h>
#include <torch/csrc/jit/api/function_impl.h>
#include <torch/csrc/jit/python/pybind_utils.h>
#include <torch/script.h>

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "common/status_util.h"
#include "ir/ivalue_util.h"
#include "ir/passes.h"
#include "ir/prepared_graph.h"
#include "profilers/profiler.h"
#include "profilers/report/report.h"
#include "python/ext_reports.h"

namespace graphprof::python {

namespace py = pybind11;

// What is profiled: a module method or a script function, prepared (passes
// applied), with the way to run it natively for verification.
struct Target {
  std::string name;
  PreparedGraph prepared;
  std::optional<torch::jit::Module> module;  // as given (sizes, A/B, verify)
  std::optional<torch::jit::StrongFunctionPtr> function;
  std::string method = "forward";
  bool transformed = false;  // passes applied
  std::string reference;     // "module.forward", "f"

  absl::StatusOr<c10::IValue> RunNative(const std::vector<c10::IValue>& inputs) const {
    try {
      if (module.has_value()) return torch::jit::Module(*module).get_method(method)(DeepCopy(inputs));
      return (*function->function_)(DeepCopy(inputs));
    } catch (const std::exception& e) {
      return StatusFromException(absl::StatusCode::kInvalidArgument, absl::StrCat("native ", method), e);
    }
  }
};

// `object`: a torch._C.ScriptModule (a ScriptModule's `_c`) or a
// torch.jit.ScriptFunction, prepared with `passes` (modules only).
Target MakeTarget(py::handle object, const std::string& method, const std::string& passes);

// Python arguments -> the graph's inputs, converted as TorchScript converts
// the arguments of a call (torch::jit::toIValue against the input's type).
// `fewer_ok`: fewer arguments than inputs are converted (the caller fills
// the rest with defaults); else the counts must match.
std::vector<c10::IValue> ConvertInputs(const PreparedGraph& prepared, const py::tuple& args, bool fewer_ok = false);

// The options graphprof.profile() and ab() share.
struct CommonOptions {
  int runs = 10;
  int warmup = 3;
  bool verify = true;
  double rtol = 1e-4;
  double atol = 1e-5;
  bool backward = false;
  int loss_output = -1;
  std::string clock;  // "", "tsc" or "steady"
  bool compensate = true;
  // rtol or atol given: after passes, compare within them; else against a
  // float64 run where the module can make one (profile_graph's rule).
  bool tolerance_given = false;
  // Run operators that act outside the process (PlanOptions::allow_side_effects).
  bool allow_side_effects = false;
};

// graphprof.profile(path) and profile(ep) (saved to a file first): the
// model source at `path` (sources/, any format profile_graph --model
// opens), profiled by the session profile_graph runs for it
// (profilers/session/source_session.h): its reference and verification
// rule, its supplied inputs when `args` is empty, its description.
// Raises InvalidArgumentError, as the export source's CheckRequest would,
// when a program cannot serve the request (profile(ep) checks before it
// saves the program: one check of abilities, sources/model_source.h).
// `options`: checked as for any profile (CheckOptions: loss_output needs backward, ...).
void CheckProgramRequest(const std::string& passes, const std::string& method, const CommonOptions& options);

ReportPtr ProfileSourceFile(const std::string& path, const py::tuple& args, const std::string& method,
                            const std::string& passes, const CommonOptions& options, const std::string& name);

// graphprof.profile() of a live module or function: the session
// profile_graph runs for one module.
ReportPtr ProfileTarget(py::handle object, const py::tuple& args, const std::string& method,
                        const std::string& passes, const CommonOptions& options, const std::string& name);

struct AbResult {
  ReportPtr before;
  ReportPtr after;
  DiffPtr diff;
};

// graphprof.ab(): ProfileBeforeAfter, described as profile_graph --ab does.
AbResult ProfileAb(py::handle object, const std::string& passes, const py::tuple& args, const std::string& method,
                   const CommonOptions& options, bool diff_all, const std::string& name, double min_effect,
                   double alpha, int copies);

}  // namespace graphprof::python

#endif  // GRAPHPROF_PYTHON_EXT_PROFILE_H_
