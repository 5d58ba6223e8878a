#!/usr/bin/env bash
# Builds graphprof's fuzzers (--config=fuzz: clang, libFuzzer, ASan, UBSan) in
# their own Bazel output base, so the default gcc build's cache is untouched,
# and runs each for SECONDS seconds on a temporary copy of its seed corpus
# and past crash inputs (tests/fuzz/corpus/<fuzzer>/ and
# tests/fuzz/regressions/<fuzzer>/ are never modified).
#
#   tests/fuzz/run_fuzzers.sh 60                     # every fuzzer, 60 s each
#   tests/fuzz/run_fuzzers.sh 600 ir_text_fuzzer     # one fuzzer
#   tests/fuzz/run_fuzzers.sh -j 2 60                # two fuzzers at a time (CI)
#
# Exits 1 if any fuzzer crashed, hung (-timeout) or ran out of memory; the
# crash input and the fuzzer's log stay in a temporary directory, printed at
# the end. Reproduce with `<fuzzer binary> <crash input>`; once fixed, add the
# input to tests/fuzz/regressions/<fuzzer>/ and a test of it to the
# GoogleTest suites under tests/.
set -euo pipefail

usage() { echo "usage: $0 [-j JOBS] SECONDS [FUZZER...]" >&2; exit 2; }
jobs=1
if [[ ${1:-} == -j ]]; then
  [[ ${2:-} =~ ^[0-9]+$ && $2 -gt 0 ]] || usage
  jobs=$2
  shift 2
fi
[[ $# -ge 1 && $1 =~ ^[0-9]+$ && $1 -gt 0 ]] || usage
seconds=$1
shift

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
all=(ir_text_fuzzer input_spec_fuzzer inputs_file_fuzzer report_json_fuzzer compare_fuzzer export_fuzzer
     compiled_package_fuzzer)
fuzzers=("$@")
((${#fuzzers[@]})) || fuzzers=("${all[@]}")
for f in "${fuzzers[@]}"; do
  [[ -d $root/tests/fuzz/corpus/$f ]] || { echo "$0: unknown fuzzer '$f' (one of: ${all[*]})" >&2; exit 2; }
done

# One output base serves one checkout at a time (Bazel restarts its server
# when another workspace uses it); GRAPHPROF_FUZZ_OUTPUT_BASE picks another.
# Under GRAPHPROF_BAZEL_CACHE (bazelw: all Bazel caches in one directory) it
# lives there too.
default_base="${XDG_CACHE_HOME:-$HOME/.cache}/graphprof/fuzz-output-base"
if [[ -n ${GRAPHPROF_BAZEL_CACHE:-} ]]; then default_base="$GRAPHPROF_BAZEL_CACHE/fuzz-output-base"; fi
output_base="${GRAPHPROF_FUZZ_OUTPUT_BASE:-$default_base}"
bazel=("$root/bazelw" "--output_base=$output_base")
targets=()
for f in "${fuzzers[@]}"; do targets+=("//tests/fuzz:$f"); done
start=$SECONDS
"${bazel[@]}" build --config=fuzz "${targets[@]}"
bin="$("${bazel[@]}" info --config=fuzz bazel-bin 2>/dev/null)/tests/fuzz"
echo "run_fuzzers: built in $((SECONDS - start)) s"

work="$(mktemp -d "${TMPDIR:-/tmp}/graphprof-fuzz.XXXXXX")"
# UBSan reports abort (-fno-sanitize-recover); print where they happened.
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1}"
# One fuzzer: its result line goes to $work/$f/result, "ok" or "FAILED" to
# $work/$f/status (so that several can run at once).
run_one() {
  local f=$1
  mkdir -p "$work/$f/corpus" "$work/$f/crashes"
  cp "$root/tests/fuzz/corpus/$f/"* "$work/$f/corpus/"
  # Inputs that crashed it once start every run too.
  if [[ -d $root/tests/fuzz/regressions/$f ]]; then cp "$root/tests/fuzz/regressions/$f/"* "$work/$f/corpus/"; fi
  local log="$work/$f/log"
  # Tokens of the input's language (most parsing happens in uninstrumented
  # LibTorch or headers, where libFuzzer cannot learn them).
  local dict=()
  if [[ -f $root/tests/fuzz/$f.dict ]]; then dict=("-dict=$root/tests/fuzz/$f.dict"); fi
  local began=$SECONDS
  if "$bin/$f" -max_total_time="$seconds" -rss_limit_mb=4096 -timeout=20 -print_final_stats=1 "${dict[@]}" \
      -artifact_prefix="$work/$f/crashes/" "$work/$f/corpus" >"$log" 2>&1; then
    local runs
    runs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")"
    echo "run_fuzzers: $f: ok, ${runs:-?} inputs in $((SECONDS - began)) s, corpus $(ls "$work/$f/corpus" | wc -l) files" \
      >"$work/$f/result"
    echo ok >"$work/$f/status"
  else
    {
      echo "run_fuzzers: $f: FAILED after $((SECONDS - began)) s:"
      # The report's first lines, graphprof's frames and the summary.
      # Each grep may find nothing (a timeout, an out-of-memory, a crash inside
      # LibTorch): that must not end the script under set -e / pipefail.
      { grep -m 3 -E 'ERROR: |runtime error: |WARNING: ' "$log" || true
        grep -E ' in (graphprof::|LLVMFuzzerTestOneInput)' "$log" | head -n 8 || true
        grep -E '^SUMMARY: ' "$log" || true; } | cut -c 1-300 | sed 's/^/    /'
    } >"$work/$f/result"
    echo FAILED >"$work/$f/status"
  fi
}

# At most $jobs at once, each given the whole time (libFuzzer runs one
# process on one core).
running=0
for f in "${fuzzers[@]}"; do
  if ((running >= jobs)); then
    wait -n || true
    running=$((running - 1))
  fi
  run_one "$f" &
  running=$((running + 1))
done
wait || true
failed=()
for f in "${fuzzers[@]}"; do
  cat "$work/$f/result" 2>/dev/null || echo "run_fuzzers: $f: FAILED (no result)"
  [[ "$(cat "$work/$f/status" 2>/dev/null)" == ok ]] || failed+=("$f")
done

if ((${#failed[@]})); then
  echo "run_fuzzers: ${#failed[@]} fuzzer(s) failed: ${failed[*]}"
  for f in "${failed[@]}"; do
    echo "  $f: log $work/$f/log; inputs $work/$f/crashes/"
    ls "$work/$f/crashes/" | sed "s|^|    $work/$f/crashes/|"
    echo "  reproduce: $bin/$f $work/$f/crashes/<input>"
  done
  exit 1
fi
rm -rf "$work"
echo "run_fuzzers: all ${#fuzzers[@]} fuzzers ran ${seconds} s each without a crash"
