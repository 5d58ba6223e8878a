// Helpers over IValue trees: exact comparison, short descriptions, byte sizes.
#ifndef GRAPHPROF_IR_IVALUE_UTIL_H_
#define GRAPHPROF_IR_IVALUE_UTIL_H_

#include <torch/script.h>

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace graphprof {

// How an output compares with the expected one.
struct IValueComparison {
  // Same structure (tuple/list/dict shape, dtypes, shapes, devices) and equal
  // leaves; floating tensors may hold NaN, which equals NaN at the same place.
  bool identical = true;
  // Same structure, NaNs at the same places, and every floating element
  // within |actual - expected| <= atol + rtol * |expected| (numpy.isclose).
  bool within_tolerance = true;
  // Largest absolute and relative element errors over all leaves.
  double max_abs_error = 0;
  double max_rel_error = 0;
  std::string detail;  // where the first difference is ("output[1]: values differ")
};

IValueComparison CompareIValues(const c10::IValue& expected, const c10::IValue& actual, double rtol, double atol);

// CompareIValues(a, b, 0, 0).identical; on a mismatch, `why` (if given) says where.
bool IdenticalIValues(const c10::IValue& a, const c10::IValue& b, std::string* why = nullptr);

// A copy that shares no tensor storage with `value` (tensors cloned, lists,
// tuples and dicts rebuilt; other values as they are): inputs a model
// mutates in place stay pristine for the next run.
c10::IValue DeepCopy(const c10::IValue& value);
std::vector<c10::IValue> DeepCopy(const std::vector<c10::IValue>& values);
// DeepCopy of a run's inputs, or InvalidArgument saying why they cannot be
// copied (a view of a few bytes too large to materialize, a quantizer whose
// tensors LibTorch cannot clone); nothing throws.
absl::StatusOr<std::vector<c10::IValue>> CopyInputs(const std::vector<c10::IValue>& values);

// `value` as an argument of TorchScript type `type`, as module.forward(...)
// converts Python values: lists, dicts, tuples and optionals rebuilt with
// the element types the schema names (a list loaded from a torch.save file
// is a List[Any]; a model takes List[Tensor]), ints taken as floats where a
// float is asked. InvalidArgument naming `what` and the first element that
// does not fit ("feats['b']: must be Tensor but got int").
absl::StatusOr<c10::IValue> ConvertToType(const c10::IValue& value, const c10::TypePtr& type, const std::string& what);

// Short type-and-shape text: "f32[1,3,224,224]", "i64", "(f32[2], i64[3])", "[f32[4] x3]".
std::string DescribeIValue(const c10::IValue& value);
// The same, appended to `out`.
void AppendIValueDescription(std::string* out, const c10::IValue& value);

// Short dtype name: "f32", "f64", "i64", "bool", ...
std::string ShortDtypeName(c10::ScalarType type);

// Bytes held by the tensors of an IValue tree, each storage counted once.
int64_t IValueBytes(const c10::IValue& value);
// The same over several values, each storage counted once across all of them.
int64_t IValueBytes(absl::Span<const c10::IValue> values);

}  // namespace graphprof

#endif  // GRAPHPROF_IR_IVALUE_UTIL_H_
