// Fuzzes the --input spec parser, and random inputs for what parses, capped
// at 1 MiB per tensor so that nothing big is allocated.
#include <cstddef>
#include <cstdint>
#include <string>

#include "tools/input_spec.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<std::vector<graphprof::InputSpec>> specs = graphprof::ParseInputSpecs(text);
  if (!specs.ok()) return 0;
  // What parses formats back to text that parses to the same specs.
  const std::string formatted = graphprof::FormatInputSpecs(*specs);
  absl::StatusOr<std::vector<graphprof::InputSpec>> again = graphprof::ParseInputSpecs(formatted);
  if (!again.ok() || graphprof::FormatInputSpecs(*again) != formatted) __builtin_trap();
  constexpr int64_t kMaxBytes = int64_t{1} << 20;
  absl::StatusOr<std::vector<c10::IValue>> inputs = graphprof::MakeRandomInputs(*specs, /*seed=*/0, kMaxBytes);
  return 0;
}
