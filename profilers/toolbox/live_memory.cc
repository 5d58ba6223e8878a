#include "profilers/toolbox/live_memory.h"

#include <unistd.h>

#include <fstream>
#include <sstream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "profilers/gpu/cuda_allocator_stats.h"
#include "profilers/report/format.h"
#include "profilers/toolbox/cpu_tensor_counter.h"

namespace graphprof {

absl::StatusOr<std::vector<DeviceTensorBytes>> LiveDeviceTensorBytes() {
  absl::StatusOr<std::vector<AllocatorStats>> all = ReadAllCudaAllocatorStats();
  if (!all.ok()) return all.status();
  std::vector<DeviceTensorBytes> out;
  for (const AllocatorStats& s : *all) out.push_back(DeviceTensorBytes{s.device, s.allocated_bytes});
  return out;
}

absl::StatusOr<int64_t> ResidentSetBytes() {
  std::ifstream statm("/proc/self/statm");
  int64_t size_pages = 0, resident_pages = 0;
  if (!(statm >> size_pages >> resident_pages)) return absl::UnavailableError("cannot read /proc/self/statm");
  return resident_pages * static_cast<int64_t>(sysconf(_SC_PAGESIZE));
}

absl::StatusOr<int64_t> PeakResidentSetBytes(int pid) {
  const std::string path = pid > 0 ? absl::StrCat("/proc/", pid, "/status") : "/proc/self/status";
  std::ifstream status(path);
  std::string line;
  while (std::getline(status, line)) {
    absl::string_view rest = line;
    if (!absl::ConsumePrefix(&rest, "VmHWM:")) continue;
    rest = absl::StripAsciiWhitespace(rest);
    int64_t kib = 0;
    if (absl::ConsumeSuffix(&rest, "kB") && absl::SimpleAtoi(absl::StripAsciiWhitespace(rest), &kib)) {
      return kib * 1024;
    }
    break;
  }
  return absl::UnavailableError(absl::StrCat("no VmHWM in ", path));
}

LiveMemory ReadLiveMemory() {
  LiveMemory m;
  m.cpu_tensor_bytes = LiveCpuTensorBytes();
  m.device_tensor_bytes = LiveDeviceTensorBytes();
  m.resident_bytes = ResidentSetBytes();
  m.peak_resident_bytes = PeakResidentSetBytes();
  return m;
}

std::string FormatLiveMemory(const LiveMemory& m) {
  std::vector<std::string> parts;
  parts.push_back(m.cpu_tensor_bytes.ok() ? absl::StrCat("CPU tensors ", FormatBytes(*m.cpu_tensor_bytes))
                                          : absl::StrCat("CPU tensors: ", m.cpu_tensor_bytes.status().message()));
  std::string resident = m.resident_bytes.ok() ? absl::StrCat("resident ", FormatBytes(*m.resident_bytes))
                                               : absl::StrCat("resident: ", m.resident_bytes.status().message());
  if (m.peak_resident_bytes.ok()) absl::StrAppend(&resident, " (peak ", FormatBytes(*m.peak_resident_bytes), ")");
  parts.push_back(resident);
  if (!m.device_tensor_bytes.ok()) {
    parts.push_back(absl::StrCat("device tensors: ", m.device_tensor_bytes.status().message()));
  } else {
    for (const DeviceTensorBytes& d : *m.device_tensor_bytes) {
      parts.push_back(absl::StrCat(d.device, " tensors ", FormatBytes(d.bytes)));
    }
  }
  return absl::StrJoin(parts, "; ");
}

}  // namespace graphprof
