#include "profilers/report/roofline.h"

#include <algorithm>

#include "absl/strings/match.h"
#include "absl/strings/str_format.h"
#include "profilers/report/stats.h"

namespace graphprof {

double RowQuantity(const Report& report, const ViewRow& row, const char* name) {
  const int q = report.FindQuantity(name);
  return q >= 0 && static_cast<size_t>(q) < row.quantities.size() ? row.quantities[q] : 0;
}

RooflinePoint RooflineOf(const Report& report, const ViewRow& row) {
  RooflinePoint p;
  p.flops = RowQuantity(report, row, "flops");
  p.bytes = RowQuantity(report, row, "bytes");
  // The time the row's work was done in: a module's work covers its
  // subtree, so its total time (reviewed: self time inflated module rates).
  p.self_ns = row.inclusive_work ? row.time().total.mean : row.time().self.mean;
  if (p.self_ns <= 0 || !row.work_counted) return p;
  p.gflops = p.flops / p.self_ns;
  p.gbps = p.bytes / p.self_ns;
  if (p.bytes > 0) p.intensity = p.flops / p.bytes;
  if (!report.ceilings.has_value() || p.intensity <= 0) return p;
  const Ceilings& c = *report.ceilings;
  if (c.peak_gflops <= 0 || c.peak_gbps <= 0) return p;
  const double memory_roof = p.intensity * c.peak_gbps;
  p.attainable_gflops = std::min(c.peak_gflops, memory_roof);
  p.bound = memory_roof >= c.peak_gflops ? "compute" : "memory";
  p.fraction = std::min(1.0, p.gflops / p.attainable_gflops);
  return p;
}

double HeadroomPercent(const Report& report, double fraction) {
  if (!report.ceilings.has_value() || report.FindQuantity("flops") < 0) return -1;
  absl::StatusOr<View> nodes = MakeView(report, ViewOptions{GroupBy::kNode, "", 0});
  if (!nodes.ok()) return -1;
  double below = 0;
  for (const ViewRow& row : nodes->rows) {
    const RooflinePoint p = RooflineOf(report, row);
    if (p.fraction >= 0 && p.fraction < fraction) below += row.time().self_percent;
  }
  return below;
}

std::string BlasNote(const Report& report) {
  if (!report.machine.has_value() || !report.ceilings.has_value()) return "";
  const std::string& blas = report.machine->blas;
  // Debian's reference BLAS (libblas3) lives in .../blas/; OpenBLAS and MKL elsewhere.
  const bool reference = absl::StrContains(blas, "/blas/libblas") || absl::StrContains(blas, "libblas.so.3.");
  if (!reference) return "";
  const Ceilings& c = *report.ceilings;
  absl::StatusOr<View> kinds = MakeView(report, ViewOptions{GroupBy::kKind, "", 0});
  if (!kinds.ok()) return "";
  double flops = 0, ns = 0, percent = 0;
  for (const ViewRow& row : kinds->rows) {
    if (!absl::StrContains(row.kind, "linear") && !absl::StrContains(row.kind, "matmul") &&
        !absl::StrContains(row.kind, "addmm") && !absl::StrContains(row.kind, "bmm") && row.kind != "aten::mm") {
      continue;
    }
    flops += RowQuantity(report, row, "flops");
    ns += row.time().self.mean;
    percent += row.time().self_percent;
  }
  if (ns <= 0 || flops <= 0) return "";
  const double gflops = flops / ns;
  if (c.peak_gflops > 0 && gflops > 0.2 * c.peak_gflops) return "";
  return absl::StrFormat(
      "matrix products (%.1f%% of the run) run at %.2f GFLOP/s, %.1f%% of this machine's %.1f GFLOP/s: LibTorch's "
      "GEMM resolves to the reference BLAS (%s); install an optimized one (apt-get install libopenblas0-pthread) "
      "and set OPENBLAS_NUM_THREADS to the profiled threads",
      percent, gflops, c.peak_gflops > 0 ? 100 * gflops / c.peak_gflops : 0.0, c.peak_gflops, blas);
}

}  // namespace graphprof
