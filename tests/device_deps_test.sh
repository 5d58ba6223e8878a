#!/usr/bin/env bash
# The device check's carried-packages path, end to end, in a temporary
# directory: tools/fetch_device_deps.sh fills a folder there (or
# GRAPHPROF_DEVICE_DEPS names one already fetched), tools/device_check.sh
# builds Abseil, GoogleTest and simdjson from it into <build>/deps-prefix,
# configures graphprof against that prefix and the carried nlohmann-json
# (checked in CMakeCache.txt), builds everything and runs ctest. Nothing may
# be written outside the temporary directory: /usr, /usr/local, /opt, /etc
# and ~/.cache/graphprof are checked for newer files, the working tree with
# git status (compiles do not go through ccache here).
#
#   tests/device_deps_test.sh        (about 30 minutes on 2 cores; not in CI)
#
# Run at stop 30: every step passed and 34 of 35 ctest suites; the consumer
# test did not link (its find_package(graphprof) found the system's Abseil,
# Debian's build, whose symbols live in absl::debian3 with Abseil's own
# string_view, beside a graphprof compiled against the carried lts_20220623
# with std::string_view). graphprofConfig.cmake now looks for its
# dependencies where the build found them first: the second run passed
# every step and 35/35 suites.
#
# Exit 0 when the check passed (device_check's exit 2: no GPU), 1 otherwise.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1
tmp="$(mktemp -d "${TMPDIR:-/tmp}/graphprof-device-deps.XXXXXX")"
# Removed when the check passes; kept (with its logs and build tree) when not.
trap 'rm -rf "$tmp"' EXIT
fail() { trap - EXIT; echo "device_deps_test: FAIL: $* (kept: $tmp)"; exit 1; }

deps="${GRAPHPROF_DEVICE_DEPS:-}"
if [[ -z $deps ]]; then
  deps="$tmp/deps"
  tools/fetch_device_deps.sh --out="$deps" || fail "fetch_device_deps.sh"
fi
deps="$(cd "$deps" && pwd)"
touch "$tmp/marker"
tree_before="$(git status --porcelain)"
# The product's own caches (the roofline's ceilings) and Python's bytecode
# are kept out of the check: the first into the temporary directory, the
# second not written.
XDG_CACHE_HOME="$tmp/xdg-cache" PYTHONDONTWRITEBYTECODE=1 \
  GRAPHPROF_DEVICE_DEPS="$deps" GRAPHPROF_BUILD_DIR="$tmp/build" GRAPHPROF_LOG_DIR="$tmp/logs" GRAPHPROF_CCACHE=0 \
  tools/device_check.sh
rc=$?
if [[ $rc -ne 2 && $rc -ne 0 ]]; then
  for log in "$tmp"/logs/*.log; do echo "--- $log (last 30 lines)"; tail -n 30 "$log"; done
  fail "device_check exit $rc"
fi

# The configuration found the carried packages, not the system's.
cache="$tmp/build/CMakeCache.txt"
for package in absl GTest simdjson; do
  dir="$(sed -n "s/^${package}_DIR:PATH=//p" "$cache")"
  [[ $dir == "$tmp/build/deps-prefix/"* ]] || fail "${package}_DIR is '$dir', not under $tmp/build/deps-prefix"
done
dir="$(sed -n 's/^nlohmann_json_DIR:PATH=//p' "$cache")"
[[ $dir == "$deps/prefix/"* ]] || fail "nlohmann_json_DIR is '$dir', not under $deps/prefix"

# Nothing written outside the temporary directory. Bazel's disk cache (the
# directory and what is in it) is left out: a Bazel command run beside this
# script in another shell writes it (the second run here failed on the
# directory's mtime alone).
outside="$(find /usr /usr/local /opt /etc "$HOME/.cache/graphprof" -xdev -newer "$tmp/marker" \
  -not -path "$HOME/.cache/graphprof/bazel-disk-cache" \
  -not -path "$HOME/.cache/graphprof/bazel-disk-cache/*" 2>/dev/null | head -n 20)"
[[ -z $outside ]] || fail "written outside $tmp: $outside"
[[ "$(git status --porcelain)" == "$tree_before" ]] || fail "the working tree changed: $(git status --porcelain)"
echo "device_deps_test: ok: Abseil, GoogleTest, simdjson built from $deps into a temporary prefix, nlohmann-json" \
  "from its unpacked package; graphprof built and ctest passed against them (device_check exit $rc); nothing" \
  "written outside $tmp"
