// A row's place on the roofline: the work it did (the report's "flops" and
// "bytes" quantities), the rate it achieved in its self time, and the
// ceiling the machine sets for it (Report::ceilings):
//
//   gflops      = flops / self ns            (GFLOP/s)
//   gbps        = bytes / self ns            (GB/s)
//   intensity   = flops / bytes              (FLOP per byte)
//   attainable  = min(peak_gflops, intensity x peak_gbps)
//   fraction    = gflops / attainable        (of what this machine can do there)
//   bound       "compute" when intensity x peak_gbps >= peak_gflops, else "memory"
//
// Rates need the row's time and work; attainable and bound need the ceilings.
#ifndef GRAPHPROF_PROFILERS_REPORT_ROOFLINE_H_
#define GRAPHPROF_PROFILERS_REPORT_ROOFLINE_H_

#include <string>
#include <vector>

#include "profilers/report/report.h"
#include "profilers/report/views.h"

namespace graphprof {

struct RooflinePoint {
  double flops = 0;
  double bytes = 0;
  double self_ns = 0;      // the time the work took: self time; a module row's total (its subtree)
  double gflops = -1;      // -1: unknown (no work counted, or no time)
  double gbps = -1;
  double intensity = -1;
  double attainable_gflops = -1;
  double fraction = -1;    // of attainable, 0..1 (clamped at 1: measured ceilings are not exact)
  const char* bound = "";  // "compute", "memory", or "" when unknown
};

RooflinePoint RooflineOf(const Report& report, const ViewRow& row);

// Work per row: the view's quantities ("flops", "bytes") summed over its
// nodes (ViewRow::quantities holds them; this reads them by name).
double RowQuantity(const Report& report, const ViewRow& row, const char* name);

// The share of the run time in executed nodes below `fraction` of
// attainable (the headroom), 0..100; -1 without ceilings.
double HeadroomPercent(const Report& report, double fraction = 0.2);

// One line naming the cause when matrix products run far below the
// machine's peak because of the BLAS LibTorch uses (the reference BLAS),
// with the fix; empty otherwise.
std::string BlasNote(const Report& report);

}  // namespace graphprof

#endif  // GRAPHPROF_PROFILERS_REPORT_ROOFLINE_H_
