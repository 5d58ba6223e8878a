#include "profilers/report/format.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace graphprof {

std::string FormatBytes(int64_t bytes) {
  const double b = static_cast<double>(bytes);
  const double a = std::fabs(b);
  if (a < 1024) return absl::StrCat(bytes, " B");
  if (a < 1024.0 * 1024) return absl::StrFormat("%.2f KiB", b / 1024);
  if (a < 1024.0 * 1024 * 1024) return absl::StrFormat("%.2f MiB", b / (1024.0 * 1024));
  return absl::StrFormat("%.2f GiB", b / (1024.0 * 1024 * 1024));
}

std::string FormatMicros(double ns) {
  const double us = ns / 1e3;
  const double a = std::fabs(us);
  if (a >= 1000) return absl::StrFormat("%.0f", us);
  if (a >= 100) return absl::StrFormat("%.1f", us);
  if (a >= 10) return absl::StrFormat("%.2f", us);
  return absl::StrFormat("%.3f", us);
}

std::string FormatSignedMicros(double ns) { return absl::StrCat(ns >= 0 ? "+" : "", FormatMicros(ns)); }

std::string FormatCount(double count) {
  if (count == std::floor(count)) return absl::StrCat(static_cast<int64_t>(count));
  return absl::StrFormat("%.2f", count);
}

std::string FormatSpeedup(double ratio) { return ratio > 0 ? absl::StrFormat("%.3fx", ratio) : "-"; }

}  // namespace graphprof
