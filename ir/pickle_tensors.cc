// Checker's globals, REDUCE and persistent ids (pickle_checker.h): what
// torch.save writes for storages, tensors (dense and quantized) and their
// quantizer parameters, each checked against the archive's records.
#include "ir/pickle_checker.h"

#include <algorithm>

namespace graphprof::pickle_internal {

absl::Status Checker::Global() {
  std::string module, name;
  if (!TakeLine(module) || !TakeLine(name)) return Short();
  auto value = std::make_shared<Value>(Kind::kCallable);
  if (module == "torch._utils" && name == "_rebuild_tensor_v2") {
    value->number = kRebuildTensor;
  } else if (module == "torch._utils" && name == "_rebuild_qtensor") {
    value->number = kRebuildQTensor;
  } else if (module == "collections" && name == "OrderedDict") {
    value->number = kOrderedDict;
  } else if (module == "torch" && (name == "per_tensor_affine" || name == "per_channel_affine" ||
                                   name == "per_channel_affine_float_qparams")) {
    value->kind = Kind::kQScheme;
    value->number = name == "per_tensor_affine"    ? kPerTensorAffine
                    : name == "per_channel_affine" ? kPerChannelAffine
                                                   : kPerChannelAffineFloatQParams;
  } else {
    const StorageType* type = nullptr;
    if (module == "torch") {
      for (const StorageType& t : kStorageTypes) {
        if (name == t.name) type = &t;
      }
    }
    if (type == nullptr) {
      const std::string full = absl::StrCat(module, ".", name);
      // torch's own rebuild functions and types (a Parameter, a sparse
      // tensor, a device); anything else, an nn.Module included, is Python's.
      if (module == "torch" || module == "torch._utils" || module == "torch._tensor") {
        return absl::InvalidArgumentError(absl::StrCat(
            "holds ", full,
            ", which graphprof does not read as inputs (it reads tensors, numbers, bools, strings and None, "
            "in tuples, lists and dicts)"));
      }
      return absl::InvalidArgumentError(
          absl::StrCat("holds a pickled Python object (", full, ") that only Python can read, not inputs"));
    }
    value->kind = Kind::kStorageType;
    value->number = type->item_bytes;
    value->quantized = type->quantized;
  }
  return Push(std::move(value), op_at_);
}

absl::Status Checker::Reduce() {
  if (absl::Status need = Need(2, "REDUCE"); !need.ok()) return need;
  Slot args = std::move(stack_.back());
  stack_.pop_back();
  Slot callable = std::move(stack_.back());
  stack_.pop_back();
  if (callable.value->kind != Kind::kCallable) {
    return Damaged(absl::StrCat("calls ", KindName(callable.value->kind), " with REDUCE"));
  }
  args.value->sealed = true;
  if (callable.value->number == kOrderedDict) {
    if (args.value->raw) return Damaged("uses a storage outside a tensor");
    auto none = std::make_shared<Value>(Kind::kNone);
    none->ordered_dict = true;
    return Push(std::move(none), callable.start);
  }
  absl::StatusOr<ValuePtr> tensor = RebuildTensor(*args.value, callable.value->number == kRebuildQTensor);
  if (!tensor.ok()) return tensor.status();
  return Push(*std::move(tensor), callable.start);
}

absl::StatusOr<const Value*> Checker::Element(const Value& tuple, size_t i, Kind kind, const char* what) const {
  if (i >= tuple.elements.size() || tuple.elements[i]->kind != kind) {
    return Damaged(absl::StrCat("gives ", what, " ",
                                i < tuple.elements.size() ? KindName(tuple.elements[i]->kind) : "nothing",
                                " where ", KindName(kind), " belongs,"));
  }
  return tuple.elements[i].get();
}

absl::StatusOr<std::vector<int64_t>> Checker::Ints(const Value& tuple, size_t i, const char* what) const {
  absl::StatusOr<const Value*> ints = Element(tuple, i, Kind::kTuple, what);
  if (!ints.ok()) return ints.status();
  std::vector<int64_t> out;
  for (const ValuePtr& element : (*ints)->elements) {
    if (element->kind != Kind::kInt || element->number < 0) {
      return Damaged(absl::StrCat("gives ", what, " ", KindName(element->kind),
                                  element->kind == Kind::kInt ? " below 0" : "", " where a count belongs,"));
    }
    out.push_back(element->number);
  }
  return out;
}

absl::StatusOr<ValuePtr> Checker::RebuildTensor(const Value& args, bool quantized) {
  const char* what = quantized ? "_rebuild_qtensor" : "_rebuild_tensor_v2";
  if (args.kind != Kind::kTuple) return Damaged(absl::StrCat("calls ", what, " with ", KindName(args.kind)));
  absl::StatusOr<const Value*> storage = Element(args, 0, Kind::kStorage, what);
  if (!storage.ok()) return storage.status();
  if ((*storage)->quantized != quantized) {
    return Damaged(absl::StrCat("calls ", what, " with a ", (*storage)->quantized ? "quantized" : "dense",
                                " storage"));
  }
  absl::StatusOr<const Value*> offset = Element(args, 1, Kind::kInt, what);
  if (!offset.ok()) return offset.status();
  absl::StatusOr<std::vector<int64_t>> sizes = Ints(args, 2, what);
  if (!sizes.ok()) return sizes.status();
  absl::StatusOr<std::vector<int64_t>> strides = Ints(args, 3, what);
  if (!strides.ok()) return strides.status();
  if (sizes->size() > kMaxDims) {
    return Damaged(absl::StrCat("calls ", what, " for a tensor of ", sizes->size(), " dimensions, more than ",
                                kMaxDims));
  }
  if (sizes->size() != strides->size()) {
    return Damaged(absl::StrCat("calls ", what, " with ", sizes->size(), " sizes and ", strides->size(), " strides"));
  }
  const int64_t numel = CountElements(*sizes);
  if (numel < 0 || (*offset)->number < 0) return Damaged(absl::StrCat("calls ", what, " with a tensor past int64"));
  if (numel > 0) {
    // The last element a view of these sizes and strides reads.
    __int128 last = (*offset)->number;
    for (size_t d = 0; d < sizes->size(); ++d) last += static_cast<__int128>((*sizes)[d] - 1) * (*strides)[d];
    if (last >= (*storage)->numel) {
      return Damaged(absl::StrCat("calls ", what, " for a tensor that reads element ",
                                  static_cast<int64_t>(std::min<__int128>(last, INT64_MAX)), " of a storage of ",
                                  (*storage)->numel, ","));
    }
  }
  auto tensor = std::make_shared<Value>(Kind::kTensor);
  tensor->numel = numel;
  tensor->sizes = *std::move(sizes);
  tensor->reached += static_cast<int64_t>(tensor->sizes.size());  // its sizes and strides are held per tensor
  size_t next = 4;
  if (quantized) {
    if (absl::Status qparams = QuantizerParams(args, tensor->sizes); !qparams.ok()) return qparams;
    next = 5;
  }
  absl::StatusOr<const Value*> requires_grad = Element(args, next, Kind::kBool, what);
  if (!requires_grad.ok()) return requires_grad.status();
  return tensor;
}

absl::Status Checker::QuantizerParams(const Value& args, const std::vector<int64_t>& sizes) {
  const char* what = "_rebuild_qtensor's qparams";
  absl::StatusOr<const Value*> qparams = Element(args, 4, Kind::kTuple, "_rebuild_qtensor");
  if (!qparams.ok()) return qparams.status();
  absl::StatusOr<const Value*> scheme = Element(**qparams, 0, Kind::kQScheme, what);
  if (!scheme.ok()) return scheme.status();
  if ((*scheme)->number == kPerTensorAffine) {
    if (absl::StatusOr<const Value*> scale = Element(**qparams, 1, Kind::kFloat, what); !scale.ok()) {
      return scale.status();
    }
    return Element(**qparams, 2, Kind::kInt, what).status();
  }
  absl::StatusOr<const Value*> axis = Element(**qparams, 3, Kind::kInt, what);
  if (!axis.ok()) return axis.status();
  if ((*axis)->number < 0 || static_cast<size_t>((*axis)->number) >= sizes.size()) {
    return Damaged(absl::StrCat("quantizes along axis ", (*axis)->number, " of a tensor of ", sizes.size(),
                                " dimensions"));
  }
  for (size_t i : {size_t{1}, size_t{2}}) {
    absl::StatusOr<const Value*> per_channel = Element(**qparams, i, Kind::kTensor, what);
    if (!per_channel.ok()) return per_channel.status();
    if ((*per_channel)->sizes.size() != 1 || (*per_channel)->numel != sizes[(*axis)->number]) {
      return Damaged(absl::StrCat("quantizes ", sizes[(*axis)->number], " channels with ", (*per_channel)->numel,
                                  i == 1 ? " scales" : " zero points"));
    }
  }
  return absl::OkStatus();
}

absl::Status Checker::PersistentId() {
  if (absl::Status need = Need(1, "BINPERSID"); !need.ok()) return need;
  Slot id = std::move(stack_.back());
  stack_.pop_back();
  const char* what = "a persistent id";
  if (id.value->kind != Kind::kTuple) return Damaged(absl::StrCat("gives ", KindName(id.value->kind), " as ", what));
  if (id.value->raw) return Damaged("uses a storage outside a tensor");
  const Value& args = *id.value;
  absl::StatusOr<const Value*> tag = Element(args, 0, Kind::kString, what);
  if (!tag.ok()) return tag.status();
  if ((*tag)->text != "storage") return Damaged(absl::StrCat("has a persistent id of '", (*tag)->text, "'"));
  absl::StatusOr<const Value*> type = Element(args, 1, Kind::kStorageType, what);
  if (!type.ok()) return type.status();
  absl::StatusOr<const Value*> key = Element(args, 2, Kind::kString, what);
  if (!key.ok()) return key.status();
  absl::StatusOr<const Value*> location = Element(args, 3, Kind::kString, what);
  if (!location.ok()) return location.status();
  // Where the tensors were saved from; LibTorch moves them back there.
  const std::string& device = (*location)->text;
  if (device != "cpu" && device != "cuda" && device.rfind("cuda:", 0) != 0) {
    return Damaged(absl::StrCat("keeps a storage on '", device.substr(0, 32), "', not the CPU or CUDA,"));
  }
  absl::StatusOr<const Value*> count = Element(args, 4, Kind::kInt, what);
  if (!count.ok()) return count.status();
  const int64_t numel = (*count)->number;
  int64_t bytes = 0;
  if (numel < 0 || __builtin_mul_overflow(numel, (*type)->number, &bytes)) {
    return Damaged(absl::StrCat("has a storage of ", numel, " elements"));
  }
  if (numel > 0) {
    const std::string record = absl::StrCat("data/", (*key)->text);
    const std::optional<uint64_t> held = record_size_(record);
    if (!held.has_value()) return Damaged(absl::StrCat("names tensor data '", record, "' the archive does not hold,"));
    if (*held < static_cast<uint64_t>(bytes)) {
      return Damaged(absl::StrCat("has a storage of ", bytes, " bytes where its record '", record, "' holds ", *held,
                                  ","));
    }
  }
  auto storage = std::make_shared<Value>(Kind::kStorage);
  storage->number = (*type)->number;
  storage->quantized = (*type)->quantized;
  storage->numel = numel;
  storage->raw = true;
  return Push(std::move(storage), id.start);
}

}  // namespace graphprof::pickle_internal
