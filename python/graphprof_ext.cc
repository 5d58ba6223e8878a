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
// message profile_graph prints after "profile_graph: " (ext_errors.h).
//
// The parts: ext_errors (raising), ext_profile (targets, profile(), ab()),
// ext_reports (reports, views and diffs as Python data), ext_interpreter
// (graphprof.Interpreter: Python run_node overrides); here the module's
// bindings.
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
#include "interpreter/side_effects.h"
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
#include "profilers/report/html_report.h"
#include "profilers/report/gate.h"
#include "profilers/report/merge.h"
#include "profilers/report/report.h"
#include "profilers/report/report_diff.h"
#include "profilers/report/verdict.h"
#include "profilers/report/verification_failure.h"
#include "profilers/report/report_json.h"
#include "profilers/report/text_report.h"
#include "profilers/report/views.h"
#include "profilers/toolbox/sizes.h"
#include "python/ext_errors.h"
#include "python/ext_interpreter.h"
#include "python/ext_profile.h"
#include "python/ext_reports.h"

namespace py = pybind11;

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
        for (int m : r.Metrics()) names.push_back(r.columns[m].name);
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
             // The message profile_graph exits 3 with (verification_failure.h).
             const std::string failure = VerificationFailure(r, method);
             return failure.empty() ? py::object(py::none()) : py::object(py::str(OneLine(failure)));
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
      .def_property_readonly("speed", [](const ReportDiff& d) -> py::object {
        if (!d.speed_removed()) return py::none();
        py::dict speed = StatsDict(d.speed);
        speed["reference_nodes"] = d.reference_nodes;
        return speed;
      })
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
      .def("kind_columns", [](const ReportDiff& d) { return DiffGroupColumns(d, d.kinds, "kind"); })
      .def("module_columns", [](const ReportDiff& d) { return DiffGroupColumns(d, d.modules, "module"); });

  m.def(
      "profile",
      [](py::handle target, const py::tuple& args, int runs, int warmup, const std::string& passes, bool verify,
         double rtol, double atol, const std::string& method, const std::string& name, bool backward,
         int loss_output, const std::string& clock, bool compensate, bool tolerance_given, bool allow_side_effects) {
        return ProfileTarget(target, args, method, passes,
                             CommonOptions{runs, warmup, verify, rtol, atol, backward, loss_output, clock, compensate,
                                           tolerance_given, allow_side_effects},
                             name);
      },
      py::arg("target"), py::arg("args"), py::arg("runs"), py::arg("warmup"), py::arg("passes"), py::arg("verify"),
      py::arg("rtol"), py::arg("atol"), py::arg("method"), py::arg("name"), py::arg("backward") = false,
      py::arg("loss_output") = -1, py::arg("clock") = "", py::arg("compensate") = true,
      py::arg("tolerance_given") = false, py::arg("allow_side_effects") = false);

  m.def(
      "check_program_request",
      [](const std::string& passes, const std::string& method, int runs, int warmup, double rtol, double atol,
         bool backward, int loss_output) {
        CommonOptions options;
        options.runs = runs;
        options.warmup = warmup;
        options.rtol = rtol;
        options.atol = atol;
        options.backward = backward;
        options.loss_output = loss_output;
        CheckProgramRequest(passes, method, options);
      },
      py::arg("passes"), py::arg("method"), py::arg("runs"), py::arg("warmup"), py::arg("rtol"), py::arg("atol"),
      py::arg("backward"), py::arg("loss_output"));

  m.def(
      "profile_file",
      [](const std::string& path, const py::tuple& args, int runs, int warmup, const std::string& passes, bool verify,
         double rtol, double atol, const std::string& method, const std::string& name, bool backward,
         int loss_output, const std::string& clock, bool compensate, bool tolerance_given, bool allow_side_effects) {
        return ProfileSourceFile(path, args, method, passes,
                                 CommonOptions{runs, warmup, verify, rtol, atol, backward, loss_output, clock,
                                               compensate, tolerance_given, allow_side_effects},
                                 name);
      },
      py::arg("path"), py::arg("args"), py::arg("runs"), py::arg("warmup"), py::arg("passes") = "",
      py::arg("verify") = true, py::arg("rtol") = 1e-4, py::arg("atol") = 1e-5, py::arg("method") = "forward",
      py::arg("name") = "", py::arg("backward") = false, py::arg("loss_output") = -1, py::arg("clock") = "",
      py::arg("compensate") = true, py::arg("tolerance_given") = false, py::arg("allow_side_effects") = false);

  // What an operator does outside the process ("" for nothing): Python
  // checks a torch.export program with it before running ep.module().
  m.def("side_effect_of", [](const std::string& qualified_name) { return std::string(SideEffectOf(qualified_name)); },
        py::arg("qualified_name"));

  m.def(
      "ab",
      [](py::handle target, const std::string& passes, const py::tuple& args, int runs, int warmup, bool verify,
         double rtol, double atol, const std::string& method, bool diff_all, const std::string& name,
         double min_effect, double alpha, int copies, bool tolerance_given, bool allow_side_effects) {
        CommonOptions options{runs, warmup, verify, rtol, atol};
        options.tolerance_given = tolerance_given;
        options.allow_side_effects = allow_side_effects;
        AbResult r = ProfileAb(target, passes, args, method, options, diff_all, name, min_effect, alpha, copies);
        return py::make_tuple(r.before, r.after, r.diff);
      },
      py::arg("target"), py::arg("passes"), py::arg("args"), py::arg("runs"), py::arg("warmup"), py::arg("verify"),
      py::arg("rtol"), py::arg("atol"), py::arg("method"), py::arg("diff_all"), py::arg("name"),
      py::arg("min_effect") = 0.02, py::arg("alpha") = 0.05, py::arg("copies") = 3,
      py::arg("tolerance_given") = false, py::arg("allow_side_effects") = false);

  m.def(
      "diff",
      [](const Report& base, const Report& current, bool diff_all, double min_effect, double alpha) {
        DiffOptions options;
        options.include_unexecuted = diff_all;
        options.verdict.min_effect = min_effect;
        options.verdict.alpha = alpha;
        options.names = PythonOptionNames();
        return std::make_shared<ReportDiff>(DiffReports(base, current, options));
      },
      py::arg("base"), py::arg("current"), py::arg("diff_all"), py::arg("min_effect") = 0.02,
      py::arg("alpha") = 0.05);

  m.def(
      "gate",
      [](const Report& base, const Report& current, const std::vector<std::string>& fail_on, bool allow_graph_change,
         bool allow_input_change, double min_effect, double alpha) {
        // check(): the regression gate (profilers/report/gate.h).
        GateOptions options;
        options.fail_on = fail_on;
        options.allow_graph_change = allow_graph_change;
        options.allow_input_change = allow_input_change;
        options.diff.verdict.min_effect = min_effect;
        options.diff.verdict.alpha = alpha;
        options.diff.names = PythonOptionNames();
        // check() has no diff_all: the nodes that never ran are listed by diff().
        options.diff.names.diff_all = "graphprof.diff(base, current, diff_all=True)";
        GateResult gate = Take(RunGate(base, current, options));
        py::list offenders;
        for (const GateRow& o : gate.offenders) {
          py::dict row = StatsDict(o.stats);
          row["what"] = o.what;
          row["name"] = o.name;
          row["base_us"] = o.base_ns / 1e3;
          row["current_us"] = o.current_ns / 1e3;
          offenders.append(row);
        }
        return py::make_tuple(GateOutcomeName(gate.outcome), offenders, gate.selected, gate.tested, gate.accepted,
                              std::make_shared<ReportDiff>(std::move(gate.diff)));
      },
      py::arg("base"), py::arg("current"), py::arg("fail_on"), py::arg("allow_graph_change"),
      py::arg("allow_input_change"), py::arg("min_effect"), py::arg("alpha"));

  m.def(
      "merge",
      [](const std::vector<ReportPtr>& reports, const std::vector<std::string>& names) {
        ReportMerger merger(PythonOptionNames());
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

  BindInterpreter(m);
}
