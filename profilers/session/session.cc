// ProfileSession (session.h). Implementation notes:
// - The native run gets its own copy of the inputs (CopyInputs): a model
//   that mutates its inputs would otherwise change the caller's, and the
//   gradient check's forward would see them changed.
// - The gradients are compared on the parameters of the module as given
//   when passes ran (the plan holds a clone then), else on the plan's own
//   module, whose parameters the last timed run left its gradients on.
#include "profilers/session/session.h"

#include <ATen/Parallel.h>

#include <utility>

#include "absl/strings/str_cat.h"
#include "ir/ivalue_util.h"
#include "profilers/autograd/training_step.h"
#include "profilers/before_after.h"
#include "profilers/machine.h"
#include "profilers/toolbox/sizes.h"
#include "profilers/verification/reference_check.h"
#include "profilers/verification/verify.h"
#include "profilers/work/peaks.h"

namespace graphprof {
namespace {

// "f32[1,3,224,224], i64": the inputs' types and shapes.
std::string DescribeInputs(const std::vector<c10::IValue>& inputs) {
  std::string out;
  for (const c10::IValue& input : inputs) {
    if (!out.empty()) out += ", ";
    AppendIValueDescription(&out, input);
  }
  return out;
}

}  // namespace

void DescribeModel(Report& report, const std::string& name, const torch::jit::Module* module,
                   const std::vector<c10::IValue>& inputs, const Machine& machine,
                   const std::optional<Ceilings>& ceilings) {
  report.model = name;
  report.machine = machine;
  report.ceilings =
      ceilings.has_value() ? ceilings : CachedCeilings(machine, PeakOptions{at::get_num_threads(), false, ""});
  if (module != nullptr) {
    report.parameters = CountParameters(*module, /*trainable_only=*/false);
    report.trainable_parameters = CountParameters(*module, /*trainable_only=*/true);
    if (absl::StatusOr<int64_t> bytes = SerializedModelSize(*module); bytes.ok()) report.model_bytes = *bytes;
    if (module->is_training()) {
      report.notes.push_back(
          "the module is in training mode (dropout active, batch norm on batch statistics): call .eval() for "
          "inference numbers");
    }
  }
  report.input_bytes = DataSize(inputs);
  report.inputs = DescribeInputs(inputs);
}

absl::StatusOr<Report> RunProfileSession(SessionModel model, const std::vector<c10::IValue>& inputs,
                                         const SessionOptions& options) {
  const Machine machine = options.machine.has_value() ? *options.machine : DescribeMachine();
  const std::string applied = model.prepared.passes;
  absl::StatusOr<std::shared_ptr<const GraphPlan>> plan = GraphPlan::Build(std::move(model.prepared), options.profile.plan);
  if (!plan.ok()) return plan.status();
  if (options.check_plan) {
    if (absl::Status checked = options.check_plan(**plan); !checked.ok()) return checked;
  }
  c10::IValue output;
  absl::StatusOr<Report> report = Profile(*plan, inputs, options.profile, &output);
  if (!report.ok()) return report.status();

  const torch::jit::Module* module = model.module.has_value() ? &*model.module : nullptr;
  DescribeModel(*report, model.name, module, inputs, machine, options.ceilings);
  report->passes = applied;
  if (!applied.empty()) report->notes.push_back(absl::StrCat("passes applied: ", applied));
  if (!options.verify) return report;

  auto native = [&](const std::vector<c10::IValue>& in) -> absl::StatusOr<c10::IValue> {
    absl::StatusOr<std::vector<c10::IValue>> copied = CopyInputs(in);
    if (!copied.ok()) return copied.status();
    return model.run_native(*copied);
  };
  absl::StatusOr<c10::IValue> expected = native(inputs);
  if (!expected.ok()) return expected.status();
  absl::StatusOr<std::vector<c10::IValue>> again = CopyInputs(inputs);  // the float64 reference's
  if (!again.ok()) return again.status();
  report->verification = CheckOutput(*expected, output, options.check, module, model.method, *again);
  if (options.profile.backward.enabled) {
    c10::optional<c10::IValue> native_self = (*plan)->self();
    if (options.check.transformed && module != nullptr) native_self = module->_ivalue();
    const double rtol = options.check.transformed ? options.check.rtol : 0;
    const double atol = options.check.transformed ? options.check.atol : 0;
    absl::StatusOr<Verification> gradients =
        VerifyGradients((*plan)->self(), native_self, options.profile.backward, native, inputs, rtol, atol,
                        absl::StrCat(options.check.reference, " + backward"));
    if (!gradients.ok()) return gradients.status();
    SetGradientVerification(*report, *std::move(gradients));
  }
  return report;
}

}  // namespace graphprof
