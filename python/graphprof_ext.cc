// graphprof's Python bindings (the extension module graphprof._graphprof).
//
// Everything here is glue: a Python object in, the C++ engine's own calls
// (PrepareMethod, GraphPlan::Build, Profile, ProfileBeforeAfter, Verify,
// DiffReports, ReportMerger, the renderers), plain Python data out. The
// pure-Python package (python/graphprof/) is the public API; this module's
// names start with an underscore there.
//
// Objects from torch cross without serialization: a ScriptModule's `_c` is
// the pybind11 wrapper of a torch::jit::Module and a ScriptFunction the one
// of a torch::jit::StrongFunctionPtr, both registered by libtorch_python.so
// (python3-torch); tensors and other arguments convert with torch's own
// toIValue / toPyObject. That only works because this module is built with
// the same pybind11 internals version (4, Debian's pybind11-dev 2.10 and
// python3-torch) and the same LibTorch files as torch (checked when the
// build is configured: third_party/python/python_torch.bzl).
//
// Errors: every absl::Status becomes graphprof.GraphprofError (or a
// subclass by status code, graphprof/_errors.py) carrying the same one-line
// message profile_graph prints after "profile_graph: ".
#include <pybind11/functional.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <torch/csrc/jit/api/compilation_unit.h>
#include <torch/csrc/jit/api/function_impl.h>
#include <torch/csrc/jit/python/pybind_utils.h>
#include <torch/csrc/utils/pybind.h>
#include <torch/script.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "common/output_file.h"
#include "common/status_util.h"
#include "interpreter/graph_plan.h"
#include "interpreter/interpreter.h"
#include "ir/ivalue_util.h"
#include "ir/loader.h"
#include "ir/passes.h"
#include "ir/prepared_graph.h"
#include "profilers/autograd/training_step.h"
#include "profilers/before_after.h"
#include "profilers/profiler.h"
#include "profilers/report/annotated_ir.h"
#include "profilers/report/chrome_trace.h"
#include "profilers/report/csv_report.h"
#include "profilers/report/view_columns.h"
#include "profilers/report/html_report.h"
#include "profilers/report/merge.h"
#include "profilers/report/report.h"
#include "profilers/report/report_diff.h"
#include "profilers/report/verdict.h"
#include "profilers/report/report_json.h"
#include "profilers/report/text_report.h"
#include "profilers/report/views.h"
#include "profilers/toolbox/sizes.h"

namespace py = pybind11;

namespace graphprof::python {
namespace {

// ---------------------------------------------------------------- errors --

// The message as profile_graph prints it: one line, blanks collapsed
// (tools/cli_options.cc Fail()).
std::string OneLine(absl::string_view message) {
  std::string line;
  bool space = false;
  for (char c : message) {
    if (c == '\n' || c == '\r' || c == '\t') {
      space = !line.empty();
      continue;
    }
    if (space) line += ' ';
    space = false;
    line += c;
  }
  return line;
}

const char* ErrorClass(absl::StatusCode code) {
  switch (code) {
    case absl::StatusCode::kInvalidArgument: return "InvalidArgumentError";
    case absl::StatusCode::kFailedPrecondition: return "FailedPreconditionError";
    case absl::StatusCode::kUnimplemented: return "UnsupportedGraphError";
    case absl::StatusCode::kPermissionDenied:
    case absl::StatusCode::kDataLoss: return "FileError";
    default: return "GraphprofError";
  }
}

// Raises the Python exception for `status` (not OK): the class its code
// maps to, or `error_class` (file failures are FileError whatever the
// code). The message may hold a path that is not UTF-8: decoded as the
// OS's paths are (surrogateescape).
[[noreturn]] void Throw(const absl::Status& status, const char* error_class = nullptr) {
  py::module_ errors = py::module_::import("graphprof._errors");
  const std::string line = OneLine(status.message());
  py::object message = py::reinterpret_steal<py::object>(
      PyUnicode_DecodeUTF8(line.data(), static_cast<Py_ssize_t>(line.size()), "surrogateescape"));
  if (!message) throw py::error_already_set();
  py::object exception = errors.attr(error_class != nullptr ? error_class : ErrorClass(status.code()))(message);
  exception.attr("code") = absl::StatusCodeToString(status.code());
  PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(exception.ptr())), exception.ptr());
  throw py::error_already_set();
}

// Raises `exception` (a Python exception instance, its traceback kept) again.
[[noreturn]] void Reraise(const py::object& exception) {
  PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(exception.ptr())), exception.ptr());
  throw py::error_already_set();
}

void Check(const absl::Status& status) {
  if (!status.ok()) Throw(status);
}

template <typename T>
T Take(absl::StatusOr<T> value) {
  if (!value.ok()) Throw(value.status());
  return *std::move(value);
}

// ---------------------------------------------------------------- targets --

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

absl::StatusOr<std::vector<Pass>> PassesFrom(const std::string& passes) {
  if (passes.empty()) return std::vector<Pass>{};
  return ParsePasses(passes);
}

// `object`: a torch._C.ScriptModule (a ScriptModule's `_c`) or a torch.jit.ScriptFunction.
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

