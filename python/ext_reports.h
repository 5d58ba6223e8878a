// Reports, views and diffs as plain Python data (python/graphprof_ext.cc
// binds them): dicts of columns for pandas, dicts per node, the verdict
// columns of a comparison. NaN or None where a cell is empty.
#ifndef GRAPHPROF_PYTHON_EXT_REPORTS_H_
#define GRAPHPROF_PYTHON_EXT_REPORTS_H_

#include <pybind11/pybind11.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "profilers/report/option_names.h"
#include "profilers/report/report.h"
#include "profilers/report/report_diff.h"
#include "profilers/report/verdict.h"
#include "profilers/report/views.h"

namespace graphprof::python {

namespace py = pybind11;

using ReportPtr = std::shared_ptr<Report>;
using DiffPtr = std::shared_ptr<ReportDiff>;

double Nan();

// Python's names for the options the report layer's messages point to
// (profilers/report/option_names.h): the keyword arguments. A side in
// several processes has no argument (no worker processes from Python): the
// message says what to do in words.
OptionNames PythonOptionNames();

// A view as columns (name -> list): the columns of RenderCsv in its order,
// at full precision, then depth and nodes (members). graphprof.Report.to_pandas
// picks the ones that mean something for the view.
py::dict ViewColumns(const Report& report, const View& view);
// MakeView, raising InvalidArgumentError for a bad group_by, sort or top.
View MakeViewOrThrow(const Report& report, const std::string& group_by, const std::string& sort, int top,
                     const std::vector<std::string>& modules);

py::object MemoryDict(const Report& report, const NodeRecord& node);
py::dict IdentityDict(const NodeIdentity& id);
// Every node as a plain dict: identity, shapes, and the raw per-run samples
// (nanoseconds; metrics after host time under "metrics").
py::list NodeRecords(const Report& report);
// A verification as a dict, or None.
py::object ComparisonDict(const std::optional<Verification>& verification);
py::object VerificationDict(const Report& report);
py::object GradientVerificationDict(const Report& report);
py::object MemorySummaryDict(const Report& report);

// RenderTableReport's output (tools/report_output.cc): summary, the view, and for nodes the
// by-kind table.
std::string RenderText(const Report& report, const std::string& group_by, int top, const std::string& sort,
                       bool memory, bool summary);

// A row's comparison (verdict, change and its interval, p, q, medians).
py::dict StatsDict(const RowComparison& s);
py::dict CountsDict(const VerdictCounts& counts);
// A diff's node rows, and its kind or module rows (`key`: "kind" or
// "module"), as columns with the verdict columns.
py::dict DiffNodeColumns(const ReportDiff& diff);
py::dict DiffGroupColumns(const ReportDiff& diff, const std::vector<GroupDelta>& groups, const char* key);

}  // namespace graphprof::python

#endif  // GRAPHPROF_PYTHON_EXT_REPORTS_H_
