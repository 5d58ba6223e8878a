// graphprof.profile() and ab() (ext_profile.h).
#include "python/ext_profile.h"

#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "profilers/before_after.h"
#include "profilers/report/report_diff.h"
#include "profilers/machine.h"
#include "profilers/session/session.h"
#include "profilers/session/source_session.h"
#include "sources/export/export_source.h"
#include "sources/model_source.h"
#include "python/ext_errors.h"
#include "python/ext_reports.h"

namespace graphprof::python {
namespace {

absl::StatusOr<std::vector<Pass>> PassesFrom(const std::string& passes) {
  if (passes.empty()) return std::vector<Pass>{};
  return ParsePasses(passes);
}

void CheckOptions(const CommonOptions& o) {
  if (o.warmup < 0) Throw(absl::InvalidArgumentError("warmup must be 0 or more"));
  if (o.runs < 1) Throw(absl::InvalidArgumentError("runs must be at least 1"));
  if (!(o.rtol >= 0) || !(o.atol >= 0)) Throw(absl::InvalidArgumentError("rtol and atol must be 0 or more"));
  if (o.loss_output < -1) Throw(absl::InvalidArgumentError("loss_output must be an output index (0 or more)"));
  if (o.loss_output >= 0 && !o.backward) Throw(absl::InvalidArgumentError("loss_output needs backward=True"));
}

ProfileOptions MakeProfileOptions(const CommonOptions& o) {
  ProfileOptions profile;
  profile.warmup = o.warmup;
  profile.runs = o.runs;
  profile.memory = true;  // as profile_graph: the memory summary is always there
  profile.trace = true;   // events for save_trace() and html()
  profile.backward.enabled = o.backward;
  profile.backward.loss_output = o.loss_output;
  profile.compensate = o.compensate;
  profile.plan.allow_side_effects = o.allow_side_effects;
  if (!o.clock.empty()) {
    absl::StatusOr<std::shared_ptr<TimeSource>> clock = MakeTimeSource(o.clock);
    if (!clock.ok()) Throw(absl::InvalidArgumentError(absl::StrCat("clock: ", clock.status().message())));
    profile.clock = *std::move(clock);
  }
  return profile;
}

// What profile() asks of a model source, its options checked first.
SourceRequest RequestOf(const std::string& passes, const std::string& method, const CommonOptions& options) {
  CheckOptions(options);
  SourceRequest request;
  request.passes = passes;
  request.method = method;
  request.backward = options.backward;
  request.names = PythonOptionNames();
  return request;
}

}  // namespace

Target MakeTarget(py::handle object, const std::string& method, const std::string& passes) {
  Target target;
  target.method = method;
  if (method.empty()) Throw(absl::InvalidArgumentError("method must not be empty"));
  std::vector<Pass> parsed = Take(PassesFrom(passes));
  if (py::isinstance<torch::jit::Module>(object)) {
    torch::jit::Module module = py::cast<torch::jit::Module>(object);
    if (!module.find_method(method).has_value()) {
      Throw(absl::InvalidArgumentError(absl::StrCat(
          module.type()->name() ? module.type()->name()->name() : "module", " has no method '", method, "'")));
    }
    PrepareOptions prepare;
    prepare.method = method;
    prepare.passes = std::move(parsed);
    absl::StatusOr<PreparedGraph> prepared;
    {
      py::gil_scoped_release no_gil;  // passes (optimize_for_inference) can take a while
      prepared = PrepareMethod(module, prepare);
    }
    target.prepared = Take(std::move(prepared));
    target.module = module;
    target.name = target.prepared.name;
    target.transformed = !target.prepared.passes.empty();
    target.reference = absl::StrCat("module.", method);
    return target;
  }
  if (py::isinstance<torch::jit::StrongFunctionPtr>(object)) {
    if (!parsed.empty()) {
      Throw(absl::InvalidArgumentError("passes apply to modules, not to script functions"));
    }
    if (method != "forward") Throw(absl::InvalidArgumentError("method applies to modules, not to script functions"));
    torch::jit::StrongFunctionPtr function = py::cast<torch::jit::StrongFunctionPtr>(object);
    torch::jit::GraphFunction* graph_function = torch::jit::tryToGraphFunction(*function.function_);
    if (graph_function == nullptr) {
      Throw(absl::InvalidArgumentError(absl::StrCat(function.function_->name(), " is not a TorchScript graph function")));
    }
    target.prepared = Take(PrepareGraph(*graph_function->graph(), function.function_->name()));
    target.function = function;
    target.name = target.prepared.name;
    target.reference = function.function_->name();
    return target;
  }
  throw py::type_error(absl::StrCat("expected a torch.jit.ScriptModule or torch.jit.ScriptFunction, got ",
                                    py::str(py::type::handle_of(object).attr("__name__")).cast<std::string>()));
}

std::vector<c10::IValue> ConvertInputs(const PreparedGraph& prepared, const py::tuple& args, bool fewer_ok) {
  const size_t expected = prepared.num_user_inputs();
  if (args.size() != expected && !(fewer_ok && args.size() < expected)) {
    // Interpreter::BindInputs's message.
    Throw(absl::InvalidArgumentError(absl::StrCat(prepared.name, " takes ", expected, " input",
                                                  expected == 1 ? "" : "s", " (", prepared.DescribeUserInputs(),
                                                  ") but got ", args.size())));
  }
  const auto graph_inputs = prepared.graph->inputs();
  const size_t first = prepared.has_self() ? 1 : 0;
  std::vector<c10::IValue> inputs;
  inputs.reserve(args.size());
  for (size_t i = 0; i < args.size(); ++i) {
    const torch::jit::Value* param = graph_inputs[first + i];
    try {
      inputs.push_back(torch::jit::toIValue(args[i], param->type()));
    } catch (const std::exception&) {
      // Interpreter::BindInputs's wording, with the Python type (pybind11's
      // cast message adds nothing).
      std::string got = py::str(py::type::handle_of(args[i]).attr("__name__"));
      Throw(absl::InvalidArgumentError(absl::StrCat(prepared.name, ": input ", i + 1, " (", param->debugNameBase(),
                                                    ") must be ", param->type()->annotation_str(), " but got ",
                                                    got)));
    }
  }
  return inputs;
}

ReportPtr ProfileTarget(py::handle object, const py::tuple& args, const std::string& method,
                        const std::string& passes, const CommonOptions& options, const std::string& name) {
  CheckOptions(options);
  Target target = MakeTarget(object, method, passes);
  std::vector<c10::IValue> inputs = ConvertInputs(target.prepared, args);
  // The session profile_graph runs (profilers/session/session.h).
  SessionModel model;
  model.name = name.empty() ? target.prepared.name : name;
  model.module = target.module;
  model.method = method;
  model.run_native = [&target](const std::vector<c10::IValue>& in) { return target.RunNative(in); };
  SessionOptions session;
  session.profile = MakeProfileOptions(options);
  session.verify = options.verify;
  session.check.transformed = target.transformed;
  session.check.rtol = options.rtol;
  session.check.atol = options.atol;
  session.check.float64_reference = !options.tolerance_given;
  session.check.reference = target.reference;
  model.prepared = std::move(target.prepared);
  absl::StatusOr<Report> report;
  {
    py::gil_scoped_release no_gil;
    torch::NoGradGuard no_grad;
    report = RunProfileSession(std::move(model), inputs, session);
  }
  return std::make_shared<Report>(Take(std::move(report)));
}

void CheckProgramRequest(const std::string& passes, const std::string& method, const CommonOptions& options) {
  Check(CheckAbilities("profile(ep)", ExportAbilities(), RequestOf(passes, method, options)));
}

ReportPtr ProfileSourceFile(const std::string& path, const py::tuple& args, const std::string& method,
                            const std::string& passes, const CommonOptions& options, const std::string& name) {
  const SourceRequest request = RequestOf(passes, method, options);
  absl::StatusOr<std::unique_ptr<ModelSource>> opened;
  {
    py::gil_scoped_release no_gil;  // loading and passes can take a while
    opened = OpenModelSource(path, request);
  }
  std::unique_ptr<ModelSource> source = Take(std::move(opened));  // raises: needs the GIL
  std::vector<c10::IValue> inputs;
  std::string inputs_note;
  if (args.empty() && source->prepared().num_user_inputs() > 0) {
    absl::StatusOr<SuppliedInputs> supplied = source->SupplyInputs(0);
    if (absl::IsNotFound(supplied.status())) {
      Throw(absl::InvalidArgumentError(absl::StrCat(source->name(), " needs inputs for (",
                                                    source->prepared().DescribeUserInputs(), "): pass them")));
    }
    SuppliedInputs given = Take(std::move(supplied));
    inputs = std::move(given.values);
    inputs_note = std::move(given.note);
  } else {
    inputs = ConvertInputs(source->prepared(), args, /*fewer_ok=*/true);  // the rest: defaults
  }
  std::string defaulted;
  inputs = Take(source->CompleteInputs(std::move(inputs), &defaulted));
  SessionOptions session;
  session.profile = MakeProfileOptions(options);
  session.verify = options.verify;
  Tolerance tolerance;
  tolerance.rtol = options.rtol;
  tolerance.atol = options.atol;
  tolerance.given = options.tolerance_given;
  absl::StatusOr<Report> report;
  {
    py::gil_scoped_release no_gil;
    torch::NoGradGuard no_grad;
    report = ProfileSource(*source, inputs, session, tolerance);
  }
  ReportPtr result = std::make_shared<Report>(Take(std::move(report)));
  if (!name.empty()) result->model = name;
  if (!inputs_note.empty()) result->notes.push_back(absl::StrCat("inputs: ", inputs_note));
  if (!defaulted.empty()) result->notes.push_back(absl::StrCat("inputs not given took the method's defaults: ", defaulted));
  return result;
}

AbResult ProfileAb(py::handle object, const std::string& passes, const py::tuple& args, const std::string& method,
                   const CommonOptions& options, bool diff_all, const std::string& name, double min_effect,
                   double alpha, int copies) {
  CheckOptions(options);
  if (passes.empty()) Throw(absl::InvalidArgumentError("ab: give the passes to compare with (e.g. \"freeze\")"));
  if (!py::isinstance<torch::jit::Module>(object)) {
    throw py::type_error("ab() needs a torch.jit.ScriptModule (passes apply to modules)");
  }
  std::vector<Pass> parsed = Take(ParsePasses(passes));
  Target target = MakeTarget(object, method, "");  // the module as given: inputs are checked against it
  std::vector<c10::IValue> inputs = ConvertInputs(target.prepared, args);
  BeforeAfterOptions ab;
  ab.profile = MakeProfileOptions(options);
  ab.method = method;
  ab.diff.include_unexecuted = diff_all;
  ab.diff.verdict.min_effect = min_effect;
  ab.diff.verdict.alpha = alpha;
  ab.diff.names = PythonOptionNames();
  ab.verify = options.verify;
  ab.rtol = options.rtol;
  ab.atol = options.atol;
  ab.float64_reference = !options.tolerance_given;
  ab.copies = copies;
  AbResult result;
  absl::StatusOr<BeforeAfter> done;
  {
    py::gil_scoped_release no_gil;
    torch::NoGradGuard no_grad;
    const Machine machine = DescribeMachine();  // before the runs add to the load
    done = ProfileBeforeAfter(*target.module, parsed, inputs, ab);
    if (done.ok()) {
      const std::string base = name.empty() ? target.name : name;
      const torch::jit::Module* module = target.module.has_value() ? &*target.module : nullptr;
      DescribeModel(done->before, absl::StrCat(base, " (A: as given)"), module, inputs, machine);
      DescribeModel(done->after, absl::StrCat(base, " (B: ", DescribePasses(parsed), ")"), module, inputs, machine);
      done->diff.base_model = done->before.model;
      done->diff.current_model = done->after.model;
    }
  }
  if (!done.ok()) Throw(done.status());
  result.before = std::make_shared<Report>(std::move(done->before));
  result.after = std::make_shared<Report>(std::move(done->after));
  result.diff = std::make_shared<ReportDiff>(std::move(done->diff));
  return result;
}

}  // namespace graphprof::python
