// A row's place on the roofline: the work it did (the report's "flops" and
// "bytes" quantities), the rate it achieved in its self time, and the
// ceiling the machine sets for it (Report::ceilings):
//
//   gflops      = flops / self ns            (GFLOP/s)
//   gbps        = bytes / self ns            (GB/s)
//   intensity   = flops / bytes              (FLOP per byte)
//   roof_gbps   = the bandwidth of the working set the row touches per
//                 execution (MemoryRoofGbps: bytes / ViewRow::subtree_calls)
//   attainable  = min(peak_gflops, intensity x roof_gbps)
//   fraction    = gflops / attainable        (of what this machine can do there)
//   bound       "compute" when intensity x roof_gbps >= peak_gflops, else "memory"
//
// Rates need the row's time and work; attainable and bound need the ceilings.
// A node's fraction is not capped: the ceilings are best-of-several
// measurements of what the hardware does at that working set, so a node above
// 100% means a ceiling is wrong (tests/real/work_real_test checks real models). A
// grouped row (kind, module) picks one bandwidth for nodes of different
// sizes, from their mean bytes per execution: an approximation, capped at
// 100%.
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
  double roof_gbps = -1;   // the memory roof's bandwidth for this row
  double attainable_gflops = -1;
  double fraction = -1;    // of attainable: 0..1 (a node above 1 means a wrong ceiling)
  const char* bound = "";  // "compute", "memory", or "" when unknown
};

RooflinePoint RooflineOf(const Report& report, const ViewRow& row);

// The bandwidth a working set of `bytes` can stream at: the level of
// Ceilings::bandwidth with the largest working set not above `bytes` (the
// smallest level below it), so never less than the hardware delivers there;
// peak_gbps without levels.
double MemoryRoofGbps(const Ceilings& ceilings, double bytes);

// The quantities the roofline's columns show ("flops", "bytes"): the text
// and HTML tables give every other quantity a column of its own.
bool ShownByRoofline(const Column& quantity);

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
