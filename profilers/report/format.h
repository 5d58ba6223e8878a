// Number formatting shared by every text rendering.
#ifndef GRAPHPROF_PROFILERS_REPORT_FORMAT_H_
#define GRAPHPROF_PROFILERS_REPORT_FORMAT_H_

#include <cstdint>
#include <string>

namespace graphprof {

// "1.50 KiB", "9.48 MiB".
std::string FormatBytes(int64_t bytes);
// Microseconds from nanoseconds with sensible precision: "0.850", "12.30", "4312".
std::string FormatMicros(double ns);
// "+12.30" / "-0.850": signed microseconds from nanoseconds.
std::string FormatSignedMicros(double ns);
// A count that may be fractional (a mean): "3", "2.50".
std::string FormatCount(double count);
// "1.234x", or "-" when the ratio is unknown (0).
std::string FormatSpeedup(double ratio);

}  // namespace graphprof

#endif  // GRAPHPROF_PROFILERS_REPORT_FORMAT_H_
