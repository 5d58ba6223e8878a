#!/usr/bin/env bash
# The device check: builds graphprof with CMake against the machine's
# LibTorch and checks what only a GPU machine can check. For a machine with
# an NVIDIA GPU, a Python with PyTorch 2.x (python3), CMake, ninja and g++,
# and nothing else of ours: what is missing comes from the folder
# tools/fetch_device_deps.sh fills here and the working tree carries.
#
#   tools/device_check.sh
#
# Steps, each with one summary line on stdout and its full log in
# $GRAPHPROF_LOG_DIR (default <build>/device_check_logs):
#   1. torch: the Python's torch (version, CUDA, C++ ABI, CMake prefix); none
#      is needed when a system LibTorch has a CMake config (here: Debian's).
#   2. deps: Abseil, GoogleTest and simdjson built from the carried sources
#      into <build>/deps-prefix with torch's C++ ABI (skipped when built
#      before; system packages are used when the folder is absent).
#   3. configure: CMake with the CUDA parts on when a CUDA toolkit is found.
#   4. build-gpu: the GPU check and the tests of the GPU code first
#      (ninja -k 0: one compile error does not hide the others).
#   5. gpu_check: CUDA events, CUPTI, NVTX, NVML and the allocator on real
#      CUDA tensors (tools/gpu_check.sh with the binary just built); skipped
#      with a line when there is no nvcc (its custom kernel needs one).
#   6. build: everything else (ninja -k 0).
#   7. ctest: every registered suite (or those GRAPHPROF_CTEST_ARGS selects).
#   8. export: a program exported by the Python's own PyTorch
#      (tools/export_check.py: 2.6-2.7 write torch.export.save's layout,
#      2.8+ the PT2 archive) opened, run and verified by the profile_graph
#      just built; skipped with a line when that torch has no torch.export.
#
# Environment:
#   GRAPHPROF_BUILD_DIR    the CMake build tree (default build-device); an
#                          existing one is reused (CI reuses its CMake step's)
#   GRAPHPROF_LOG_DIR      where the full logs go
#   GRAPHPROF_DEVICE_DEPS  the carried dependencies (default third_party/device_deps)
#   PYTHON                 the Python whose torch to use (default: the first of
#                          python3 and /usr/bin/python3 that has torch)
#   GRAPHPROF_CCACHE       0: do not compile through ccache (used when installed,
#                          cache in $CCACHE_DIR or ~/.cache/graphprof/ccache)
#   GRAPHPROF_JOBS         build parallelism (default: the number of cores)
#   GRAPHPROF_LLD          0: link with the compiler's default linker, not
#                          lld (used when ld.lld is there and CMake is 3.29+)
#   GRAPHPROF_CTEST_ARGS   more arguments for step 7's ctest, split on spaces,
#                          e.g. "-R ^(gate_test|merge_test)$" to run only those
#                          suites again (CI's rerun in the same tree)
#   GRAPHPROF_SANITIZE     e.g. address,undefined: build with those sanitizers
#                          (-O1 -g1, CMake's GRAPHPROF_SANITIZE) and run ctest
#                          with Bazel's --config=asan options; CI's CMake step
#                          is its sanitizer step this way
#   GRAPHPROF_SANITIZE_TESTS 0: with GRAPHPROF_SANITIZE, the test sources
#                          compiled without the sanitizers (CMake's
#                          GRAPHPROF_SANITIZE_TESTS=OFF; CI's choice)
#
# Exit: 0 everything passed on a GPU; 2 everything passed and there is no
# GPU (nothing device-side was checked); 1 something failed.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1
root="$PWD"

build="${GRAPHPROF_BUILD_DIR:-build-device}"
mkdir -p "$build" || exit 1
build="$(cd "$build" && pwd)"
logs="${GRAPHPROF_LOG_DIR:-$build/device_check_logs}"
mkdir -p "$logs" || exit 1
logs="$(cd "$logs" && pwd)"
deps="${GRAPHPROF_DEVICE_DEPS:-third_party/device_deps}"
# The first of python3 and /usr/bin/python3 that has torch (as CMakeLists.txt).
python="${PYTHON:-}"
if [[ -z $python ]]; then
  python=python3
  for candidate in python3 /usr/bin/python3; do
    if "$candidate" -c "import torch" >/dev/null 2>&1; then python=$candidate; break; fi
  done
