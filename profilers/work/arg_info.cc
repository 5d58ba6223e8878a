#include "profilers/work/arg_info.h"

namespace graphprof {
namespace {

ArgInfo FromTensor(const at::Tensor& t) {
  ArgInfo a;
  if (!t.defined()) {
    a.kind = ArgInfo::Kind::kNone;
    return a;
  }
  a.kind = ArgInfo::Kind::kTensor;
  a.sizes.assign(t.sizes().begin(), t.sizes().end());
  a.element_size = static_cast<int64_t>(t.element_size());
  a.floating = t.is_floating_point();
  // MKLDNN (opaque) and sparse tensors have no storage to share.
  if (t.layout() == c10::kStrided && t.has_storage()) a.storage = t.storage().unsafeGetStorageImpl();
  return a;
}

}  // namespace

ArgInfo ToArgInfo(const c10::IValue& v) {
  ArgInfo a;
  if (v.isNone()) {
    a.kind = ArgInfo::Kind::kNone;
  } else if (v.isTensor()) {
    return FromTensor(v.toTensor());
  } else if (v.isInt()) {
    a.kind = ArgInfo::Kind::kInt;
    a.i = v.toInt();
  } else if (v.isDouble()) {
    a.kind = ArgInfo::Kind::kDouble;
    a.d = v.toDouble();
  } else if (v.isBool()) {
    a.kind = ArgInfo::Kind::kBool;
    a.b = v.toBool();
  } else if (v.isString()) {
    a.kind = ArgInfo::Kind::kString;
    a.s = v.toStringRef();
  } else if (v.isIntList()) {
    a.kind = ArgInfo::Kind::kIntList;
    for (int64_t x : v.toIntList()) a.ints.push_back(x);
  } else if (v.isTensorList()) {
    a.kind = ArgInfo::Kind::kTensorList;
    for (const at::Tensor& t : v.toTensorList()) a.tensors.push_back(FromTensor(t));
  } else if (v.isList()) {
    // A list of optional tensors or of tensors typed generically.
    bool tensors = true;
    for (const c10::IValue& e : v.toList()) tensors = tensors && (e.isTensor() || e.isNone());
    if (tensors && !v.toList().empty()) {
      a.kind = ArgInfo::Kind::kTensorList;
      for (const c10::IValue& e : v.toList()) {
        if (e.isTensor()) a.tensors.push_back(FromTensor(e.toTensor()));
      }
    }
  } else if (v.isTuple()) {
    // Tuples of tensors (an LSTM's hidden state) read like lists.
    a.kind = ArgInfo::Kind::kTensorList;
    for (const c10::IValue& e : v.toTupleRef().elements()) {
      if (e.isTensor()) a.tensors.push_back(FromTensor(e.toTensor()));
    }
    if (a.tensors.empty()) a.kind = ArgInfo::Kind::kOther;
  }
  return a;
}

}  // namespace graphprof