// Python arguments -> the graph's inputs, converted as TorchScript converts
// the arguments of a call (torch::jit::toIValue against the input's type).
std::vector<c10::IValue> ConvertInputs(const PreparedGraph& prepared, const py::tuple& args) {
  const size_t expected = prepared.num_user_inputs();
  if (args.size() != expected) {
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

// Model facts every report carries (profile_command.cc Describe()).
void Describe(Report& report, const Target& target, const std::vector<c10::IValue>& inputs,
              const std::string& name) {
  report.model = name;
  if (target.module.has_value()) {
    report.parameters = CountParameters(*target.module, /*trainable_only=*/false);
    report.trainable_parameters = CountParameters(*target.module, /*trainable_only=*/true);
    if (absl::StatusOr<int64_t> bytes = SerializedModelSize(*target.module); bytes.ok()) report.model_bytes = *bytes;
    if (target.module->is_training()) {
      report.notes.push_back(
          "the module is in training mode (dropout active, batch norm on batch statistics): call .eval() for "
          "inference numbers");
    }
  }
  report.input_bytes = DataSize(inputs);
}

// ---------------------------------------------------------------- reports --

double Nan() { return std::numeric_limits<double>::quiet_NaN(); }

// A view as columns (name -> list): the columns of RenderCsv in its order,
// at full precision, then depth and nodes (members). graphprof.Report.to_pandas
// picks the ones that mean something for the view.
py::dict ViewColumns(const Report& report, const View& view) {
  std::vector<std::string> names = ViewColumnNames(report);
  names.push_back("depth");
  names.push_back("nodes");
  std::vector<py::list> columns(names.size());
  for (const ViewRow& row : view.rows) {
    size_t c = 0;
    for (const ViewCell& cell : ViewRowCells(report, row)) {
      switch (cell.kind) {
        case ViewCell::Kind::kEmpty:
          // Text columns (the slowest report) get None, number columns NaN.
          columns[c].append(names[c] == "slowest_report" ? py::object(py::none()) : py::float_(Nan()));
          break;
        case ViewCell::Kind::kInt: columns[c].append(py::int_(cell.integer)); break;
        case ViewCell::Kind::kMicros: columns[c].append(py::float_(cell.number / 1e3)); break;
        case ViewCell::Kind::kPercent:
        case ViewCell::Kind::kNumber: columns[c].append(py::float_(cell.number)); break;
        case ViewCell::Kind::kText: columns[c].append(py::str(cell.text)); break;
      }
      ++c;
    }
    columns[c++].append(py::int_(row.depth));
    columns[c++].append(py::int_(row.members));
  }
  py::dict out;
  for (size_t c = 0; c < names.size(); ++c) out[py::str(names[c])] = columns[c];
  return out;
}

View MakeViewOrThrow(const Report& report, const std::string& group_by, const std::string& sort, int top,
                     const std::vector<std::string>& modules) {
  if (top < 0) Throw(absl::InvalidArgumentError("top must be 0 (all rows) or more"));
  ViewOptions options;
  options.group_by = Take(ParseGroupBy(group_by));
  options.sort = sort;
  options.top = top;
  options.modules = modules;
  return Take(MakeView(report, options));
}

py::dict MemoryDict(const NodeMemory& m) {
  py::dict d;
  for (const NodeMemoryField& field : kNodeMemoryFields) d[field.name] = m.*field.value;
  return d;
}

py::dict IdentityDict(const NodeIdentity& id) {
  py::dict d;
  d["id"] = id.id;
  d["parent"] = id.parent;
  d["depth"] = id.depth;
  d["name"] = id.label;
  d["kind"] = id.kind;
  d["schema"] = id.schema;
  d["module"] = id.module;
  d["source"] = id.source;
  d["archive_source"] = id.archive_source;
  return d;
}

// Every node as a plain dict: identity, shapes, and the raw per-run samples
// (nanoseconds; metrics after host time under "metrics").
py::list NodeRecords(const Report& report) {
  py::list out;
  for (const NodeRecord& node : report.nodes) {
    py::dict d = IdentityDict(node.identity);
    d["input_shapes"] = node.input_shapes;
    d["output_shapes"] = node.output_shapes;
    d["calls"] = node.calls;
    d["total_ns"] = node.time().total;
    d["self_ns"] = node.time().self;
    py::dict metrics;
    for (size_t m = 1; m < report.metrics.size() && m < node.metrics.size(); ++m) {
      py::dict series;
      series["total"] = node.metrics[m].total;
      series["self"] = node.metrics[m].self;
      metrics[py::str(report.metrics[m].name)] = series;
    }
    d["metrics"] = metrics;
    d["memory"] = node.memory ? py::object(MemoryDict(*node.memory)) : py::none();
    d["top_kernels"] = node.top_kernels;
    d["executed"] = node.executed();
    // The work (flops, bytes, ...), by the report's quantities.
    for (size_t q = 0; q < report.quantities.size(); ++q) {
      d[py::str(report.quantities[q].name)] = q < node.quantities.size() ? node.quantities[q] : 0.0;
    }
    d["work_counted"] = node.work_counted;
    out.append(d);
  }
  return out;
}

py::object ComparisonDict(const std::optional<Verification>& verification) {
  if (!verification.has_value()) return py::none();
  const Verification& v = *verification;
  py::dict d;
  d["identical"] = v.identical;
  d["within_tolerance"] = v.within_tolerance;
  d["passed"] = v.passed();
  d["max_abs_error"] = v.max_abs_error;
  d["max_rel_error"] = v.max_rel_error;
  d["rtol"] = v.rtol;
  d["atol"] = v.atol;
  d["detail"] = v.detail;
  d["reference"] = v.reference;
  return d;
}

py::object VerificationDict(const Report& report) { return ComparisonDict(report.verification); }
py::object GradientVerificationDict(const Report& report) { return ComparisonDict(report.gradient_verification); }

py::object MemorySummaryDict(const Report& report) {
  if (!report.memory.has_value()) return py::none();
  const MemorySummary& m = *report.memory;
  py::dict d;
  d["peak_bytes"] = m.peak_bytes;
  d["peak_node"] = m.peak_node;
  d["allocated_bytes"] = m.allocated_bytes;
  d["freed_bytes"] = m.freed_bytes;
  d["allocations"] = m.allocations;
  if (m.backward) {  // the JSON summary's backward keys
    d["backward_peak_bytes"] = m.backward_peak_bytes;
    d["backward_peak_node"] = m.backward_peak_node;
    d["saved_bytes"] = m.saved_bytes;
  }
  py::list timeline;
  for (const MemoryPoint& p : m.timeline) timeline.append(py::make_tuple(p.node, p.live_bytes));
  d["timeline"] = timeline;
  return d;
}

// profile_command.cc's table output: summary, the view, and for nodes the
// by-kind table.
std::string RenderText(const Report& report, const std::string& group_by, int top, const std::string& sort,
                       bool memory, bool summary) {
  View main = MakeViewOrThrow(report, group_by, sort, top, {});
  std::string out = summary ? RenderSummary(report) + "\n" : "";
  const std::string title = main.group_by == GroupBy::kNode ? "top nodes" : absl::StrCat("by ", group_by);
  absl::StrAppend(&out, RenderTable(report, main, TableOptions{memory, title}));
  if (summary && main.group_by == GroupBy::kNode) {
    View kinds = MakeViewOrThrow(report, "kind", "", top, {});
    absl::StrAppend(&out, "\n", RenderTable(report, kinds, TableOptions{memory, "by kind (self time)"}));
  }
  return out;
}

using ReportPtr = std::shared_ptr<Report>;
using DiffPtr = std::shared_ptr<ReportDiff>;

// The verdict columns of a diff table (the same names as its CSV and JSON).
struct StatsColumns {
  py::list verdict, change, change_low, change_high, p, q, base_median_us, current_median_us;
  void Append(const RowComparison& s) {
    verdict.append(VerdictName(s.verdict));
    change.append(s.change);
    change_low.append(s.change_low);
    change_high.append(s.change_high);
    p.append(s.p);
    q.append(s.q);
    base_median_us.append(s.base_median / 1e3);
    current_median_us.append(s.current_median / 1e3);
  }
  void Into(py::dict& out) const {
    out["verdict"] = verdict;
    out["change"] = change;
    out["change_low"] = change_low;
    out["change_high"] = change_high;
    out["p"] = p;
    out["q"] = q;
    out["base_median_us"] = base_median_us;
    out["current_median_us"] = current_median_us;
  }
};

py::dict StatsDict(const RowComparison& s) {
  py::dict out;
  out["verdict"] = VerdictName(s.verdict);
  out["change"] = s.change;
  out["change_low"] = s.change_low;
  out["change_high"] = s.change_high;
  out["p"] = s.p;
  out["q"] = s.q;
  out["base_median_us"] = s.base_median / 1e3;
  out["current_median_us"] = s.current_median / 1e3;
  out["base_mean_us"] = s.base_mean / 1e3;
  out["current_mean_us"] = s.current_mean / 1e3;
  out["reason"] = s.reason;
  return out;
}

py::dict CountsDict(const VerdictCounts& counts) {
  py::dict out;
  for (int v = 0; v < kNumVerdicts; ++v) out[VerdictName(static_cast<Verdict>(v))] = counts.counts[v];
  return out;
}

py::dict DiffNodeColumns(const ReportDiff& diff) {
  py::list name, kind, module, match, base_id, current_id, base_us, current_us, delta_us, speedup;
  StatsColumns stats;
  for (const NodeDelta& d : diff.nodes) {
    stats.Append(d.stats);
    name.append(d.name);
    kind.append(d.kind);
    module.append(d.module);
    match.append(MatchName(d.match));
    base_id.append(d.base_id >= 0 ? py::object(py::float_(static_cast<double>(d.base_id))) : py::float_(Nan()));
    current_id.append(d.current_id >= 0 ? py::object(py::float_(static_cast<double>(d.current_id))) : py::float_(Nan()));
    base_us.append(d.base_ns / 1e3);
    current_us.append(d.current_ns / 1e3);
    delta_us.append(d.delta_ns() / 1e3);
    speedup.append(d.speedup());
  }
  py::dict out;
  out["name"] = name;
  out["kind"] = kind;
  out["module"] = module;
  out["match"] = match;
  out["base_id"] = base_id;
  out["current_id"] = current_id;
  out["base_us"] = base_us;
  out["current_us"] = current_us;
  out["delta_us"] = delta_us;
  out["speedup"] = speedup;
  stats.Into(out);
  return out;
}

py::dict DiffGroupColumns(const std::vector<GroupDelta>& groups, const char* key) {
  py::list name, depth, base_nodes, current_nodes, base_us, current_us, delta_us, speedup;
  StatsColumns stats;
  for (const GroupDelta& g : groups) {
    stats.Append(g.stats);
    name.append(g.name);
    depth.append(g.depth);
    base_nodes.append(g.base_nodes);
    current_nodes.append(g.current_nodes);
    base_us.append(g.base_ns / 1e3);
    current_us.append(g.current_ns / 1e3);
    delta_us.append(g.delta_ns() / 1e3);
    speedup.append(g.speedup());
  }
  py::dict out;
  out[key] = name;
  if (std::string(key) == "module") out["depth"] = depth;
  out["base_nodes"] = base_nodes;
  out["current_nodes"] = current_nodes;
  out["base_us"] = base_us;
  out["current_us"] = current_us;
  out["delta_us"] = delta_us;
  out["speedup"] = speedup;
  stats.Into(out);
  return out;
}

// ---------------------------------------------------------------- profile --

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
};

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
  if (!o.clock.empty()) {
    absl::StatusOr<std::shared_ptr<TimeSource>> clock = MakeTimeSource(o.clock);
    if (!clock.ok()) Throw(absl::InvalidArgumentError(absl::StrCat("clock: ", clock.status().message())));
    profile.clock = *std::move(clock);
  }
  return profile;
}

