#!/usr/bin/env bash
# The profiler's own cost on AOTInductor packages (docs/compiled.md): makes
# torchvision resnet18 and mobilenet_v3_small packages with
# graphprof.compile_aoti in the Debian 13 root (bench/compiled_packages.py),
# builds bench/compiled_overhead.cc in a CMake tree on LibTorch 2.6 and runs
# it INVOCATIONS times a model: plain runs against profiled runs, side by
# side in one process, 1 thread. Use a tree without sanitizers (the pip
# build's: python/packaging/cmake_build.py, -O2 -DNDEBUG).
#
#   bench/compiled_overhead.sh BUILD_DIR [INVOCATIONS] [ROUNDS]   (default 3 invocations, 60 rounds)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
[[ $# -ge 1 ]] || { sed -n 2,10p "$0" >&2; exit 2; }
build="$(cd "$1" && pwd)"
invocations="${2:-3}"
rounds="${3:-60}"
grep -q '^GRAPHPROF_SANITIZE:STRING=$' "$build/CMakeCache.txt" ||
  echo "# note: $build is built with sanitizers: its ratios overstate the cost" >&2
dir="$(mktemp -d "${TMPDIR:-/tmp}/compiled-overhead.XXXXXX")"
trap 'rm -rf "$dir"' EXIT
binds=(--bind="$dir")
[[ -d /usr/local/cuda/include ]] && binds+=(--bind=/usr/local/cuda)
[[ -n ${CCACHE_DIR:-} ]] && binds+=(--bind="$CCACHE_DIR")
models=(resnet18 mobilenet_v3_small)
tools/torch2_root.sh "${binds[@]}" -- env ${CCACHE_DIR:+CCACHE_DIR=$CCACHE_DIR} \
  cmake --build "$build" --target compiled_overhead >"$dir/build.log" 2>&1 || { tail -20 "$dir/build.log"; exit 1; }
tools/torch2_root.sh "${binds[@]}" -- python3 bench/compiled_packages.py make "$dir" "${models[@]}" >"$dir/make.log" 2>&1 ||
  { tail -20 "$dir/make.log"; exit 1; }
for m in "${models[@]}"; do
  for i in $(seq "$invocations"); do
    tools/torch2_root.sh "${binds[@]}" -- "$build/bench/compiled_overhead" --model="$dir/$m.aoti.pt2" \
      --rounds="$rounds" | sed "s|$dir/||"
  done
done
