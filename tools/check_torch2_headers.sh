#!/usr/bin/env bash
# Compiles graphprof's C++ sources against LibTorch 2.x headers, without
# linking: the check of common/torch_compat.h that this machine allows
# (LibTorch 2.x does not install on Debian 12, but Debian 13's libtorch-dev
# 2.6 headers unpack anywhere). Every translation unit that includes LibTorch
# is compiled with -fsyntax-only against them, with g++ and the system's
# Abseil, GoogleTest and nlohmann-json; a failure prints the first errors.
#
#   tools/check_torch2_headers.sh [--dir=DIR] [--suite=trixie] [--jobs=N]
#
# DIR (default a new temporary directory, removed afterwards) receives the
# unpacked packages (libtorch-dev and libfmt-dev of the suite, through a
# private apt state: nothing is installed). Not checked this way: linking
# (symbols, the C++ ABI), the CUDA parts (Debian's LibTorch has no CUDA),
# and run-time behaviour: tools/device_check.sh on a machine with PyTorch 2.x
# checks those.
#
# Exit: 0 every file compiled, 1 some did not, 2 the headers could not be
# fetched.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 2

dir=""
suite=trixie
jobs="$(nproc)"
for arg in "$@"; do
  case "$arg" in
    --dir=*) dir="${arg#--dir=}" ;;
    --suite=*) suite="${arg#--suite=}" ;;
    --jobs=*) jobs="${arg#--jobs=}" ;;
    *) echo "check_torch2_headers: unknown argument '$arg'" >&2; exit 2 ;;
  esac
done
if [[ -z $dir ]]; then
  dir="$(mktemp -d "${TMPDIR:-/tmp}/graphprof-torch2.XXXXXX")"
  trap 'rm -rf "$dir"' EXIT
fi
mkdir -p "$dir/apt/lists/partial" "$dir/apt/cache/archives/partial" "$dir/deb" "$dir/root" || exit 2
dir="$(cd "$dir" && pwd)"

if [[ ! -f $dir/root/usr/include/torch/csrc/api/include/torch/version.h ]]; then
  echo "deb http://deb.debian.org/debian $suite main" > "$dir/apt/sources.list"
  : > "$dir/apt/status"
  apt_opts=(-q -o "Dir::State::Lists=$dir/apt/lists" -o "Dir::Cache=$dir/apt/cache"
            -o "Dir::Etc::SourceList=$dir/apt/sources.list" -o "Dir::Etc::SourceParts=/nonexistent"
            -o "Dir::State::status=$dir/apt/status" -o "APT::Sandbox::User=root")
  if ! apt-get "${apt_opts[@]}" update >"$dir/apt.log" 2>&1 ||
     ! (cd "$dir/deb" && apt-get "${apt_opts[@]}" download libtorch-dev libfmt-dev) >>"$dir/apt.log" 2>&1; then
    echo "check_torch2_headers: could not fetch Debian $suite's libtorch-dev:" >&2
    tail -3 "$dir/apt.log" >&2
    exit 2
  fi
  for d in "$dir"/deb/*.deb; do dpkg -x "$d" "$dir/root" || exit 2; done
fi
inc="$dir/root/usr/include"
version="$(awk '/define TORCH_VERSION_(MAJOR|MINOR|PATCH)/ {printf "%s%s", sep, $3; sep="."}' \
  "$inc/torch/csrc/api/include/torch/version.h")"
echo "check_torch2_headers: LibTorch $version headers from Debian $suite ($(ls "$dir"/deb))"

# Every non-test, test and tool source that includes LibTorch (directly or
# through a graphprof header); the Python extension needs torch's Python
# headers of the same version and is left out.
mapfile -t files < <(git ls-files '*.cc' | grep -vE '^(python/|third_party/|tests/fuzz/)')
flags=(-std=c++17 -fsyntax-only -D_GLIBCXX_USE_CXX11_ABI=1 -I. -I"$inc" -I"$inc/torch/csrc/api/include"
       -Wno-deprecated-declarations)
# The CUDA runtime's headers, for the GPU check's operator (the toolkit is
# here; LibTorch's CUDA parts are not).
[[ -d /usr/local/cuda/include ]] && flags+=(-isystem /usr/local/cuda/include)
results="$dir/results"
mkdir -p "$results"
printf '%s\n' "${files[@]}" | xargs -P "$jobs" -I{} sh -c '
  f="$1"; shift
  out="$0/$(echo "$f" | tr / _).log"
  if g++ "$@" "$f" >"$out" 2>&1; then echo "ok $f"; else echo "FAIL $f"; fi
' "$results" {} "${flags[@]}" > "$dir/summary.txt"
failed="$(grep -c '^FAIL' "$dir/summary.txt")"
total="$(wc -l < "$dir/summary.txt")"
if ((total != ${#files[@]})); then
  echo "check_torch2_headers: $total results for ${#files[@]} files: the check did not finish"
  exit 1
fi
if ((failed > 0)); then
  grep '^FAIL' "$dir/summary.txt" | while read -r _ f; do
    echo "--- $f"
    grep -m5 -E 'error' "$results/$(echo "$f" | tr / _).log"
  done
  echo "check_torch2_headers: $failed of $total files did not compile against LibTorch $version"
  exit 1
fi
echo "check_torch2_headers: all $total files compiled against LibTorch $version (syntax and types; not linked)"
