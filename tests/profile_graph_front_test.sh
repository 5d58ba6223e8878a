#!/usr/bin/env bash
# profile_graph is a front without LibTorch (tools/profile_graph.cc): it
# merges and checks saved reports and answers --help itself, and starts profile_graph_full,
# beside it, for everything else. Checked here: its ELF file needs no
# LibTorch library (so merging does not pay LibTorch's start-up), profiling
# through it works and gives the same exit codes, and a front copied alone
# still merges, refuses usage errors and says in one line what is missing
# for profiling.
set -uo pipefail
front="$PWD/tools/profile_graph"
work="$(mktemp -d "${TEST_TMPDIR:-/tmp}/front.XXXXXX")"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

needed="$(readelf -d "$front" | awk '/NEEDED/ { print $NF }')"
[[ -n $needed ]] || fail "readelf lists no NEEDED libraries for $front"
if grep -Eq 'libtorch|libc10|libgomp|libcuda' <<<"$needed"; then
  fail "the front loads LibTorch: $(tr '\n' ' ' <<<"$needed")"
fi
# Its allocator for merges (//third_party/system: jemalloc; the CMake build's
# where there is one: GRAPHPROF_FRONT_JEMALLOC=0 when it found none).
if [[ ${GRAPHPROF_FRONT_JEMALLOC:-1} != 0 ]]; then
  grep -q 'libjemalloc' <<<"$needed" || fail "the front does not link jemalloc: $(tr '\n' ' ' <<<"$needed")"
fi

# Profiling goes through profile_graph_full: two reports of the same model.
for side in a b; do
  "$front" --zoo=mlp --warmup=0 --runs=6 --format=json --output="$work/$side.json" 2>"$work/$side.err" \
    || fail "profiling through the front: exit $? ($(head -c 300 "$work/$side.err"))"
done
"$front" --zoo=mlp --runs=0 2>"$work/usage.err"
rc=$?
[[ $rc -eq 2 ]] || fail "a usage error through the front: exit $rc, expected 2"
grep -q -- '--runs must be at least 1' "$work/usage.err" || fail "usage message: $(cat "$work/usage.err")"

# The front alone: merge and --help work; profiling says what is missing.
mkdir -p "$work/alone"
cp -L "$front" "$work/alone/profile_graph"
"$work/alone/profile_graph" merge "$work/a.json" "$work/b.json" --format=json --output="$work/merged.json" \
  2>"$work/merge.err" || fail "merge with the front alone: exit $? ($(head -c 300 "$work/merge.err"))"
runs="$(/usr/bin/python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["runs"])' "$work/merged.json" 2>&1)"
[[ $runs == 12 ]] || fail "the merged report has $runs runs, expected 12 (6 + 6)"
"$work/alone/profile_graph" merge "$work/a.json" --model=x.pt 2>"$work/merge_usage.err"
rc=$?
[[ $rc -eq 2 ]] || fail "merge with --model: exit $rc, expected 2"
grep -q 'applies to profiling' "$work/merge_usage.err" || fail "merge usage message: $(cat "$work/merge_usage.err")"
# check of two saved reports too: a verdict (passed, or on an unlucky A/A
# failed or inconclusive: the gate's call, not this test's) written as JSON.
"$work/alone/profile_graph" check --baseline="$work/a.json" "$work/b.json" --format=json --output="$work/check.json" \
  2>"$work/check.err"
rc=$?
[[ $rc -eq 0 || $rc -eq 4 || $rc -eq 5 ]] || fail "check with the front alone: exit $rc ($(head -c 300 "$work/check.err"))"
grep -q '"status"' "$work/check.json" || fail "check with the front alone wrote no verdict: $(head -c 300 "$work/check.json")"
"$work/alone/profile_graph" check --baseline="$work/a.json" "$work/b.json" --runs=3 2>"$work/check_usage.err"
rc=$?
[[ $rc -eq 2 ]] || fail "check of saved reports with --runs: exit $rc, expected 2"
grep -q 'applies to profiling' "$work/check_usage.err" || fail "check usage message: $(cat "$work/check_usage.err")"
# A --compare or check --baseline file that is no report is refused before
# profile_graph_full would start: exit 1, one line naming the file.
printf '{"not": "a report"}' >"$work/bad.json"
for args in "--compare=$work/bad.json" "check --baseline=$work/bad.json"; do
  # shellcheck disable=SC2086
  "$work/alone/profile_graph" $args --zoo=mlp --runs=2 2>"$work/bad.err"
  rc=$?
  [[ $rc -eq 1 ]] || fail "$args with the front alone: exit $rc, expected 1 ($(head -c 300 "$work/bad.err"))"
  [[ $(wc -l <"$work/bad.err") -eq 1 ]] || fail "$args: not one line: $(cat "$work/bad.err")"
  grep -q "bad.json: " "$work/bad.err" || fail "$args: the message does not name the file: $(cat "$work/bad.err")"
  grep -q 'profile_graph_full' "$work/bad.err" && fail "$args: the front started profile_graph_full: $(cat "$work/bad.err")"
done
"$work/alone/profile_graph" --help >"$work/help.txt" 2>&1 || fail "--help with the front alone: exit $?"
grep -q -- '--model' "$work/help.txt" || fail "--help lists no --model flag"
# Usage errors the options show by themselves are the front's: answered
# without profile_graph_full (without LibTorch's start-up).
"$work/alone/profile_graph" --zoo=mlp --runs=0 2>"$work/alone_usage.err"
rc=$?
[[ $rc -eq 2 ]] || fail "a usage error with the front alone: exit $rc, expected 2 ($(cat "$work/alone_usage.err"))"
grep -q -- '--runs must be at least 1' "$work/alone_usage.err" || fail "usage message: $(cat "$work/alone_usage.err")"
"$work/alone/profile_graph" --list_zoo --runs=0 >/dev/null 2>"$work/alone_list.err"
rc=$?
[[ $rc -eq 1 ]] || fail "--list_zoo with the front alone: exit $rc, expected 1 (the listing is profile_graph_full's)"
"$work/alone/profile_graph" --zoo=mlp 2>"$work/alone.err"
rc=$?
[[ $rc -eq 1 ]] || fail "profiling with the front alone: exit $rc, expected 1"
[[ $(wc -l <"$work/alone.err") -eq 1 ]] || fail "not one line: $(cat "$work/alone.err")"
grep -q 'profile_graph_full' "$work/alone.err" || fail "the message does not name profile_graph_full: $(cat "$work/alone.err")"

rm -rf "$work"
if ((failures > 0)); then
  echo "$failures failure(s)"
  exit 1
fi
echo "PASS"
