// The GPU check: profiles a graph whose custom operator launches a CUDA
// kernel of known duration and checks that the node gets the device time
// (CUDA events) and the kernel (CUPTI), then checks the toolbox's device
// parts on the same graph: Timeit and Profileit synchronise the device, NVML
// reads the device's memory, NVTX iteration control opens and closes its
// capture range, and (with a CUDA LibTorch) the caching allocator's peaks and
// live device tensor bytes. Run by tools/gpu_check.sh.
//
// Exit: 0 pass, 1 fail, 2 no CUDA device (nothing checked).
#include <cstdio>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "interpreter/graph_plan.h"
#include "interpreter/interpreter.h"
#include "ir/ivalue_util.h"
#include "ir/loader.h"
#include "ir/prepared_graph.h"
#include "profilers/report/chrome_trace.h"
#include "profilers/gpu/cuda_allocator_stats.h"
#include "profilers/gpu/cuda_runtime.h"
#include "profilers/gpu/cupti_collector.h"
#include "profilers/gpu/device_timer.h"
#include "profilers/gpu/kernel_attribution.h"
#include "profilers/gpu/nvtx_iterations.h"
#include "profilers/profiler.h"
#include "profilers/report/stats.h"
#include "profilers/report/text_report.h"
#include "profilers/report/views.h"
#include "profilers/toolbox/live_memory.h"
#include "profilers/toolbox/profileit.h"
#include "profilers/toolbox/timeit.h"

