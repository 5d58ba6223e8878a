#!/usr/bin/env bash
# Fills a folder with what tools/device_check.sh needs to build graphprof on
# a machine that has a GPU, CMake, ninja, g++ and a Python with PyTorch but
# nothing else of ours (no Abseil, GoogleTest, simdjson, nlohmann-json).
# Run it here (it reads Debian's archive, as ./bazelw does); the folder then
# travels with the working tree (about 5 MiB).
#
#   tools/fetch_device_deps.sh [--out=DIR]     (default third_party/device_deps, ignored by git)
#
# What it holds, and why in that form:
#   * Abseil, GoogleTest (with gmock) and simdjson as Debian's source
#     tarballs (the versions Bazel builds against here): compiled libraries
#     from Debian might not load on another distribution, and their C++ ABI
#     must match the LibTorch they are linked with, which device_check.sh
#     reads from torch (torch.compiled_with_cxx11_abi()) before building them.
#   * nlohmann-json as Debian's binary package unpacked with dpkg -x into a
#     private prefix: headers and a CMake config only, nothing to link.
# Nothing is installed: nothing is written outside DIR and a temporary
# directory, which is removed.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

out=third_party/device_deps
for arg in "$@"; do
  case "$arg" in
    --out=*) out="${arg#--out=}" ;;
    -h|--help) sed -n '2,21p' "$0"; exit 0 ;;
    *) echo "fetch_device_deps: unknown argument '$arg' (usage: $0 [--out=DIR])" >&2; exit 2 ;;
  esac
done
[[ -n $out ]] || { echo "fetch_device_deps: --out is empty" >&2; exit 2; }

sources=(abseil googletest simdjson)
binaries=(nlohmann-json3-dev)

tmp="$(mktemp -d "${TMPDIR:-/tmp}/graphprof-deps.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
# A private apt state (lists, cache, source list): the system's is not touched.
mkdir -p "$tmp/lists/partial" "$tmp/cache/archives/partial" "$tmp/src" "$tmp/deb"
suite="$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")"
printf 'deb http://deb.debian.org/debian %s main\ndeb-src http://deb.debian.org/debian %s main\n' \
  "$suite" "$suite" > "$tmp/sources.list"
apt_opts=(-q -o "Dir::State::Lists=$tmp/lists" -o "Dir::Cache=$tmp/cache"
          -o "Dir::Etc::SourceList=$tmp/sources.list" -o "Dir::Etc::SourceParts=/nonexistent"
          -o "Dir::State::status=/var/lib/dpkg/status" -o "APT::Sandbox::User=root")
apt-get "${apt_opts[@]}" update >"$tmp/apt.log" 2>&1 ||
  { echo "fetch_device_deps: apt-get update failed (Debian's archive unreachable?):" >&2; tail -3 "$tmp/apt.log" >&2; exit 1; }
(cd "$tmp/src" && apt-get "${apt_opts[@]}" source --download-only "${sources[@]}") >>"$tmp/apt.log" 2>&1 ||
  { echo "fetch_device_deps: downloading the sources failed:" >&2; tail -3 "$tmp/apt.log" >&2; exit 1; }
(cd "$tmp/deb" && apt-get "${apt_opts[@]}" download "${binaries[@]}") >>"$tmp/apt.log" 2>&1 ||
  { echo "fetch_device_deps: downloading the packages failed:" >&2; tail -3 "$tmp/apt.log" >&2; exit 1; }

# Assemble in a sibling directory, then replace DIR whole: an interrupted run
# leaves the old folder (or none), never half of one.
stage="$(mktemp -d "$(dirname "$out")/.device_deps.XXXXXX" 2>/dev/null || true)"
if [[ -z $stage ]]; then mkdir -p "$(dirname "$out")"; stage="$(mktemp -d "$(dirname "$out")/.device_deps.XXXXXX")"; fi
trap 'rm -rf "$tmp" "$stage"' EXIT
mkdir -p "$stage/src" "$stage/prefix"
for s in "${sources[@]}"; do
  tarball=("$tmp/src/${s}"_*.orig.tar.*)
  [[ -f ${tarball[0]} ]] || { echo "fetch_device_deps: no source tarball for $s" >&2; exit 1; }
  cp "${tarball[0]}" "$stage/src/"
done
for d in "$tmp/deb"/*.deb; do dpkg -x "$d" "$stage/prefix"; done
rm -rf "$stage/prefix/usr/share/doc"
{
  echo "# Made by tools/fetch_device_deps.sh on $(date -u +%Y-%m-%d) from Debian $suite."
  for s in "$tmp/src"/*.dsc; do basename "$s" .dsc; done
  for d in "$tmp/deb"/*.deb; do basename "$d" .deb; done
} > "$stage/MANIFEST"
rm -rf "$out"
mv "$stage" "$out"
trap 'rm -rf "$tmp"' EXIT
echo "fetch_device_deps: $(du -sh "$out" | cut -f1) in $out:"
sed 1d "$out/MANIFEST" | sed 's/^/  /'