fi
jobs="${GRAPHPROF_JOBS:-$(nproc)}"
start=$SECONDS
failed=0
no_gpu=0

# summary STEP STATUS TEXT: one line a step.
summary() { printf 'device_check: %-10s %-4s %s (%d s)\n' "$1" "$2" "$3" $((SECONDS - start)); }
fail() { summary "$1" FAIL "$2 (log: $logs/$1.log)"; failed=1; }

# 1. torch
torch_prefix=""
abi=""
if "$python" -c "import torch" >/dev/null 2>&1; then
  read -r torch_version torch_cuda torch_abi torch_prefix < <("$python" -c '
import torch, torch.utils
print(torch.__version__, torch.version.cuda or "none", int(torch.compiled_with_cxx11_abi()),
      torch.utils.cmake_prefix_path)' 2>"$logs/torch.log")
  if [[ -n ${torch_prefix:-} && -d $torch_prefix ]]; then
    abi=$torch_abi
    summary torch ok "$python: torch $torch_version, CUDA $torch_cuda, cxx11 ABI $torch_abi, $torch_prefix"
  else
    summary torch ok "$python: torch ${torch_version:-?} has no CMake prefix (${torch_prefix:-none}): the system's LibTorch"
    torch_prefix=""
  fi
else
  summary torch ok "$python has no torch: the system's LibTorch"
fi

# 2. deps
prefix_path=()
[[ -n $torch_prefix ]] && prefix_path+=("$torch_prefix")
if [[ -d $deps ]]; then
  deps="$(cd "$deps" && pwd)"
  deps_prefix="$build/deps-prefix"
  stamp="$deps_prefix/.built-abi${abi:-default}-$(md5sum "$deps/MANIFEST" | cut -c1-12)"
  if [[ -f $stamp ]]; then
    summary deps ok "built before ($deps_prefix)"
  else
    flags=""
    [[ -n $abi ]] && flags="-D_GLIBCXX_USE_CXX11_ABI=$abi"
    (
      set -e
      rm -rf "$deps_prefix" "$build/deps-src"
      mkdir -p "$build/deps-src"
      for tarball in "$deps"/src/*.orig.tar.*; do
        name="$(basename "$tarball" | sed 's/_.*//')"
        mkdir -p "$build/deps-src/$name"
        tar -xf "$tarball" -C "$build/deps-src/$name" --strip-components=1
        case "$name" in
          abseil) extra=(-DABSL_PROPAGATE_CXX_STD=ON -DBUILD_TESTING=OFF) ;;
          googletest) extra=(-DBUILD_GMOCK=ON -DINSTALL_GTEST=ON) ;;
          simdjson) extra=(-DSIMDJSON_DEVELOPER_MODE=OFF -DSIMDJSON_BUILD_STATIC_LIB=ON -DBUILD_SHARED_LIBS=OFF) ;;
          *) extra=() ;;
        esac
        echo "=== $name"
        cmake -S "$build/deps-src/$name" -B "$build/deps-src/$name/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
          -DCMAKE_CXX_STANDARD=17 -DCMAKE_POSITION_INDEPENDENT_CODE=ON "-DCMAKE_CXX_FLAGS=$flags" \
          "-DCMAKE_INSTALL_PREFIX=$deps_prefix" -DCMAKE_INSTALL_LIBDIR=lib "${extra[@]}"
        cmake --build "$build/deps-src/$name/build" -j "$jobs"
        cmake --install "$build/deps-src/$name/build"
      done
      touch "$stamp"
    ) >"$logs/deps.log" 2>&1
    if [[ -f $stamp ]]; then
      summary deps ok "Abseil, GoogleTest, simdjson built from $deps into $deps_prefix"
    else
      fail deps "building the carried sources failed"
    fi
  fi
  prefix_path+=("$deps_prefix" "$deps/prefix/usr")
else
  summary deps ok "no $deps: the system's Abseil, GoogleTest, simdjson, nlohmann-json"
