// Fuzzes the --inputs reader (ParseInputs: what LoadInputs does after reading
// the file): torch.save archives, raw pickles and junk.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "ir/loader.h"

// LibTorch 1.13 leaks when a zip archive opens but is not a PyTorch archive
// (no version record, no top-level folder, ...): PyTorchStreamReader's
// constructor throws after mz_zip_reader_init, so its destructor, which
// would call mz_zip_reader_end, never runs. graphprof cannot free that state
// and cannot rule such archives out without reimplementing the reader, so
// leaks allocated inside PyTorchStreamReader::init are suppressed. Stacks are
// unwound slowly (LibTorch has no frame pointers) so that they reach it.
extern "C" const char* __lsan_default_suppressions() {
  return "leak:caffe2::serialize::PyTorchStreamReader::init\n";
}
extern "C" const char* __asan_default_options() { return "fast_unwind_on_malloc=0"; }

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<char> bytes(reinterpret_cast<const char*>(data), reinterpret_cast<const char*>(data) + size);
  absl::StatusOr<std::vector<c10::IValue>> inputs = graphprof::ParseInputs(std::move(bytes), "fuzz.pt");
  return 0;
}