// graphprof.profile(): profile_command.cc's flow for one module.
ReportPtr ProfileTarget(py::handle object, const py::tuple& args, const std::string& method,
                        const std::string& passes, const CommonOptions& options, const std::string& name) {
  CheckOptions(options);
  Target target = MakeTarget(object, method, passes);
  std::vector<c10::IValue> inputs = ConvertInputs(target.prepared, args);
  const std::string applied = target.prepared.passes;
  auto report = std::make_shared<Report>();
  const ProfileOptions profile_options = MakeProfileOptions(options);
  {
    py::gil_scoped_release no_gil;
    torch::NoGradGuard no_grad;
    absl::StatusOr<std::shared_ptr<const GraphPlan>> plan = GraphPlan::Build(std::move(target.prepared));
    absl::Status status = plan.status();
    c10::IValue output;
    if (status.ok()) {
      absl::StatusOr<Report> profiled = Profile(*plan, inputs, profile_options, &output);
      status = profiled.status();
      if (status.ok()) *report = *std::move(profiled);
    }
    if (status.ok()) {
      Describe(*report, target, inputs, name.empty() ? report->model : name);
      if (!applied.empty()) report->notes.push_back(absl::StrCat("passes applied: ", applied));
      if (options.verify) {
        absl::StatusOr<c10::IValue> expected = target.RunNative(inputs);
        status = expected.status();
        if (status.ok()) {
          // Passes change float rounding: then the comparison is within tolerance.
          const double rtol = target.transformed ? options.rtol : 0;
          const double atol = target.transformed ? options.atol : 0;
          report->verification = Verify(*expected, output, rtol, atol, target.reference);
        }
        if (status.ok() && options.backward) {
          // The parameters hold the last timed run's gradients; RunNative
          // runs the module as given (after passes, not the plan's clone).
          c10::optional<c10::IValue> native_self = (*plan)->self();
          if (target.transformed && target.module.has_value()) native_self = target.module->_ivalue();
          const double rtol = target.transformed ? options.rtol : 0;
          const double atol = target.transformed ? options.atol : 0;
          absl::StatusOr<Verification> gradients = VerifyGradients(
              (*plan)->self(), native_self, profile_options.backward,
              [&](const std::vector<c10::IValue>& in) { return target.RunNative(in); }, inputs, rtol, atol,
              absl::StrCat(target.reference, " + backward"));
          status = gradients.status();
          if (status.ok()) SetGradientVerification(*report, *std::move(gradients));
        }
      }
    }
    if (!status.ok()) {
      py::gil_scoped_acquire gil;
      Throw(status);
    }
  }
  return report;
}

