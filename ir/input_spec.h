// Describing model inputs as text and making seeded random inputs from it.
//
// Grammar (comma-separated list, one item per positional input):
//   1x3x224x224:float32      a tensor, random normal values
//   2x5000:int64[0:1000]     an integer tensor, uniform in [0, 1000)
//   8x32                     dtype defaults to float32
//   scalar:float32           a 0-dim tensor
//   =3  =0.5  =true          an int, float or bool argument
// dtypes: float32|float|f32, float64|double|f64, float16|half|f16, bfloat16|bf16,
//         int64|long|i64, int32|int|i32, int16|i16, int8|i8, uint8|u8, bool.
// Integer tensors without a range use [0, 10); bool tensors are fair coin flips.
#ifndef GRAPHPROF_IR_INPUT_SPEC_H_
#define GRAPHPROF_IR_INPUT_SPEC_H_

#include <torch/script.h>

#include <cstdint>
#include <string>
#include "absl/strings/string_view.h"
#include <vector>

#include "absl/status/statusor.h"

namespace graphprof {

struct InputSpec {
  enum class Kind { kTensor, kInt, kFloat, kBool };
  Kind kind = Kind::kTensor;
  std::vector<int64_t> shape;
  c10::ScalarType dtype = c10::ScalarType::Float;
  int64_t low = 0;    // integer tensors: values in [low, high)
  int64_t high = 10;
  bool has_range = false;
  double scalar = 0;   // kFloat / kBool value
  int64_t integer = 0; // kInt value (exact: not every int64 is a double)
};

absl::StatusOr<std::vector<InputSpec>> ParseInputSpecs(absl::string_view text);

// The text form ParseInputSpecs accepts; it parses back to the same specs
// (float scalars keep every digit and a decimal point: "=2.0", not "=2").
std::string FormatInputSpecs(const std::vector<InputSpec>& specs);

// This machine's physical memory in bytes.
int64_t PhysicalMemoryBytes();

// Random inputs for `specs`, identical for identical (specs, seed). Fails,
// before allocating anything, when one tensor would need more than
// `max_bytes`, and with one line on any other failure.
absl::StatusOr<std::vector<c10::IValue>> MakeRandomInputs(const std::vector<InputSpec>& specs, uint64_t seed,
                                                          int64_t max_bytes = PhysicalMemoryBytes());

// dtype from its name ("float32", "i64", ...).
absl::StatusOr<c10::ScalarType> ParseDtype(absl::string_view name);

}  // namespace graphprof

#endif  // GRAPHPROF_IR_INPUT_SPEC_H_
