#!/usr/bin/env bash
# tools/gpu_check.sh can only really run on a GPU machine; here we check that
# it parses and that it keeps the promised exit codes and time limit.
set -euo pipefail
script="tools/gpu_check.sh"
bash -n "$script"
grep -q 'limit=${GPU_CHECK_LIMIT_S:-470}' "$script"
grep -q -- '--config=cuda //tools/gpu_check:gpu_check' "$script"
grep -q 'exit 124' "$script"
echo "gpu_check.sh: syntax ok"
