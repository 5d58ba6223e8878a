#include "profilers/autograd/training_step.h"

#include <torch/csrc/autograd/autograd.h>

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "common/status_util.h"
#include "ir/ivalue_util.h"

namespace graphprof {
namespace {

void CollectFloatingTensors(const c10::IValue& value, std::vector<at::Tensor>& into) {
  if (value.isTensor()) {
    const at::Tensor& t = value.toTensor();
    if (t.defined() && at::isFloatingType(t.scalar_type())) into.push_back(t);
  } else if (value.isTuple()) {
    for (const c10::IValue& e : value.toTupleRef().elements()) CollectFloatingTensors(e, into);
  } else if (value.isList()) {
    for (const c10::IValue& e : value.toListRef()) CollectFloatingTensors(e, into);
  } else if (value.isGenericDict()) {
    for (const auto& entry : value.toGenericDict()) CollectFloatingTensors(entry.value(), into);
  }
}

std::string ModuleOf(const std::string& parameter) {
  const size_t dot = parameter.rfind('.');
  return dot == std::string::npos ? "" : parameter.substr(0, dot);
}

}  // namespace

TrainingStep::TrainingStep(const c10::optional<c10::IValue>& self, BackwardOptions options) : options_(options) {
  if (!self.has_value() || !self->isObject()) return;
  const c10::intrusive_ptr<c10::ivalue::Object> object = self->toObject();
  if (!object->type()->is_module()) return;
  for (const auto& p : torch::jit::Module(object).named_parameters(/*recurse=*/true)) {
    if (p.value.requires_grad()) parameters_.push_back(NamedParameter{p.name, ModuleOf(p.name), p.value});
  }
}

std::string TrainingStep::DescribeLoss() const {
  return options_.loss_output < 0 ? "the sum of all floating outputs" : absl::StrCat("output ", options_.loss_output);
}

std::vector<std::string> TrainingStep::ParameterNames() const {
  std::vector<std::string> names;
  names.reserve(parameters_.size());
  for (const NamedParameter& p : parameters_) names.push_back(p.name);
  return names;
}

absl::StatusOr<at::Tensor> TrainingStep::Loss(const c10::IValue& output) const {
  at::Tensor loss;
  if (options_.loss_output >= 0) {
    const int k = options_.loss_output;
    c10::IValue chosen;
    if (output.isTuple()) {
      const auto& elements = output.toTupleRef().elements();
      if (k >= static_cast<int>(elements.size())) {
        return absl::InvalidArgumentError(
            absl::StrCat("--loss_output=", k, ": the graph returns ", elements.size(), " outputs"));
      }
      chosen = elements[k];
    } else if (k == 0) {
      chosen = output;
    } else {
      return absl::InvalidArgumentError(absl::StrCat("--loss_output=", k, ": the graph returns one output"));
    }
    if (!chosen.isTensor() || !chosen.toTensor().defined() || !at::isFloatingType(chosen.toTensor().scalar_type()) ||
        chosen.toTensor().numel() != 1) {
      return absl::InvalidArgumentError(absl::StrCat("--loss_output=", k, ": output ", k,
                                                     " must be a one-element floating tensor, not ",
                                                     DescribeIValue(chosen)));
    }
    loss = chosen.toTensor().sum();
  } else {
    std::vector<at::Tensor> tensors;
    CollectFloatingTensors(output, tensors);
    for (const at::Tensor& t : tensors) {
      if (!t.requires_grad()) continue;
      at::Tensor sum = t.sum();
      loss = loss.defined() ? loss + sum : sum;
    }
    if (!loss.defined()) {
      return absl::InvalidArgumentError(
          "--backward: no floating output requires grad (parameters frozen or not requiring grad, and no input "
          "requiring grad?)");
    }
  }
  if (!loss.requires_grad()) {
    return absl::InvalidArgumentError(absl::StrCat("--backward: the loss (", DescribeLoss(),
                                                   ") does not require grad"));
  }
  return loss;
}

absl::Status TrainingStep::Backward(const at::Tensor& loss) {
  try {
    loss.backward();
    return absl::OkStatus();
  } catch (const std::exception& e) {
    return StatusFromException(absl::StatusCode::kInternal, "backward", e);
  }
}

void TrainingStep::ResetGradients() const {
  for (const NamedParameter& p : parameters_) {
    if (p.value.grad().defined()) p.value.mutable_grad() = at::Tensor();
  }
}

std::vector<ModuleBytes> TrainingStep::GradientBytes() const {
  std::vector<ModuleBytes> bytes;
  for (const NamedParameter& p : parameters_) {
    const at::Tensor& grad = p.value.grad();
    if (!grad.defined()) continue;
    const int64_t n = static_cast<int64_t>(grad.numel()) * static_cast<int64_t>(grad.element_size());
    auto it = std::find_if(bytes.begin(), bytes.end(), [&](const ModuleBytes& m) { return m.module == p.module; });
    if (it == bytes.end()) {
      bytes.push_back(ModuleBytes{p.module, n});
    } else {
      it->bytes += n;
    }
  }
  return bytes;
}

std::vector<at::Tensor> TrainingStep::Gradients() const {
  std::vector<at::Tensor> grads;
  grads.reserve(parameters_.size());
  at::NoGradGuard no_grad;
  for (const NamedParameter& p : parameters_) {
    grads.push_back(p.value.grad().defined() ? p.value.grad().clone() : at::Tensor());
  }
  return grads;
}

absl::StatusOr<std::vector<at::Tensor>> TrainingStep::ReferenceGradients(
    const std::function<absl::StatusOr<c10::IValue>(const std::vector<c10::IValue>&)>& forward,
    const std::vector<c10::IValue>& inputs) const {
  // The parameters' gradients are the caller's: put back afterwards.
  std::vector<at::Tensor> kept;
  kept.reserve(parameters_.size());
  for (const NamedParameter& p : parameters_) kept.push_back(p.value.grad());
  auto restore = [&] {
    for (size_t i = 0; i < parameters_.size(); ++i) parameters_[i].value.mutable_grad() = kept[i];
  };
  ResetGradients();
  absl::StatusOr<std::vector<at::Tensor>> grads;
  {
    at::AutoGradMode grad_mode(true);
    absl::StatusOr<c10::IValue> output = forward(DeepCopy(inputs));
    absl::StatusOr<at::Tensor> loss = output.ok() ? Loss(*output) : absl::StatusOr<at::Tensor>(output.status());
    absl::Status done = loss.ok() ? Backward(*loss) : loss.status();
    grads = done.ok() ? absl::StatusOr<std::vector<at::Tensor>>(Gradients()) : done;
  }
  restore();
  return grads;
}

}  // namespace graphprof
