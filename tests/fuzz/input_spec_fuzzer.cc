// Fuzzes the --input spec parser: what parses must format back to text that
// parses to the same specs (FormatInputSpecs' promise), and random inputs
// for it are made, capped at 1 MiB per tensor so that nothing big is
// allocated.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>

#include "ir/input_spec.h"

namespace {

bool SameScalar(double a, double b) {
  return (std::isnan(a) && std::isnan(b)) || (a == b && std::signbit(a) == std::signbit(b));
}

bool SameSpec(const graphprof::InputSpec& a, const graphprof::InputSpec& b) {
  using Kind = graphprof::InputSpec::Kind;
  if (a.kind != b.kind) return false;
  switch (a.kind) {
    case Kind::kInt: return a.integer == b.integer;
    case Kind::kFloat: return SameScalar(a.scalar, b.scalar);
    case Kind::kBool: return (a.scalar != 0) == (b.scalar != 0);
    case Kind::kTensor: break;
  }
  return a.shape == b.shape && a.dtype == b.dtype && a.has_range == b.has_range &&
         (!a.has_range || (a.low == b.low && a.high == b.high));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<std::vector<graphprof::InputSpec>> specs = graphprof::ParseInputSpecs(text);
  if (!specs.ok()) return 0;
  absl::StatusOr<std::vector<graphprof::InputSpec>> again =
      graphprof::ParseInputSpecs(graphprof::FormatInputSpecs(*specs));
  if (!again.ok() || again->size() != specs->size()) __builtin_trap();
  for (size_t i = 0; i < specs->size(); ++i) {
    if (!SameSpec((*specs)[i], (*again)[i])) __builtin_trap();
  }
  constexpr int64_t kMaxBytes = int64_t{1} << 20;
  absl::StatusOr<std::vector<c10::IValue>> inputs = graphprof::MakeRandomInputs(*specs, /*seed=*/0, kMaxBytes);
  return 0;
}
