#include "profilers/report/gate.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "profilers/report/merge.h"  // SameGraph

namespace graphprof {
namespace {

absl::Status Comparable(const Report& base, const Report& current, const GateOptions& options,
                        std::vector<std::string>* accepted) {
  const OptionNames& names = options.diff.names;
  if (base.training_steps() != current.training_steps()) {
    const std::string steps = absl::StrCat("training steps", NamedAfter(names.backward));
    return absl::FailedPreconditionError(absl::StrCat(
        base.training_steps() ? absl::StrCat("the baseline holds ", steps, ", the current report forward runs only")
                              : absl::StrCat("the baseline holds forward runs only, the current report ", steps),
        ": their times measure different things; profile both the same way"));
  }
  // A difference `what`: refused with `hint` unless `allowed`, else listed as accepted (`as`).
  auto differ = [&](bool allowed, const std::string& what, const std::string& hint, const std::string& as) {
    if (!allowed) return absl::FailedPreconditionError(absl::StrCat(what, "; ", hint));
    accepted->push_back(absl::StrCat(as, what));
    return absl::OkStatus();
  };
  absl::Status status = SameGraph(base, current, "the current report");
  if (!status.ok()) {
    status = differ(options.allow_graph_change, std::string(status.message()),
                    absl::StrCat("if the model changed on purpose, allow a graph change (",
                                 names.allow_graph_change.empty() ? "" : absl::StrCat(names.allow_graph_change, ": "),
                                 "nodes are then paired as a diff pairs them)"),
                    absl::StrCat("another graph", NamedAfter(names.allow_graph_change), ": "));
  }
  if (status.ok() && base.passes != current.passes) {
    status = differ(options.allow_graph_change,
                    absl::StrCat("the baseline was profiled after passes '", base.passes, "', the current report after '",
                                 current.passes, "'"),
                    absl::StrCat("if that is the change to judge, allow a graph change",
                                 NamedAfter(names.allow_graph_change)),
                    absl::StrCat("other passes", NamedAfter(names.allow_graph_change), ": "));
  }
  if (status.ok() && !base.inputs.empty() && !current.inputs.empty() && base.inputs != current.inputs) {
    status = differ(options.allow_input_change,
                    absl::StrCat("the baseline ran on inputs ", base.inputs, ", the current report on ", current.inputs),
                    absl::StrCat("if that is intended, allow an input change", NamedAfter(names.allow_input_change)),
                    absl::StrCat("other inputs", NamedAfter(names.allow_input_change), ": "));
  }
  return status;
}

bool Wants(const GateOptions& options, const char* what) {
  return std::find(options.fail_on.begin(), options.fail_on.end(), what) != options.fail_on.end();
}

}  // namespace

const char* GateOutcomeName(GateOutcome outcome) {
  switch (outcome) {
    case GateOutcome::kPassed: return "passed";
    case GateOutcome::kFailed: return "failed";
    case GateOutcome::kInconclusive: return "inconclusive";
  }
  return "?";
}

int MinimumRunsPerSide(const VerdictOptions& options) {
  for (int n = 1; n <= 1000; ++n) {
    std::vector<double> base, current;
    for (int i = 0; i < n; ++i) {
      base.push_back(1e6 + 1e3 * i);
      current.push_back(1e6 + 1e3 * i + 500);
    }
    if (CompareRow(RowSample{base, {}, true}, RowSample{current, {}, true}, NoiseModel::kRuns, 0, options).tested) {
      return n;
    }
  }
  return -1;
}

absl::StatusOr<GateResult> RunGate(const Report& base, const Report& current, const GateOptions& options) {
  for (const std::string& what : options.fail_on) {
    if (what != "total" && what != "module" && what != "node") {
      return absl::InvalidArgumentError(absl::StrCat("fail_on: unknown '", what, "' (use total, module, node)"));
    }
  }
  if (options.fail_on.empty()) return absl::InvalidArgumentError("fail_on: name at least one of total, module, node");
  GateResult gate;
  if (absl::Status comparable = Comparable(base, current, options, &gate.accepted); !comparable.ok()) {
    return comparable;
  }
  gate.diff = DiffReports(base, current, options.diff);
  const ReportDiff& diff = gate.diff;
  if (!diff.total.tested && diff.total.reason == "too few runs") {
    return absl::FailedPreconditionError(absl::StrCat(
        "too few timed runs to test anything at alpha ", options.diff.verdict.alpha, ": the baseline has ", base.runs,
        ", the current report ", current.runs, "; profile with ", MinimumRunsPerSide(options.diff.verdict),
        " or more runs on each side"));
  }
  auto consider = [&](const char* what, const std::string& name, double base_ns, double current_ns,
                      const RowComparison& stats) {
    ++gate.selected;
    if (stats.tested) ++gate.tested;
    if (stats.tested && stats.verdict == Verdict::kInconclusive) ++gate.undecided;
    if (stats.verdict == Verdict::kSlower) gate.offenders.push_back(GateRow{what, name, base_ns, current_ns, stats});
  };
  if (Wants(options, "total")) {
    consider("total", "run time", diff.base_total_ns, diff.current_total_ns, diff.total);
    // Between processes the run time is compared at equal speed; a change
    // of every node alike is the speed row (tested with several processes a
    // side).
    if (diff.speed_removed() && diff.speed.tested) {
      consider("total", "machine speed (every node alike)", diff.base_total_ns, diff.current_total_ns, diff.speed);
    }
  }
  if (Wants(options, "module")) {
    for (const GroupDelta& g : diff.modules) consider("module", g.name, g.base_ns, g.current_ns, g.stats);
  }
  if (Wants(options, "node")) {
    for (const NodeDelta& d : diff.nodes) consider("node", d.name, d.base_ns, d.current_ns, d.stats);
  }
  gate.outcome = !gate.offenders.empty() ? GateOutcome::kFailed
                 : gate.tested == 0      ? GateOutcome::kInconclusive
                                         : GateOutcome::kPassed;
  return gate;
}

}  // namespace graphprof
