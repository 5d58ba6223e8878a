#include "tools/profiling_options.h"

#include <c10/core/Device.h>

#include <exception>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ir/passes.h"
#include "profilers/gpu/nvtx.h"

namespace graphprof::cli {
namespace {

absl::Status ValidatePasses(const CliOptions& o) {
  for (const std::string* passes : {&o.passes, &o.ab}) {
    if (passes->empty()) continue;
    const char* flag = passes == &o.ab ? "--ab" : "--passes";
    absl::StatusOr<std::vector<Pass>> parsed = ParsePasses(*passes);
    if (!parsed.ok()) return absl::InvalidArgumentError(absl::StrCat(flag, ": ", parsed.status().message()));
    for (const Pass& pass : *parsed) {
      if (o.backward && pass.changes_parameters) {
        return absl::InvalidArgumentError(absl::StrCat(
            "--backward cannot follow ", flag, "=", pass.name,
            ": it turns parameters into constants (or changes them), so there are no gradients to measure"));
      }
    }
  }
  return absl::OkStatus();
}

absl::Status ValidateNvtx(const CliOptions& o) {
  if (o.nvtx && !NvtxAvailable()) {
    return absl::InvalidArgumentError("--nvtx needs a build with NVTX: ./bazelw run --config=cuda //tools:profile_graph");
  }
  if (o.nvtx_iters == 0 && o.nvtx_warmup == 0) return absl::OkStatus();
  if (o.nvtx_iters < 1) {
    return absl::InvalidArgumentError(absl::StrCat("--nvtx_iters must be at least 1 (got ", o.nvtx_iters, ")",
                                                   o.nvtx_iters == 0 ? ": --nvtx_warmup needs it" : ""));
  }
  if (o.nvtx_warmup < 0) return absl::InvalidArgumentError("--nvtx_warmup must be 0 or more");
  if (o.nvtx_warmup + o.nvtx_iters > o.runs) {
    return absl::InvalidArgumentError(absl::StrCat("--nvtx_warmup=", o.nvtx_warmup, " plus --nvtx_iters=", o.nvtx_iters,
                                                   " is more than the ", o.runs, " timed runs (--runs)"));
  }
  if (!NvtxAvailable()) {
    return absl::InvalidArgumentError(
        "--nvtx_iters needs a build with NVTX: ./bazelw run --config=cuda //tools:profile_graph");
  }
  return absl::OkStatus();
}

absl::Status ValidateDevice(const CliOptions& o) {
  bool device_ok = o.device == "cpu" || o.device.rfind("cuda", 0) == 0;
  if (device_ok) {
    try {
      c10::Device device(o.device);
    } catch (const std::exception&) {
      device_ok = false;
    }
  }
  if (!device_ok) {
    return absl::InvalidArgumentError(absl::StrCat("--device: unknown device '", o.device, "' (use cpu, cuda or cuda:N)"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status Validate(const CliOptions& o) {
  for (absl::Status (*check)(const CliOptions&) : {&ValidateCommon, &ValidatePasses, &ValidateNvtx, &ValidateDevice}) {
    if (absl::Status status = check(o); !status.ok()) return status;
  }
  return absl::OkStatus();
}

}  // namespace graphprof::cli
