#!/usr/bin/env bash
# Profiling overhead on torch.export programs against TorchScript
# (bench/export_overhead.cc): makes the pairs (bench/export_pairs.py: the
# TorchScript with Debian 12's PyTorch 1.13, the .pt2 with PyTorch 2.6 in the
# Debian 13 root), builds the benchmark optimised, and runs it
# --invocations times (default 3), each invocation timing every candidate
# side by side.
#
#   bench/export_overhead.sh [--invocations=N] [--rounds=N]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
invocations=3
rounds=()
for arg in "$@"; do
  case "$arg" in
    --invocations=*) invocations="${arg#*=}" ;;
    --rounds=*) rounds=("$arg") ;;
    *) echo "usage: $0 [--invocations=N] [--rounds=N]" >&2; exit 2 ;;
  esac
done
dir="$(mktemp -d "${TMPDIR:-/tmp}/export-overhead.XXXXXX")"
trap 'rm -rf "$dir"' EXIT
/usr/bin/python3 bench/export_pairs.py script "$dir" >/dev/null
tools/torch2_root.sh --bind="$dir" -- python3 bench/export_pairs.py export "$dir" >/dev/null
./bazelw build -c opt //bench:export_overhead >/dev/null 2>&1 || ./bazelw build -c opt //bench:export_overhead
bin="$(./bazelw info -c opt bazel-bin 2>/dev/null)/bench/export_overhead"
pairs="resnet18=$dir/resnet18.pt2:$dir/resnet18.pt,chain1000=$dir/chain1000.pt2:$dir/chain1000.pt"
for ((i = 1; i <= invocations; ++i)); do
  echo "# invocation $i"
  "$bin" --pairs="$pairs" "${rounds[@]}"
done