namespace graphprof {
namespace {

constexpr int64_t kLongUs = 20000;
constexpr int64_t kShortUs = 5000;

constexpr char kGraph[] = R"IR(
graph(%x : Tensor):
  %long : int = prim::Constant[value=20000]()
  %short : int = prim::Constant[value=5000]()
  %a : Tensor = graphprof_gpu::spin(%x, %long)
  %b : Tensor = aten::relu(%a)
  %c : Tensor = graphprof_gpu::spin(%b, %short)
  return (%c)
)IR";

int failures = 0;

void Check(bool ok, const std::string& what) {
  std::printf("gpu_check: %s %s\n", ok ? "ok  " : "FAIL", what.c_str());
  if (!ok) ++failures;
}

// The toolbox on a device: every run of the spin graph queues 25 ms of
// kernels and returns at once, so only a synchronising timer sees them.
void CheckToolbox(const std::shared_ptr<const GraphPlan>& plan) {
  const double device_seconds = (kLongUs + kShortUs) / 1e6;
  auto run = [&] {
    absl::StatusOr<c10::IValue> out = Interpreter(plan).Run({at::ones({4})});
    if (!out.ok()) std::printf("gpu_check: run failed: %s\n", std::string(out.status().message()).c_str());
  };
  run();  // loads the kernel before anything is timed

  TimeitResult timed;
  { Timeit timer(&timed, {}); run(); }
  const double timeit_s = timed.seconds().value_or(-1);
  Check(timeit_s >= 0.9 * device_seconds, absl::StrCat("Timeit synchronises the device: ", timeit_s * 1e3, " ms for 25 ms of kernels"));

  std::vector<ProfileStats> stats;
  for (int i = 0; i < 2; ++i) stats.push_back(Profileit(run).stats);
  Check(stats[0].seconds >= 0.9 * device_seconds,
        absl::StrCat("Profileit synchronises the device: ", stats[0].seconds * 1e3, " ms"));
  const absl::StatusOr<DeviceMemoryInfo>& info = stats[0].device_info;
  Check(info.ok() && info->total_bytes > 0 && info->free_bytes <= info->total_bytes && info->used_bytes > 0,
        info.ok() ? absl::StrCat("NVML device memory: ", info->device, " total ", info->total_bytes, " B, free ",
                                 info->free_bytes, " B, used ", info->used_bytes, " B")
                  : absl::StrCat("NVML device memory: ", info.status().message()));
  const StatsSummary summary = SummarizeStats(stats);
  Check(summary.device_info.ok() && summary.device_info->max_used_bytes > 0,
        summary.device_info.ok() ? absl::StrCat("SummarizeStats: min free ", summary.device_info->min_free_bytes,
                                                " B, max used ", summary.device_info->max_used_bytes, " B")
                                 : absl::StrCat("SummarizeStats device info: ", summary.device_info.status().message()));

  // The caching allocator exists only in a CUDA LibTorch (LIBTORCH_DIR);
  // with Debian's CPU LibTorch its absence is the expected answer.
  if (absl::Status allocator = CudaAllocatorStatsStatus(); allocator.ok()) {
    Profiled<at::Tensor> alloc = Profileit([] { return at::empty({1 << 20}, at::TensorOptions().device(at::kCUDA)); });
    const absl::StatusOr<AllocatorStats>& a = alloc.stats.device_allocator;
    Check(a.ok() && a->peak_allocated_bytes >= 4 << 20 && a->peak_reserved_bytes >= a->peak_allocated_bytes,
          a.ok() ? absl::StrCat("allocator peaks for a 4 MiB tensor: allocated ", a->peak_allocated_bytes,
                                " B, reserved ", a->peak_reserved_bytes, " B, active ", a->peak_active_bytes, " B")
                 : absl::StrCat("allocator peaks: ", a.status().message()));
    absl::StatusOr<std::vector<DeviceTensorBytes>> live = LiveDeviceTensorBytes();
    Check(live.ok() && !live->empty() && (*live)[0].bytes >= 4 << 20,
          live.ok() ? absl::StrCat("live device tensor bytes with the tensor alive: ",
                                   live->empty() ? 0 : (*live)[0].bytes)
                    : absl::StrCat("live device tensor bytes: ", live.status().message()));
  } else {
    std::printf("gpu_check: skip allocator statistics: %s\n", std::string(allocator.message()).c_str());
  }
  std::printf("gpu_check: note %s\n", FormatLiveMemory(ReadLiveMemory()).c_str());

  absl::StatusOr<std::unique_ptr<NvtxIterations>> nvtx = NvtxIterations::Create({"spin_graph", 1, 2});
  Check(nvtx.ok(), "NvtxIterations created");
  if (!nvtx.ok()) return;
  for (int i = 0; i < 4; ++i) (*nvtx)->Call(run);
  (*nvtx)->Finish();
  Check((*nvtx)->recorded() == 2 && (*nvtx)->note().empty(),
        absl::StrCat("NVTX iterations: ", (*nvtx)->recorded(), " of 4 calls recorded, profiler API ",
                     (*nvtx)->note().empty() ? "ok" : (*nvtx)->note()));
}

int Main() {
  const CudaStatus cuda = ProbeCuda();
  if (!cuda.available) {
    std::printf("gpu_check: %s (%s): nothing to check\n", cuda.reason.c_str(), cuda.detail.c_str());
    return 2;
  }
  std::printf("gpu_check: device %s\n", cuda.device_name.c_str());
  absl::StatusOr<std::shared_ptr<torch::jit::Graph>> graph = ParseGraph(kGraph);
  absl::StatusOr<PreparedGraph> prepared = graph.ok() ? PrepareGraph(**graph, "spin_graph") : graph.status();
  absl::StatusOr<std::shared_ptr<const GraphPlan>> plan = prepared.ok() ? GraphPlan::Build(*prepared) : prepared.status();
  if (!plan.ok()) {
    std::printf("gpu_check: FAIL %s\n", std::string(plan.status().message()).c_str());
    return 1;
  }
  DeviceEventTimer timer(MakeCudaEventApi());
  CuptiKernelCollector kernels;
  ProfileOptions options;
  options.warmup = 2;
  options.runs = 5;
  options.observers = {&timer, &kernels};
  c10::IValue profiled_output;
  absl::StatusOr<Report> report = Profile(*plan, {at::ones({4})}, options, &profiled_output);
  if (!report.ok()) {
    std::printf("gpu_check: FAIL profiling: %s\n", std::string(report.status().message()).c_str());
    return 1;
  }
  absl::StatusOr<View> view = MakeView(*report, ViewOptions{GroupBy::kNode, "id", 0});
  std::printf("%s\n%s\n", RenderSummary(*report).c_str(), view.ok() ? RenderTable(*report, *view).c_str() : "");

  int long_id = -1, relu_id = -1, short_id = -1;
  for (const NodeRecord& node : report->nodes) {
    if (node.identity.kind == "graphprof_gpu::spin") (long_id < 0 ? long_id : short_id) = node.identity.id;
    if (node.identity.kind == "aten::relu") relu_id = node.identity.id;
  }
  Check(long_id >= 0 && short_id >= 0 && relu_id >= 0, "graph has two spin nodes and a relu");
  if (failures > 0) return 1;
  const int device_m = report->FindMetric(DeviceEventTimer::kMetricName);
  const int count_m = report->FindMetric(KernelAttribution::kCountMetric);
  const int kernel_m = report->FindMetric(KernelAttribution::kTimeMetric);
  Check(device_m > 0, "the report has the device metric");
  if (failures > 0) return 1;
  auto device_us = [&](int id) { return Summarize(report->nodes[id].metrics[device_m].self).mean / 1e3; };
  auto host_us = [&](int id) { return Summarize(report->nodes[id].time().total).mean / 1e3; };
  const double long_us = device_us(long_id), short_us = device_us(short_id), relu_us = device_us(relu_id);
  Check(long_us >= 0.9 * kLongUs && long_us <= 2.0 * kLongUs,
        absl::StrCat("20 ms kernel node: device time ", long_us, " us"));
  Check(short_us >= 0.9 * kShortUs && short_us <= 3.0 * kShortUs,
        absl::StrCat("5 ms kernel node: device time ", short_us, " us"));
  Check(relu_us < 0.1 * kShortUs, absl::StrCat("CPU relu node: device time ", relu_us, " us"));
  std::printf("gpu_check: note host time of the 20 ms node: %.1f us (the launch is asynchronous)\n", host_us(long_id));

  Check(kernels.why().empty(), absl::StrCat("CUPTI active", kernels.why().empty() ? "" : ": " + kernels.why()));
  Check(count_m > 0 && kernel_m > 0, "the report has the kernel metrics");
  if (failures > 0) return 1;
  const NodeRecord& long_node = report->nodes[long_id];
  const double count = Summarize(long_node.metrics[count_m].self).mean;
  const double kernel_ns = Summarize(long_node.metrics[kernel_m].self).mean;
  Check(count == 1, absl::StrCat("20 ms node launched one kernel per run (", count, ")"));
  Check(!long_node.top_kernels.empty() && absl::StrContains(long_node.top_kernels[0].first, "graphprof_spin_kernel"),
        absl::StrCat("kernel name ", long_node.top_kernels.empty() ? "(none)" : long_node.top_kernels[0].first));
  Check(kernel_ns >= 0.9 * kLongUs * 1e3 && kernel_ns <= 2.0 * kLongUs * 1e3,
        absl::StrCat("kernel time ", kernel_ns / 1e3, " us"));
  Check(!report->device_events.empty(), absl::StrCat(report->device_events.size(), " device events for the trace"));
  // The observers must not change what the graph computes.
  absl::StatusOr<c10::IValue> plain = Interpreter(*plan).Run({at::ones({4})});
  std::string why;
  Check(plain.ok() && IdenticalIValues(*plain, profiled_output, &why),
        absl::StrCat("profiled output identical to a plain run", why.empty() ? "" : ": " + why));
  CheckToolbox(*plan);
  std::printf("gpu_check: %s\n", failures == 0 ? "PASS" : "FAIL");
  return failures == 0 ? 0 : 1;
}

}  // namespace
}  // namespace graphprof

int main() { return graphprof::Main(); }