struct AbResult {
  ReportPtr before;
  ReportPtr after;
  DiffPtr diff;
};

// graphprof.ab(): ProfileBeforeAfter, described as profile_graph --ab does.
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
  ab.verify = options.verify;
  ab.rtol = options.rtol;
  ab.atol = options.atol;
  ab.copies = copies;
  AbResult result;
  absl::StatusOr<BeforeAfter> done;
  {
    py::gil_scoped_release no_gil;
    torch::NoGradGuard no_grad;
    done = ProfileBeforeAfter(*target.module, parsed, inputs, ab);
    if (done.ok()) {
      const std::string base = name.empty() ? target.name : name;
      Describe(done->before, target, inputs, absl::StrCat(base, " (A: as given)"));
      Describe(done->after, target, inputs, absl::StrCat(base, " (B: ", DescribePasses(parsed), ")"));
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

// ------------------------------------------------------------ interpreter --

class PyInterpreter;

// The node a Python run_node override is given. Its values are readable only
// during that call.
struct PyNode {
  std::shared_ptr<const GraphPlan> plan;
  const NodePlan* node = nullptr;
  PyInterpreter* interpreter = nullptr;  // null once the call returned
  bool dispatched = false;               // the default handler ran
  // With keep_arguments: the node's arguments, copied before it ran.
  std::optional<std::vector<c10::IValue>> arguments;
};

// graphprof.Interpreter's C++ side: the C++ Interpreter whose RunNode calls
// a Python override of run_node when the Python class has one.
class PyInterpreter : public Interpreter {
 public:
  PyInterpreter(std::shared_ptr<const GraphPlan> plan, Options options) : Interpreter(std::move(plan), options) {}

  // Runs with the GIL held when run_node is overridden (every node calls
  // Python), else without it.
  py::object RunPython(const py::tuple& args) {
    std::vector<c10::IValue> inputs = ConvertInputs(plan().prepared(), args);
    // One run at a time (checked under the GIL): the fast path releases the
    // GIL, and an Interpreter's values are per run.
    if (running_) {
      throw py::value_error("this Interpreter is already running (run() from run_node, or from two threads): "
                            "make one Interpreter per thread");
    }
    running_ = true;
    struct Done {
      bool& flag;
      ~Done() { flag = false; }
    } done{running_};
    override_ = py::get_override(static_cast<const Interpreter*>(this), "run_node");
    absl::StatusOr<c10::IValue> output;
    if (override_) {
      output = Run(std::move(inputs));
    } else {
      py::gil_scoped_release no_gil;
      output = Run(std::move(inputs));
    }
    override_ = py::function();
    if (python_error_) {
      py::object error = std::move(python_error_);
      python_error_ = py::object();
      Reraise(error);
    }
    if (!output.ok()) Throw(output.status());
    return torch::jit::toPyObject(*std::move(output));
  }

  // super().run_node(node) from Python: the default handler, whose outputs
  // stay readable until the override returns.
  void RunDefault(PyNode& node) {
    if (node.interpreter != this) throw py::value_error("run_node: this node is not being run by this interpreter");
    if (node.dispatched) throw py::value_error("run_node: node already ran");
    node.dispatched = true;
    absl::Status status = Dispatch(*node.node);
    // A run_node override of a nested node raised: re-raise that exception
    // in this (enclosing) override, unchanged.
    if (python_error_) Reraise(python_error_);
    if (!status.ok()) Throw(status);
  }

  py::list Inputs(const PyNode& node) {
    Live(node);
    py::list out;
    if (!node.dispatched) {
      for (size_t i = 0; i < node.node->inputs.size(); ++i) {
        out.append(torch::jit::toPyObject(InputValue(*node.node, i)));
      }
      return out;
    }
    if (!node.arguments.has_value()) {
      throw py::value_error("inputs: after super().run_node(node) the inputs were consumed; read them before, or "
                            "construct the Interpreter with keep_arguments=True");
    }
    for (const c10::IValue& value : *node.arguments) out.append(torch::jit::toPyObject(value));
    return out;
  }

  py::list Outputs(const PyNode& node) {
    Live(node);
    py::list out;
    for (size_t i = 0; i < node.node->outputs.size(); ++i) out.append(torch::jit::toPyObject(OutputValue(*node.node, i)));
    return out;
  }

  void SetOutputFromPython(PyNode& node, size_t i, py::handle value) {
    Live(node);
    if (i >= node.node->outputs.size()) throw py::index_error("set_output: no such output");
    const torch::jit::Node* graph_node = node.node->node;
    c10::IValue converted = torch::jit::toIValue(value, graph_node->outputs()[i]->type());
    SetOutput(*node.node, i, std::move(converted));
  }

 protected:
  absl::Status RunNode(const NodePlan& node) override {
    if (!override_ || python_error_) return Interpreter::RunNode(node);
    auto handle = std::make_shared<PyNode>();
    handle->plan = shared_plan();
    handle->node = &node;
    handle->interpreter = this;
    if (Arguments().size() == node.inputs.size() && keep_arguments_) {
      handle->arguments.emplace(Arguments().begin(), Arguments().end());
    }
    try {
      override_(handle);
    } catch (py::error_already_set& e) {
      handle->interpreter = nullptr;
      if (!python_error_) python_error_ = e.value();
      return absl::CancelledError("run_node raised");
    }
    handle->interpreter = nullptr;
    ReleaseDeadValues(node);
    return absl::OkStatus();
  }

 private:
  void Live(const PyNode& node) const {
    if (node.interpreter != this) throw py::value_error("this node's values are only readable inside run_node");
  }

  py::function override_;
  bool running_ = false;
  // The exception a run_node override raised (it ends the run).
  py::object python_error_;

 public:
  bool keep_arguments_ = false;
};

std::shared_ptr<PyInterpreter> MakeInterpreter(py::handle object, const std::string& method,
                                               const std::string& passes, bool keep_arguments) {
  Target target = MakeTarget(object, method, passes);
  std::shared_ptr<const GraphPlan> plan = Take(GraphPlan::Build(std::move(target.prepared)));
  Interpreter::Options options;
  options.keep_arguments = keep_arguments;
  auto interpreter = std::make_shared<PyInterpreter>(std::move(plan), options);
  interpreter->keep_arguments_ = keep_arguments;
  return interpreter;
}

}  // namespace
}  // namespace graphprof::python