fi
if ((failed)); then
  summary total FAIL "stopped after deps"
  exit 1
fi

# 3. configure
cuda=OFF
if [[ -n ${CUDA_HOME:-} && -d ${CUDA_HOME}/include ]] || [[ -d /usr/local/cuda/include ]] || command -v nvcc >/dev/null 2>&1; then
  cuda=ON
fi
nvcc="$(command -v nvcc || true)"
[[ -z $nvcc && -x /usr/local/cuda/bin/nvcc ]] && nvcc=/usr/local/cuda/bin/nvcc
configure=(cmake -S "$root" -B "$build" -G Ninja "-DGRAPHPROF_WITH_CUDA=$cuda" "-DGRAPHPROF_PYTHON=$python")
# ccache, when there is one (GRAPHPROF_CCACHE=0: not), keyed on paths
# relative to the build directory: a fresh clone elsewhere (CI's) hits what
# this built when its build tree is at the same place in the clone (the
# default, build-device).
if [[ ${GRAPHPROF_CCACHE:-1} != 0 ]] && command -v ccache >/dev/null 2>&1; then
  export CCACHE_DIR="${CCACHE_DIR:-$HOME/.cache/graphprof/ccache}" CCACHE_BASEDIR="$root" CCACHE_NOHASHDIR=true
  # The precompiled torch/script.h (cmake/GraphprofPch.cmake): ccache caches
  # it and the compiles that use it only with these (ccache's manual,
  # "Precompiled headers").
  export CCACHE_SLOPPINESS="${CCACHE_SLOPPINESS:-pch_defines,time_macros,include_file_mtime,include_file_ctime}"
  configure+=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
fi
((${#prefix_path[@]})) && configure+=("-DCMAKE_PREFIX_PATH=$(IFS=';'; echo "${prefix_path[*]}")")
sanitize="${GRAPHPROF_SANITIZE:-}"
if [[ -n $sanitize ]]; then
  configure+=("-DGRAPHPROF_SANITIZE=$sanitize" -DCMAKE_BUILD_TYPE=Sanitize)
  configure+=("-DGRAPHPROF_SANITIZE_TESTS=$([[ ${GRAPHPROF_SANITIZE_TESTS:-1} == 0 ]] && echo OFF || echo ON)")
  # As .bazelrc's --config=asan: LibTorch is not instrumented (no leak or ODR
  # checks), an impossible allocation fails as without ASan; UBSan stops.
  export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0:detect_odr_violation=0:allocator_may_return_null=1}"
  export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
else
  configure+=(-DGRAPHPROF_SANITIZE= -DCMAKE_BUILD_TYPE=RelWithDebInfo)
fi
[[ -n $nvcc ]] && configure+=("-DCMAKE_CUDA_COMPILER=$nvcc")
# lld where there is one and CMake can name it (3.29+): the ASan test
# binaries link against LibTorch in half the time of GNU ld (the 2.6 CI
# step's 58 links: 52 CPU-seconds against 108). GRAPHPROF_LLD=0: GNU ld.
if [[ ${GRAPHPROF_LLD:-1} != 0 ]] && command -v ld.lld >/dev/null 2>&1 &&
  [[ "$(cmake --version | sed -n '1s/^cmake version \([0-9]*\)\.\([0-9]*\).*/\1 \2/p')" =~ ^([0-9]+)\ ([0-9]+)$ ]] &&
  ((BASH_REMATCH[1] > 3 || (BASH_REMATCH[1] == 3 && BASH_REMATCH[2] >= 29))); then
  configure+=(-DCMAKE_LINKER_TYPE=LLD)
fi
if "${configure[@]}" >"$logs/configure.log" 2>&1; then
  summary configure ok "CUDA parts $cuda$([[ $cuda == ON && -z $nvcc ]] && echo ", no nvcc: the custom-kernel graph is skipped")$([[ -n $sanitize ]] && echo ", sanitizers $sanitize$([[ ${GRAPHPROF_SANITIZE_TESTS:-1} == 0 ]] && echo " (test sources without)")")"
else
  fail configure "cmake failed"
  summary total FAIL "stopped after configure"
  exit 1
fi

# 4. build-gpu: the GPU check and the tests of the GPU code, first.
gpu_targets=(nvml_test device_profiling_test nvtx_iterations_test live_memory_test)
have_gpu_check=0
# Not `ninja ... | grep -q`: under pipefail, grep -q leaving at the first match
# kills ninja with SIGPIPE (exit 141) about one time in six, and gpu_check
# was skipped as "not built" on a machine that had built it.
if grep -q '^gpu_check:' <<<"$(ninja -C "$build" -t targets all 2>/dev/null)"; then
  have_gpu_check=1
  gpu_targets=(gpu_check "${gpu_targets[@]}")
fi
if ninja -C "$build" -k 0 -j "$jobs" "${gpu_targets[@]}" >"$logs/build-gpu.log" 2>&1; then
  summary build-gpu ok "${gpu_targets[*]}"
else
  fail build-gpu "$(grep -c 'FAILED:' "$logs/build-gpu.log") target(s) failed"
fi

# 5. gpu_check
if ((have_gpu_check)) && [[ -x $build/tools/gpu_check/gpu_check ]]; then
  GPU_CHECK_BIN="$build/tools/gpu_check/gpu_check" tools/gpu_check.sh >"$logs/gpu_check.log" 2>&1
  rc=$?
  case $rc in
    0) summary gpu_check ok "CUDA events, CUPTI, NVTX, NVML, allocator on a GPU" ;;
    2) summary gpu_check skip "no CUDA device: nothing device-side was checked"; no_gpu=1 ;;
    *) fail gpu_check "exit $rc: $(grep -m1 -E 'FAIL' "$logs/gpu_check.log" || tail -1 "$logs/gpu_check.log")" ;;
  esac
