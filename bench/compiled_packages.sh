#!/usr/bin/env bash
# AOTInductor packages of torchvision models profiled per kernel
# (docs/compiled.md; bench/compiled_packages.py): compiles resnet18 and
# mobilenet_v3_small with graphprof.compile_aoti in the Debian 13 root (and
# saves their torch.export programs with graphprof.save_export), profiles
# each package and each program with a profile_graph built on LibTorch 2.6,
# and prints per model: the share of the run inside named calls, the
# verification, the rows' FLOPs against the program's, the top row.
#
#   bench/compiled_packages.sh [BUILD_DIR]   (default build-device: tools/device_check.sh's tree)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
build="$(cd "${1:-build-device}" && pwd)"
tool="$build/runfiles/tools/profile_graph"
[[ -x $tool ]] || { echo "no $tool: build graphprof on LibTorch 2.6 first (tools/device_check.sh)" >&2; exit 2; }
dir="$(mktemp -d "${TMPDIR:-/tmp}/compiled-packages.XXXXXX")"
trap 'rm -rf "$dir"' EXIT
binds=(--bind="$dir")
[[ -d /usr/local/cuda/include ]] && binds+=(--bind=/usr/local/cuda)
models=(resnet18 mobilenet_v3_small)
start=$SECONDS
tools/torch2_root.sh "${binds[@]}" -- python3 bench/compiled_packages.py make "$dir" "${models[@]}" >"$dir/make.log" 2>&1 ||
  { tail -20 "$dir/make.log"; exit 1; }
echo "# compiled ${models[*]} in $((SECONDS - start)) s"
for m in "${models[@]}"; do
  for f in "$m.aoti.pt2" "$m.pt2"; do
    tools/torch2_root.sh "${binds[@]}" -- "$tool" --model="$dir/$f" --warmup=2 --runs=10 --format=json \
      --output="$dir/${f%.pt2}.json" >/dev/null
  done
  mv "$dir/$m.json" "$dir/$m.pt2.json"
done
python3 bench/compiled_packages.py summarize "$dir" "${models[@]}"