PYBIND11_MODULE(_graphprof, m) {
  using namespace graphprof;
  using namespace graphprof::python;
  m.doc() = "graphprof's C++ engine (use the graphprof package, not this module)";

  py::class_<Report, ReportPtr>(m, "_Report")
      .def_property_readonly("model", [](const Report& r) { return r.model; })
      .def_property_readonly("runs", [](const Report& r) { return r.runs; })
      .def_property_readonly("warmup", [](const Report& r) { return r.warmup; })
      .def_property_readonly("clock", [](const Report& r) { return r.clock; })
      .def_property_readonly("total_us", &Report::total_us)
      .def_property_readonly("coverage", &Report::coverage)
      .def_property_readonly("timer_overhead_ns", [](const Report& r) { return r.timer_overhead_ns; })
      .def_property_readonly("timer_inner_ns", [](const Report& r) { return r.timer_inner_ns; })
      .def_property_readonly("timer_block_ns", [](const Report& r) { return r.timer_block_ns; })
      .def_property_readonly("compensated", [](const Report& r) { return r.compensated; })
      .def_property_readonly("run_ns", [](const Report& r) { return r.run_ns(); })
      .def_property_readonly("executions_per_run", &Report::executions_per_run)
      .def_property_readonly("metrics", [](const Report& r) {
        std::vector<std::string> names;
        for (const Metric& metric : r.metrics) names.push_back(metric.name);
        return names;
      })
      .def_property_readonly("parameters", [](const Report& r) { return r.parameters; })
      .def_property_readonly("trainable_parameters", [](const Report& r) { return r.trainable_parameters; })
      .def_property_readonly("model_bytes", [](const Report& r) { return r.model_bytes; })
      .def_property_readonly("input_bytes", [](const Report& r) { return r.input_bytes; })
      .def_property_readonly("notes", [](const Report& r) { return r.notes; })
      .def_property_readonly("num_nodes", [](const Report& r) { return r.nodes.size(); })
      .def_property_readonly("num_events", [](const Report& r) { return r.events.size(); })
      .def_property_readonly("run_sources", [](const Report& r) {
        py::list out;
        for (const RunSource& s : r.run_sources) out.append(py::make_tuple(s.name, s.first_run, s.runs));
        return out;
      })
      .def("verification", &VerificationDict)
      .def("gradient_verification", &GradientVerificationDict)
      .def_property_readonly("loss", [](const Report& r) { return r.loss; })
      .def("memory", &MemorySummaryDict)
      .def("nodes", &NodeRecords)
      .def("summary", [](const Report& r) { return RenderSummary(r); })
      .def("verification_failure",
           [](const Report& r, const std::string& method) -> py::object {
             // profile_command.cc VerificationExit()'s message.
             if (r.verification.has_value() && !r.verification->passed()) {
               const Verification& v = *r.verification;
               return py::str(OneLine(absl::StrCat("output differs from native ", method, ": ", v.detail,
                                                   " (max abs error ", v.max_abs_error, ", max rel error ",
                                                   v.max_rel_error, ")")));
             }
             if (r.gradient_verification.has_value() && !r.gradient_verification->passed()) {
               const Verification& v = *r.gradient_verification;
               return py::str(OneLine(absl::StrCat("gradients differ from native ", method, " + backward: ",
                                                   v.detail, " (max abs error ", v.max_abs_error,
                                                   ", max rel error ", v.max_rel_error, ")")));
             }
             return py::none();
           })
      .def("describe_verification", [](const Report& r) { return DescribeVerification(r); })
      .def("text", &RenderText, py::arg("group_by"), py::arg("top"), py::arg("sort"), py::arg("memory"),
           py::arg("summary"))
      .def(
          "view_columns",
          [](const Report& r, const std::string& group_by, const std::string& sort, int top,
             const std::vector<std::string>& modules) {
            return ViewColumns(r, MakeViewOrThrow(r, group_by, sort, top, modules));
          },
          py::arg("group_by"), py::arg("sort"), py::arg("top"), py::arg("modules"))
      .def(
          "csv",
          [](const Report& r, const std::string& group_by, const std::string& sort, int top) {
            return RenderCsv(r, MakeViewOrThrow(r, group_by, sort, top, {}));
          },
          py::arg("group_by"), py::arg("sort"), py::arg("top"))
      .def("to_json", [](const Report& r) {
        std::string json;
        {
          py::gil_scoped_release no_gil;
          json = ReportToJson(r);
        }
        return py::bytes(json);
      })
      .def("chrome_trace", [](const Report& r) { return py::bytes(RenderChromeTrace(r)); })
      .def("annotated_ir", [](const Report& r) { return Take(RenderAnnotatedIr(r)); })
      .def(
          "html",
          [](const Report& r, const ReportDiff* diff) { return py::bytes(RenderHtml(r, diff)); },
          py::arg("diff") = nullptr)
      .def_static("from_json", [](const std::string& json) {
        return std::make_shared<Report>(Take(ReportFromJson(json)));
      });

  py::class_<ReportDiff, DiffPtr>(m, "_Diff")
      .def_property_readonly("base_model", [](const ReportDiff& d) { return d.base_model; })
      .def_property_readonly("current_model", [](const ReportDiff& d) { return d.current_model; })
      .def_property_readonly("base_total_us", [](const ReportDiff& d) { return d.base_total_ns / 1e3; })
      .def_property_readonly("current_total_us", [](const ReportDiff& d) { return d.current_total_ns / 1e3; })
      .def_property_readonly("speedup", &ReportDiff::speedup)
      .def_property_readonly("matched_time_fraction", [](const ReportDiff& d) { return d.matched_time_fraction; })
      .def_property_readonly("total", [](const ReportDiff& d) { return StatsDict(d.total); })
      .def_property_readonly("verdict_counts", [](const ReportDiff& d) {
        py::dict c;
        c["nodes"] = CountsDict(d.node_verdicts);
        c["modules"] = CountsDict(d.module_verdicts);
        c["kinds"] = CountsDict(d.kind_verdicts);
        return c;
      })
      .def_property_readonly("noise_model", [](const ReportDiff& d) { return NoiseModelName(d.noise_model); })
      .def_property_readonly("noise_note", [](const ReportDiff& d) { return d.noise_note; })
      .def("offenders", [](const ReportDiff& d, const std::vector<std::string>& fail_on) {
        // check(): the slower rows of the tables fail_on names.
        auto wants = [&](const char* what) {
          return std::find(fail_on.begin(), fail_on.end(), what) != fail_on.end();
        };
        py::list rows;
        auto add = [&](const char* what, const std::string& name, double base_ns, double current_ns,
                       const RowComparison& stats) {
          py::dict row = StatsDict(stats);
          row["what"] = what;
          row["name"] = name;
          row["base_us"] = base_ns / 1e3;
          row["current_us"] = current_ns / 1e3;
          rows.append(row);
        };
        if (wants("total") && d.total.verdict == Verdict::kSlower) {
          add("total", "run time", d.base_total_ns, d.current_total_ns, d.total);
        }
        if (wants("module")) {
          for (const GroupDelta& g : d.modules) {
            if (g.stats.verdict == Verdict::kSlower) add("module", g.name, g.base_ns, g.current_ns, g.stats);
          }
        }
        if (wants("node")) {
          for (const NodeDelta& n : d.nodes) {
            if (n.stats.verdict == Verdict::kSlower) add("node", n.name, n.base_ns, n.current_ns, n.stats);
          }
        }
        return rows;
      }, py::arg("fail_on"))
      .def_property_readonly("counts", [](const ReportDiff& d) {
        py::dict c;
        c["same"] = d.same;
        c["kind_and_module"] = d.kind_and_module;
        c["replaced"] = d.replaced;
        c["merged"] = d.merged;
        c["added"] = d.added;
        c["removed"] = d.removed;
        c["unexecuted"] = d.unexecuted;
        return c;
      })
      .def("text", [](const ReportDiff& d, int top) { return RenderDiff(d, top); }, py::arg("top"))
      .def("to_json", [](const ReportDiff& d) { return DiffToJson(d); })
      .def("csv", [](const ReportDiff& d) { return DiffToCsv(d); })
      .def("node_columns", &DiffNodeColumns)
      .def("kind_columns", [](const ReportDiff& d) { return DiffGroupColumns(d.kinds, "kind"); })
      .def("module_columns", [](const ReportDiff& d) { return DiffGroupColumns(d.modules, "module"); });

  m.def(
      "profile",
      [](py::handle target, const py::tuple& args, int runs, int warmup, const std::string& passes, bool verify,
         double rtol, double atol, const std::string& method, const std::string& name, bool backward,
         int loss_output, const std::string& clock, bool compensate) {
        return ProfileTarget(
            target, args, method, passes,
            CommonOptions{runs, warmup, verify, rtol, atol, backward, loss_output, clock, compensate}, name);
      },
      py::arg("target"), py::arg("args"), py::arg("runs"), py::arg("warmup"), py::arg("passes"), py::arg("verify"),
      py::arg("rtol"), py::arg("atol"), py::arg("method"), py::arg("name"), py::arg("backward") = false,
      py::arg("loss_output") = -1, py::arg("clock") = "", py::arg("compensate") = true);

  m.def(
      "ab",
      [](py::handle target, const std::string& passes, const py::tuple& args, int runs, int warmup, bool verify,
         double rtol, double atol, const std::string& method, bool diff_all, const std::string& name,
         double min_effect, double alpha, int copies) {
        AbResult r = ProfileAb(target, passes, args, method, CommonOptions{runs, warmup, verify, rtol, atol},
                               diff_all, name, min_effect, alpha, copies);
        return py::make_tuple(r.before, r.after, r.diff);
      },
      py::arg("target"), py::arg("passes"), py::arg("args"), py::arg("runs"), py::arg("warmup"), py::arg("verify"),
      py::arg("rtol"), py::arg("atol"), py::arg("method"), py::arg("diff_all"), py::arg("name"),
      py::arg("min_effect") = 0.02, py::arg("alpha") = 0.05, py::arg("copies") = 3);

  m.def(
      "diff",
      [](const Report& base, const Report& current, bool diff_all, double min_effect, double alpha) {
        DiffOptions options;
        options.include_unexecuted = diff_all;
        options.verdict.min_effect = min_effect;
        options.verdict.alpha = alpha;
        return std::make_shared<ReportDiff>(DiffReports(base, current, options));
      },
      py::arg("base"), py::arg("current"), py::arg("diff_all"), py::arg("min_effect") = 0.02,
      py::arg("alpha") = 0.05);

  m.def(
      "merge",
      [](const std::vector<ReportPtr>& reports, const std::vector<std::string>& names) {
        ReportMerger merger;
        for (size_t i = 0; i < reports.size(); ++i) Check(merger.Add(*reports[i], names[i]));
        return std::make_shared<Report>(Take(merger.Finish()));
      },
      py::arg("reports"), py::arg("names"));

  // Report.load / save*: the CLI's reader (a regular file, bounded: no
  // device, pipe or directory is read) and writer (OutputFiles: whole or
  // not at all, the target's permissions or the umask's, through symlinks,
  // no temporary file left, the user's path in messages).
  m.def(
      "read_file",
      [](const std::string& path) {
        absl::StatusOr<std::string> text;
        {
          py::gil_scoped_release release;
          text = ReadFile(path);
        }
        if (!text.ok()) Throw(text.status(), "FileError");
        return py::bytes(*text);
      },
      py::arg("path"));
  m.def(
      "write_file",
      [](const std::string& path, const py::bytes& data) {
        OutputFiles files;
        files.Add(path, std::string(data));
        absl::Status written;
        {
          py::gil_scoped_release release;
          written = files.Commit();
        }
        if (!written.ok()) Throw(written, "FileError");
      },
      py::arg("path"), py::arg("data"));

  m.def("list_passes", []() {
    py::list out;
    for (const Pass& pass : BuiltinPasses()) out.append(py::make_tuple(pass.name, pass.description));
    return out;
  });

  py::class_<PyNode, std::shared_ptr<PyNode>>(m, "Node")
      .def_property_readonly("id", [](const PyNode& n) { return n.node->identity.id; })
      .def_property_readonly("parent", [](const PyNode& n) { return n.node->identity.parent; })
      .def_property_readonly("depth", [](const PyNode& n) { return n.node->identity.depth; })
      .def_property_readonly("name", [](const PyNode& n) { return n.node->identity.label; })
      .def_property_readonly("kind", [](const PyNode& n) { return n.node->identity.kind; })
      .def_property_readonly("schema", [](const PyNode& n) { return n.node->identity.schema; })
      .def_property_readonly("module", [](const PyNode& n) { return n.node->identity.module; })
      .def_property_readonly("source", [](const PyNode& n) { return n.node->identity.source; })
      .def_property_readonly("family", [](const PyNode& n) { return std::string(NodeFamilyName(n.node->family)); })
      .def_property_readonly("num_inputs", [](const PyNode& n) { return n.node->inputs.size(); })
      .def_property_readonly("num_outputs", [](const PyNode& n) { return n.node->outputs.size(); })
      .def_property_readonly("ran", [](const PyNode& n) { return n.dispatched; })
      .def("__repr__", [](const PyNode& n) {
        return absl::StrCat("<graphprof.Node ", n.node->identity.id, " ", n.node->identity.label, " (",
                            n.node->identity.kind, ")>");
      })
      .def_property_readonly("inputs", [](const PyNode& n) {
        if (n.interpreter == nullptr) throw py::value_error("this node's values are only readable inside run_node");
        return n.interpreter->Inputs(n);
      })
      .def_property_readonly("outputs", [](const PyNode& n) {
        if (n.interpreter == nullptr) throw py::value_error("this node's values are only readable inside run_node");
        return n.interpreter->Outputs(n);
      })
      .def("set_output", [](PyNode& n, size_t i, py::handle value) {
        if (n.interpreter == nullptr) throw py::value_error("this node's values are only writable inside run_node");
        n.interpreter->SetOutputFromPython(n, i, value);
      });

  py::class_<Interpreter, PyInterpreter, std::shared_ptr<Interpreter>>(m, "_Interpreter")
      .def(py::init([](py::handle target, const std::string& method, const std::string& passes, bool keep_arguments) {
             return MakeInterpreter(target, method, passes, keep_arguments);
           }),
           py::arg("target"), py::arg("method"), py::arg("passes"), py::arg("keep_arguments"))
      .def("_run", [](Interpreter& self, const py::tuple& args) { return static_cast<PyInterpreter&>(self).RunPython(args); })
      .def("run_node",
           [](Interpreter& self, PyNode& node) { static_cast<PyInterpreter&>(self).RunDefault(node); })
      .def_property_readonly("name", [](const Interpreter& self) { return self.plan().name(); })
      .def_property_readonly("graph", [](const Interpreter& self) { return self.plan().graph().toString(); })
      .def_property_readonly("nodes", [](const Interpreter& self) {
        py::list out;
        for (const NodePlan& node : self.plan().nodes()) out.append(IdentityDict(node.identity));
        return out;
      })
      .def_property_readonly("input_names", [](const Interpreter& self) { return self.plan().DescribeUserInputs(); });
}