else
  if [[ $cuda == ON && -z $nvcc ]]; then
    summary gpu_check skip "not built: no nvcc for its custom kernel"
  else
    summary gpu_check skip "not built (CUDA parts $cuda)"
  fi
  no_gpu=1  # exit 2 at best: nothing device-side was checked, GPU or not
fi

# 6. build: the rest.
if ninja -C "$build" -k 0 -j "$jobs" >"$logs/build.log" 2>&1; then
  summary build ok "all targets"
else
  fail build "$(grep -c 'FAILED:' "$logs/build.log") target(s) failed"
fi

# 7. ctest
read -r -a ctest_args <<<"${GRAPHPROF_CTEST_ARGS:-}"
if ctest --test-dir "$build" -j "$jobs" --output-on-failure --no-tests=error "${ctest_args[@]}" >"$logs/ctest.log" 2>&1; then
  summary ctest ok "$(grep -E 'tests passed' "$logs/ctest.log" | tail -1)"
else
  fail ctest "$(grep -E 'tests passed|tests failed' "$logs/ctest.log" | tail -1)"
fi

# 8. export
if ! "$python" -c "import torch.export" >/dev/null 2>&1; then
  summary export skip "$python's torch has no torch.export"
elif [[ ! -x $build/tools/profile_graph ]]; then
  fail export "no $build/tools/profile_graph to open it with"
else
  program="$build/export_check.pt2"
  rm -f "$program"
  if ! version="$("$python" tools/export_check.py "$program" 2>"$logs/export.log")"; then
    fail export "tools/export_check.py failed: $(tail -1 "$logs/export.log")"
  elif ! "$build/tools/profile_graph" --model="$program" --warmup=1 --runs=3 >>"$logs/export.log" 2>&1; then
    fail export "profile_graph failed on a program of torch $version: $(tail -1 "$logs/export.log")"
  elif ! grep -q 'verified      output' "$logs/export.log"; then
    fail export "the program of torch $version ran but its output was not verified"
  else
    layout="$(grep -o 'a torch.export program ([^,]*' "$logs/export.log" | head -1 | sed 's/a torch.export program (//')"
    summary export ok "torch $version's program read ($layout), run and verified"
  fi
fi

if ((failed)); then
  summary total FAIL "logs in $logs"
  exit 1
fi
if ((no_gpu)); then
  summary total ok "passed without a GPU (exit 2: nothing device-side checked)"
  exit 2
fi
summary total ok "passed on a GPU"
exit 0
