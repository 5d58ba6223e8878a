#include "profilers/time_source.h"

#include <fstream>
#include <sstream>
#include <thread>

#include "absl/strings/str_cat.h"

namespace graphprof {

std::string InvariantTscMissing() {
#if !defined(__x86_64__)
  return "not an x86-64 CPU";
#else
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("flags", 0) != 0) continue;
    std::istringstream flags(line.substr(line.find(':') + 1));
    bool constant = false, nonstop = false;
    for (std::string flag; flags >> flag;) {
      constant = constant || flag == "constant_tsc";
      nonstop = nonstop || flag == "nonstop_tsc";
    }
    if (constant && nonstop) return "";
    return "the CPU's TSC is not invariant (constant_tsc and nonstop_tsc)";
  }
  return "cannot read the CPU flags in /proc/cpuinfo";
#endif
}

absl::StatusOr<std::shared_ptr<TscClock>> TscClock::Create() {
  if (std::string why = InvariantTscMissing(); !why.empty()) {
    return absl::FailedPreconditionError(absl::StrCat("no TSC clock: ", why));
  }
  // Rate: ticks over steady_clock nanoseconds across ~20 ms, the best of
  // three (a preemption only lengthens the interval one way).
  double best = 0;
  for (int i = 0; i < 3; ++i) {
    const int64_t ns0 = SteadyClock::Read();
    const int64_t t0 = Read();
    std::this_thread::sleep_for(std::chrono::milliseconds(7));
    const int64_t t1 = Read();
    const int64_t ns1 = SteadyClock::Read();
    const double rate = static_cast<double>(t1 - t0) / static_cast<double>(ns1 - ns0);  // ticks per ns
    if (rate > best) best = rate;
  }
  if (!(best > 0)) return absl::InternalError("TSC calibration failed");
  return std::shared_ptr<TscClock>(new TscClock(1.0 / best));
}

std::shared_ptr<TimeSource> DefaultTimeSource() {
  static absl::StatusOr<std::shared_ptr<TscClock>>* tsc = new absl::StatusOr<std::shared_ptr<TscClock>>(TscClock::Create());
  if (tsc->ok()) return **tsc;
  return std::make_shared<SteadyClock>();
}

absl::StatusOr<std::shared_ptr<TimeSource>> MakeTimeSource(absl::string_view name) {
  if (name == "steady") return std::shared_ptr<TimeSource>(std::make_shared<SteadyClock>());
  if (name == "tsc") {
    absl::StatusOr<std::shared_ptr<TscClock>> tsc = TscClock::Create();
    if (!tsc.ok()) return tsc.status();
    return std::shared_ptr<TimeSource>(*tsc);
  }
  return absl::InvalidArgumentError(absl::StrCat("unknown clock '", name, "' (use steady or tsc)"));
}

}  // namespace graphprof
