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
# "No CUDA device" while nvidia-smi lists a GPU is a failure (1): the driver's
# libraries were not found.
#
# A machine without Bazel (a GPU machine lent for minutes) runs a binary built
# elsewhere with ./bazelw build --config=cuda //tools/gpu_check:gpu_check:
#   GPU_CHECK_BIN=path/to/gpu_check tools/gpu_check.sh
# (no build, no nvcc needed; its libraries must be found, e.g. LD_LIBRARY_PATH).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1

limit=${GPU_CHECK_LIMIT_S:-470}
start=$SECONDS
# Never 0 (timeout 0 means no limit) nor negative (timeout refuses it).
remaining() { local left=$((limit - (SECONDS - start))); echo $((left > 1 ? left : 1)); }

gpus_listed=0
if command -v nvidia-smi >/dev/null 2>&1; then
  listing=$(nvidia-smi -L 2>&1) || true
  echo "$listing"
  grep -q '^GPU ' <<<"$listing" && gpus_listed=1
else
  echo "gpu_check: nvidia-smi not found (no NVIDIA driver?)"
fi
bin=${GPU_CHECK_BIN:-}
if [[ -z $bin ]]; then
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
  bin=./bazel-bin/tools/gpu_check/gpu_check
elif [[ ! -x $bin ]]; then
  echo "gpu_check: FAIL GPU_CHECK_BIN=$bin is not an executable"
  exit 1
fi

timeout "$(remaining)" "$bin"
rc=$?
if ((rc == 2 && gpus_listed)); then
  echo "gpu_check: FAIL nvidia-smi lists a GPU but the check found no CUDA device (driver libraries not found?)"
  rc=1
fi
echo "gpu_check: finished in $((SECONDS - start)) s with exit $rc"
exit "$rc"
