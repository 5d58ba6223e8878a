#!/usr/bin/env bash
# tools/gpu_check.sh can only really run on a GPU machine. Here it runs in a
# scratch copy of the repository layout whose ./bazelw and check binary are
# stubs, to test what the script itself promises: it propagates the check's
# exit code (0 pass, 1 fail, 2 no GPU, but 1 when nvidia-smi lists a GPU),
# fails when the build fails or nvcc is missing, stops with 124 at its time
# limit, and runs a prebuilt binary (GPU_CHECK_BIN) without building.
set -uo pipefail
script="$PWD/tools/gpu_check.sh"
bash -n "$script" || { echo "syntax error"; exit 1; }

failures=0
# run_case NAME EXPECTED_EXIT BUILD_EXIT CHECK_SCRIPT [ENV...]
run_case() {
  local name=$1 expected=$2 build_exit=$3 check=$4
  shift 4
  local root
  root=$(mktemp -d "${TEST_TMPDIR:-/tmp}/gpu_check.XXXXXX")
  mkdir -p "$root/tools" "$root/bazel-bin/tools/gpu_check" "$root/bin"
  cp "$script" "$root/tools/gpu_check.sh"
  printf '#!/bin/sh\nexit %s\n' "$build_exit" > "$root/bazelw"
  printf '#!/bin/sh\n%s\n' "$check" > "$root/bazel-bin/tools/gpu_check/gpu_check"
  printf '#!/bin/sh\nexit 0\n' > "$root/bin/nvcc"
  chmod +x "$root/bazelw" "$root/bazel-bin/tools/gpu_check/gpu_check" "$root/bin/nvcc"
  local out rc
  out=$(env NVCC="$root/bin/nvcc" "$@" bash "$root/tools/gpu_check.sh" 2>&1)
  rc=$?
  if [[ $rc -ne $expected ]]; then
    echo "FAIL $name: exit $rc, expected $expected"
    echo "$out" | sed 's/^/    /'
    failures=$((failures + 1))
  else
    echo "ok   $name (exit $rc)"
  fi
  rm -rf "$root"
}

run_case "check passes" 0 0 'echo PASS; exit 0'
run_case "check fails" 1 0 'exit 1'
run_case "no GPU" 2 0 'exit 2'
run_case "build fails" 1 3 'exit 0'
run_case "nvcc missing" 1 0 'exit 0' NVCC=/nonexistent/nvcc
run_case "time limit" 124 0 'sleep 30' GPU_CHECK_LIMIT_S=2
# A prebuilt binary: no build (this ./bazelw would fail) and no nvcc needed.
prebuilt=$(mktemp -d "${TEST_TMPDIR:-/tmp}/gpu_check_bin.XXXXXX")
printf '#!/bin/sh\necho PASS; exit 0\n' > "$prebuilt/gpu_check"
chmod +x "$prebuilt/gpu_check"
run_case "prebuilt binary" 0 3 'exit 1' GPU_CHECK_BIN="$prebuilt/gpu_check" NVCC=/nonexistent/nvcc
run_case "prebuilt binary missing" 1 0 'exit 0' GPU_CHECK_BIN="$prebuilt/none"
# "No CUDA device" while nvidia-smi lists a GPU: the driver was not found.
printf '#!/bin/sh\necho "GPU 0: NVIDIA H200 (UUID: GPU-x)"\n' > "$prebuilt/nvidia-smi"
chmod +x "$prebuilt/nvidia-smi"
run_case "GPU listed but not found" 1 0 'exit 2' PATH="$prebuilt:$PATH"
rm -rf "$prebuilt"

if [[ $failures -ne 0 ]]; then
  echo "$failures case(s) failed"
  exit 1
fi
echo "gpu_check.sh: all cases behave"
