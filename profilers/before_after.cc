#include "profilers/before_after.h"

#include "absl/strings/str_cat.h"
#include "common/status_util.h"
#include "interpreter/graph_plan.h"
#include "ir/ivalue_util.h"
#include "ir/prepared_graph.h"

namespace graphprof {
namespace {

absl::StatusOr<Report> ProfileVariant(const torch::jit::Module& module, const std::vector<Pass>& passes,
                                      const std::vector<c10::IValue>& inputs, const BeforeAfterOptions& options,
                                      c10::IValue* output) {
  PrepareOptions prepare;
  prepare.method = options.method;
  prepare.passes = passes;
  absl::StatusOr<PreparedGraph> prepared = PrepareMethod(module, prepare);
  if (!prepared.ok()) return prepared.status();
  const std::string applied = prepared->passes;
  absl::StatusOr<std::shared_ptr<const GraphPlan>> plan = GraphPlan::Build(*std::move(prepared));
  if (!plan.ok()) return plan.status();
  absl::StatusOr<Report> report = Profile(*plan, inputs, options.profile, output);
  if (report.ok() && !applied.empty()) report->notes.push_back(absl::StrCat("passes applied: ", applied));
  return report;
}

}  // namespace

Verification Verify(const c10::IValue& expected, const c10::IValue& actual, double rtol, double atol,
                    std::string reference) {
  const IValueComparison c = CompareIValues(expected, actual, rtol, atol);
  Verification v;
  v.identical = c.identical;
  v.within_tolerance = c.within_tolerance;
  v.max_abs_error = c.max_abs_error;
  v.max_rel_error = c.max_rel_error;
  v.rtol = rtol;
  v.atol = atol;
  v.detail = c.detail;
  v.reference = std::move(reference);
  return v;
}

absl::StatusOr<BeforeAfter> ProfileBeforeAfter(const torch::jit::Module& module, const std::vector<Pass>& passes,
                                               const std::vector<c10::IValue>& inputs,
                                               const BeforeAfterOptions& options) {
  BeforeAfter result;
  c10::IValue a_output, b_output;
  absl::StatusOr<Report> before = ProfileVariant(module, {}, inputs, options, &a_output);
  if (!before.ok()) return Annotate(before.status(), "A (as given)");
  absl::StatusOr<Report> after = ProfileVariant(module, passes, inputs, options, &b_output);
  if (!after.ok()) return Annotate(after.status(), absl::StrCat("B (after ", DescribePasses(passes), ")"));
  result.before = *std::move(before);
  result.after = *std::move(after);
  if (options.verify) {
    c10::IValue expected;
    try {
      expected = torch::jit::Module(module).get_method(options.method)(DeepCopy(inputs));
    } catch (const std::exception& e) {
      return StatusFromException(absl::StatusCode::kInvalidArgument, absl::StrCat("native ", options.method), e);
    }
    const std::string reference = absl::StrCat("module.", options.method);
    result.before.verification = Verify(expected, a_output, 0, 0, reference);
    result.after.verification = Verify(expected, b_output, options.rtol, options.atol, reference);
  }
  result.diff = DiffReports(result.before, result.after, options.diff);
  return result;
}

}  // namespace graphprof
