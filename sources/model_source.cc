#include "sources/model_source.h"

#include "absl/strings/str_cat.h"

namespace graphprof {

namespace {

absl::Status PassesRefused(const std::string& subject, const SourceAbilities& can) {
  return absl::InvalidArgumentError(absl::StrCat(subject, ": passes and freezing apply to TorchScript modules, not to ",
                                                 can.kind, "; an A/A of it takes no passes"));
}

}  // namespace

absl::StatusOr<SuppliedInputs> ModelSource::SupplyInputs(uint64_t seed) const {
  return absl::NotFoundError(absl::StrCat(name(), " supplies no inputs"));
}

absl::StatusOr<std::vector<c10::IValue>> ModelSource::CompleteInputs(std::vector<c10::IValue> inputs,
                                                                     std::string* note) const {
  if (note != nullptr) note->clear();
  const size_t expected = prepared().num_user_inputs();
  if (inputs.size() != expected) {
    return absl::InvalidArgumentError(absl::StrCat(name(), " takes ", expected, " input", expected == 1 ? "" : "s",
                                                   " (", prepared().DescribeUserInputs(), ") but ", inputs.size(),
                                                   inputs.size() == 1 ? " was" : " were", " given"));
  }
  return inputs;
}

absl::Status CheckAbilities(const std::string& subject, const SourceAbilities& can, const SourceRequest& request) {
  if (!can.methods && request.method != "forward") {
    return absl::InvalidArgumentError(
        absl::StrCat(subject, ": ", can.kind, " has no methods", NamedAfter(request.names.method)));
  }
  if (!can.devices && !request.device.is_cpu()) {
    return absl::InvalidArgumentError(
        absl::StrCat(subject, ": ", can.kind, " runs on the CPU here", NamedAfter(request.names.device)));
  }
  if (!can.passes && (request.freeze || !request.passes.empty() || request.passes_later)) {
    return PassesRefused(subject, can);
  }
  if (!can.backward && request.backward) {
    return absl::InvalidArgumentError(absl::StrCat(subject, ": training steps", NamedAfter(request.names.backward),
                                                   " need a TorchScript module; ", can.kind,
                                                   " has no trainable parameters here"));
  }
  return absl::OkStatus();
}

absl::Status CheckRequest(const ModelSource& source, const SourceRequest& request) {
  return CheckAbilities(source.name(), source.abilities(), request);
}

absl::Status CheckPassesLater(const ModelSource& source) {
  if (source.abilities().passes) return absl::OkStatus();
  return PassesRefused(source.name(), source.abilities());
}

}  // namespace graphprof
