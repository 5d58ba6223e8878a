#!/usr/bin/env bash
# tools/torch2_root.sh's interface, checked before any root is made: --help,
# and one-line usage errors with exit 2 (docs/cmake.md, "LibTorch 2.6").
# Making and entering the root is what CI's LibTorch 2.6 step does.
set -u
script="${TEST_SRCDIR:-.}/${TEST_WORKSPACE:-graphprof}/tools/torch2_root.sh"
[[ -f $script ]] || script="tools/torch2_root.sh"
fail=0
expect() {  # expect CODE TEXT -- ARGS...
  local code=$1 text=$2
  shift 3
  local err rc
  err="$(bash "$script" "$@" 2>&1 >/dev/null)"
  rc=$?
  if [[ $rc -ne $code || $err != *"$text"* || $(printf '%s\n' "$err" | wc -l) -ne 1 ]]; then
    echo "FAIL: torch2_root.sh $*: exit $rc, stderr: $err (want exit $code and one line with '$text')"
    fail=1
  fi
}
help="$(bash "$script" --help)" || { echo "FAIL: --help exits $?"; fail=1; }
for want in "tools/torch2_root.sh [--root=DIR] [--bind=DIR]... -- COMMAND" "mount namespace" "Exit: COMMAND's status"; do
  [[ $help == *"$want"* ]] || { echo "FAIL: --help lacks '$want'"; fail=1; }
done
expect 2 "no command" -- --root=/nonexistent
expect 2 "unexpected argument '--frobnicate'" -- --frobnicate -- true
expect 2 "--bind=/nonexistent-dir: not a directory" -- --bind=/nonexistent-dir -- true
expect 2 "cannot show / inside the root" -- --bind=/ -- true
((fail == 0)) && echo "PASS"
exit $fail
