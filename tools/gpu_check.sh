#!/usr/bin/env bash
# GPU check for graphprof's device profiling (CUDA events + CUPTI).
#
# On a machine with an NVIDIA GPU and its driver:
#   tools/gpu_check.sh
# builds //tools/gpu_check:gpu_check with --config=cuda and runs it. The check
# profiles a graph whose custom operator (compiled with nvcc) launches CUDA
# kernels of 20 ms and 5 ms, and passes when those nodes get matching device
# time (CUDA events) and their kernel (CUPTI), with host results unaffected,
# then checks the toolbox on the device: Timeit/Profileit synchronise, NVML
# device memory, NVTX iteration capture range, and with a CUDA LibTorch the
# caching allocator's peaks and live device tensor bytes.
#
# Exit: 0 pass, 1 fail, 2 no CUDA device (nothing checked), 124 over the time
# limit (GPU_CHECK_LIMIT_S, default 470 s: the whole check stays under 8 minutes).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1

limit=${GPU_CHECK_LIMIT_S:-470}
start=$SECONDS
remaining() { echo $((limit - (SECONDS - start))); }

if command -v nvidia-smi >/dev/null 2>&1; then
  nvidia-smi -L || true
else
  echo "gpu_check: nvidia-smi not found (no NVIDIA driver?)"
fi
nvcc=${NVCC:-/usr/local/cuda/bin/nvcc}
if [[ ! -x $nvcc ]]; then
  echo "gpu_check: FAIL $nvcc not found (the CUDA toolkit is needed to build the check)"
  exit 1
fi

timeout "$(remaining)" ./bazelw build --config=cuda //tools/gpu_check:gpu_check
rc=$?
if ((rc != 0)); then
  echo "gpu_check: FAIL build (exit $rc)"
  ((rc == 124)) && exit 124
  exit 1
fi

timeout "$(remaining)" ./bazel-bin/tools/gpu_check/gpu_check
rc=$?
echo "gpu_check: finished in $((SECONDS - start)) s with exit $rc"
exit "$rc"
