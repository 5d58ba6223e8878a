#include "profilers/report/roofline.h"

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace graphprof {

bool ShownByRoofline(const Column& quantity) { return quantity.name == "flops" || quantity.name == "bytes"; }

double RowQuantity(const Report& report, const ViewRow& row, const char* name) {
  const int q = report.FindQuantity(name);
  return q >= 0 && static_cast<size_t>(q) < row.quantities.size() ? row.quantities[q] : 0;
}

double MemoryRoofGbps(const Ceilings& ceilings, double bytes) {
  if (ceilings.bandwidth.empty()) return ceilings.peak_gbps;
  double gbps = ceilings.bandwidth.front().gbps;
  for (const BandwidthLevel& level : ceilings.bandwidth) {
    if (static_cast<double>(level.bytes) <= bytes) gbps = level.gbps;
  }
  return gbps;
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
  // The working set of one execution: a node's bytes per call; a kind's or
  // a module's per execution of a node in it (ViewRow::subtree_calls).
  const bool grouped = row.members > 1 || row.inclusive_work;
  p.roof_gbps = MemoryRoofGbps(c, p.bytes / std::max(1.0, row.subtree_calls));
  const double memory_roof = p.intensity * p.roof_gbps;
  p.attainable_gflops = std::min(c.peak_gflops, memory_roof);
  p.bound = memory_roof >= c.peak_gflops ? "compute" : "memory";
  p.fraction = p.gflops / p.attainable_gflops;
  if (grouped) p.fraction = std::min(1.0, p.fraction);
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

namespace {

// OpenBLAS's kernel sets that use AVX-512 (openblas_get_corename's names).
bool Avx512Kernels(const std::string& core) {
  const std::string lower = absl::AsciiStrToLower(core);
  return absl::StrContains(lower, "skylakex") || absl::StrContains(lower, "cooperlake") ||
         absl::StrContains(lower, "sapphire");
}

}  // namespace

std::string BlasNote(const Report& report) {
  if (!report.machine.has_value() || !report.ceilings.has_value()) return "";
  const Machine& m = *report.machine;
  // Debian's reference BLAS (libblas3) lives in .../blas/; OpenBLAS and MKL elsewhere.
  const bool reference = absl::StrContains(m.blas, "/blas/libblas") || absl::StrContains(m.blas, "libblas.so.3.");
  // OpenBLAS running narrower kernels than the CPU has (it picks them by CPU
  // model: 0.3.21 runs "Haswell" on AVX-512 Zen CPUs, GEMM at half speed).
  const bool narrow = !m.blas_core.empty() && m.vector_isa == "avx512f" && !Avx512Kernels(m.blas_core);
  if (!reference && !narrow) return "";
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
  // The reference BLAS is 20-100x below the peak; narrow kernels about 2x.
  if (c.peak_gflops > 0 && gflops > (reference ? 0.2 : 0.5) * c.peak_gflops) return "";
  const std::string rate = absl::StrFormat(
      "matrix products (%.1f%% of the run) run at %.2f GFLOP/s, %.1f%% of this machine's %.1f GFLOP/s: ", percent,
      gflops, c.peak_gflops > 0 ? 100 * gflops / c.peak_gflops : 0.0, c.peak_gflops);
  if (reference) {
    return absl::StrCat(rate, "LibTorch's GEMM resolves to the reference BLAS (", m.blas,
                        "); install an optimized one (apt-get install libopenblas0-pthread) and set "
                        "OPENBLAS_NUM_THREADS to the profiled threads");
  }
  return absl::StrCat(rate, "OpenBLAS (", m.blas, ") runs its ", m.blas_core,
                      " kernels on a CPU with AVX-512; OPENBLAS_CORETYPE=SKYLAKEX selects its AVX-512 ones");
}

}  // namespace graphprof
