// Fuzzes --model=PACKAGE.aoti.pt2 up to loading the model: the bytes are an
// AOTInductor package -> ReadAotiPackage (the zip, the model's folder, its
// metadata) -> its wrapper source -> ParseWrapperCalls -> graphprof's
// kernel record (kernels.json) -> ApplyKernelRecord. The same bytes are also
// parsed as a wrapper source and as a kernel record directly. Nothing is
// loaded or run (no LibTorch here).
#include <cstddef>
#include <cstdint>
#include <string>

#include "ir/compiled/aoti_package.h"
#include "ir/compiled/wrapper_calls.h"
#include "ir/export/zip_archive.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<graphprof::WrapperCalls> direct = graphprof::ParseWrapperCalls(bytes, "fuzz.cpp");
  if (direct.ok()) graphprof::ApplyKernelRecord(bytes, "fuzz.json", *direct).IgnoreError();

  absl::StatusOr<graphprof::AotiPackage> package =
      graphprof::ReadAotiPackage(graphprof::MemorySource(bytes), "fuzz.aoti.pt2");
  if (!package.ok()) return 0;
  absl::StatusOr<std::string> wrapper = package->archive.ReadEntry(package->wrapper, graphprof::kMaxWrapperBytes);
  if (!wrapper.ok()) return 0;
  absl::StatusOr<graphprof::WrapperCalls> calls = graphprof::ParseWrapperCalls(*wrapper, package->wrapper);
  if (!calls.ok()) return 0;
  absl::StatusOr<std::string> record = package->archive.ReadEntry("graphprof/kernels.json", 1 << 20);
  if (record.ok()) graphprof::ApplyKernelRecord(*record, "kernels.json", *calls).IgnoreError();
  return 0;
}
