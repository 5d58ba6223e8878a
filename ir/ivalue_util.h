// Helpers over IValue trees: exact comparison, short descriptions, byte sizes.
#ifndef GRAPHPROF_IR_IVALUE_UTIL_H_
#define GRAPHPROF_IR_IVALUE_UTIL_H_

#include <torch/script.h>

#include <string>

#include "absl/types/span.h"

namespace graphprof {

// True when `a` and `b` have the same structure (tuple/list/dict shape, scalar
// types) and equal leaves; tensors must match in dtype, shape and every
// element (torch::equal). On a mismatch, `why` (if given) says where.
bool IdenticalIValues(const c10::IValue& a, const c10::IValue& b, std::string* why = nullptr);

// Short type-and-shape text: "f32[1,3,224,224]", "i64", "(f32[2], i64[3])", "[f32[4] x3]".
std::string DescribeIValue(const c10::IValue& value);

// Short dtype name: "f32", "f64", "i64", "bool", ...
std::string ShortDtypeName(c10::ScalarType type);

// Bytes held by the tensors of an IValue tree, each storage counted once.
int64_t IValueBytes(const c10::IValue& value);
// The same over several values, each storage counted once across all of them.
int64_t IValueBytes(absl::Span<const c10::IValue> values);

}  // namespace graphprof

#endif  // GRAPHPROF_IR_IVALUE_UTIL_H_
