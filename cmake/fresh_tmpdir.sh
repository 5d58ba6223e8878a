#!/bin/sh
# ctest's launcher for every graphprof test: a fresh, empty TEST_TMPDIR for
# each run of each test, as Bazel gives, so that a rerun of ctest, of one
# test (ctest -R) or of tools/device_check.sh in the same build tree starts
# from what the first run started from. Files a test leaves stay until its
# next run (for a look after a failure).
#
#   fresh_tmpdir.sh DIR COMMAND [ARGS...]
#
# DIR is removed (after making everything in it writable: a test may leave
# read-only directories) and made again, exported as TEST_TMPDIR, then
# COMMAND runs in its place (exec: ctest's timeout and signals reach it).
if [ "$#" -lt 2 ]; then
  echo "fresh_tmpdir.sh: usage: fresh_tmpdir.sh DIR COMMAND [ARGS...]" >&2
  exit 2
fi
dir=$1
shift
case "$dir" in
  */testtmp/?*) ;;
  *) echo "fresh_tmpdir.sh: refusing to empty $dir (not a testtmp/ directory of a build tree)" >&2; exit 2 ;;
esac
if [ -e "$dir" ]; then
  chmod -R u+rwx "$dir" 2>/dev/null
  rm -rf "$dir" || { echo "fresh_tmpdir.sh: cannot remove $dir" >&2; exit 1; }
fi
mkdir -p "$dir" || { echo "fresh_tmpdir.sh: cannot create $dir" >&2; exit 1; }
TEST_TMPDIR=$dir
export TEST_TMPDIR
exec "$@"
