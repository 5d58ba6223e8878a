#!/usr/bin/env bash
# torch2_root.sh: runs a command inside a Debian 13 ("trixie") root that has
# LibTorch 2.6, PyTorch 2.6 / torchvision 0.21 and everything graphprof's
# CMake build, its tests and its Python package need. Debian 12 ships
# LibTorch 1.13 only; LibTorch 2.6 needs glibc 2.38 and libstdc++ 14, so it
# runs here inside such a root (docs/cmake.md, "LibTorch 2.6").
#
#   tools/torch2_root.sh [--root=DIR] [--bind=DIR]... -- COMMAND [ARGS...]
#   tools/torch2_root.sh --help
#
# COMMAND runs in the caller's working directory, as the caller (root), with
# the caller's environment, and the script exits with its status. Visible
# inside at the same paths: this repository, the working directory, and each
# --bind directory (paths under /tmp too; a --bind that is a symlink, such as
# /usr/local/cuda, under its own name too); the rest is the root's own.
#
# The root is made once: `debootstrap --variant=minbase trixie` from this
# machine's own Debian mirror, then the packages below. It is cached in
# DIR (default ~/.cache/graphprof/debian13-<key>, <key> a hash of the package
# list: a changed list makes a new root); made in a temporary directory
# beside it and renamed when complete, under a lock, so that two runs never
# build it at once and an interrupted build leaves nothing half-made.
#
# Each run has its own mount namespace (unshare -m, private propagation):
# /proc, /sys, /dev and the bound directories are mounted there only, so
# concurrent runs never see or undo each other's mounts, and every mount
# goes when the run ends, however it ends (normal exit, error, SIGINT,
# SIGTERM, SIGKILL). The script never unmounts or deletes anything it did
# not make.
#
# Exit: COMMAND's status; 2 (one line on stderr) when the root cannot be
# made or entered: not root, no debootstrap, no unshare/chroot, no network
# (the mirror unreachable), or a bad argument.
set -uo pipefail

# What the root holds. Changing this list makes a new root (the key).
packages=(
  libtorch-dev python3-torch python3-torchvision   # LibTorch / PyTorch 2.6, torchvision 0.21
  g++ cmake ninja-build ccache git make            # the CMake build (g++ 14, CMake 3.31)
  lld                                              #   linked with lld (tools/device_check.sh)
  libabsl-dev libgtest-dev libgmock-dev            # Abseil 20240722, GoogleTest 1.16
  nlohmann-json3-dev libsimdjson-dev libjemalloc-dev
  pybind11-dev python3-dev python3-pandas          # the Python package and its tests
  python3-venv                                     #   pip install into a venv (tools/pip_check.sh): ensurepip
  python3-setuptools                               # AOTInductor: torch.utils.cpp_extension imports setuptools
  libgloo-dev                                      # gloo's headers: ranks' process group for collectives (docs/distributed.md)
  file binutils                                    # tests that look at binaries (readelf)
)
suite=trixie

me="torch2_root.sh"
die() { echo "$me: $*" >&2; exit 2; }

usage() {
  sed -n '2,/^set -uo/p' "${BASH_SOURCE[0]}" | sed -e '$d' -e 's/^# \{0,1\}//'
}

root=""
binds=()
while (($#)); do
  case "$1" in
    --help|-h) usage; exit 0 ;;
    --root=*) root="${1#--root=}" ;;
    --bind=*) binds+=("${1#--bind=}") ;;
    --) shift; break ;;
    *) die "unexpected argument '$1' (usage: $me [--root=DIR] [--bind=DIR]... -- COMMAND [ARGS...])" ;;
  esac
  shift
done
(($#)) || die "no command (usage: $me [--root=DIR] [--bind=DIR]... -- COMMAND [ARGS...])"
for b in "${binds[@]}"; do
  [[ -d $b ]] || die "--bind=$b: not a directory"
  [[ "$(cd "$b" && pwd -P)" != / ]] || die "--bind=$b: cannot show / inside the root"
done

[[ $(id -u) -eq 0 ]] || die "needs root (debootstrap, chroot and mount namespaces): run it as root"
for tool in unshare chroot mount flock; do
  command -v "$tool" >/dev/null 2>&1 || die "no $tool on this machine (util-linux / coreutils)"
done

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"
cache="${XDG_CACHE_HOME:-$HOME/.cache}/graphprof"
key="$(printf '%s\n' "$suite" "${packages[@]}" | sha256sum | cut -c1-12)"
[[ -n $root ]] || root="$cache/debian13-$key"
case "$root" in /*) ;; *) root="$PWD/$root" ;; esac
root="${root%/}"
ready="$root/.graphprof-root-ready"

# The machine's own Debian mirror (deb822 sources, else sources.list).
mirror() {
  local m=""
  if [[ -f /etc/apt/sources.list.d/debian.sources ]]; then
    m="$(awk '/^URIs:/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources)"
  fi
  if [[ -z $m && -f /etc/apt/sources.list ]]; then
    m="$(awk '$1 == "deb" {print $2; exit}' /etc/apt/sources.list)"
  fi
  echo "${m:-http://deb.debian.org/debian}"
}

# build_root: makes $root (under the lock held by the caller).
build_root() {
  command -v debootstrap >/dev/null 2>&1 || die "no debootstrap (apt-get install debootstrap): cannot make the Debian 13 root"
  local parent tmp log
  parent="$(dirname "$root")"
  mkdir -p "$parent" || die "cannot create $parent"
  tmp="$(mktemp -d "$parent/.$(basename "$root").partial.XXXXXX")" || die "cannot create a directory in $parent"
  log="$tmp.log"
  # Whatever happens from here, the partial root is ours to remove.
  trap 'rm -rf --one-file-system "$tmp" "$log"' EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
  echo "$me: making the Debian 13 root in $root (once; about 4 minutes; log $log)" >&2
  if ! debootstrap --variant=minbase "$suite" "$tmp" "$(mirror)" >"$log" 2>&1; then
    die "debootstrap $suite failed (no network, or the mirror $(mirror) has no $suite?): $(tail -1 "$log")"
  fi
  cp /etc/resolv.conf "$tmp/etc/resolv.conf" 2>/dev/null || true
  # apt inside, in a mount namespace of its own (nothing stays mounted).
  if ! unshare -m --propagation private -- /bin/bash -c '
      set -e
      mount -t proc proc "$1/proc"
      mount -t sysfs sys "$1/sys"
      mount --rbind /dev "$1/dev"
      shift
      chroot "$0" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive HOME=/root \
        /bin/bash -c "apt-get update -qq && apt-get install -y -qq --no-install-recommends \"\$@\" && apt-get clean" \
        -- "$@"' "$tmp" "$tmp" "${packages[@]}" >>"$log" 2>&1; then
    die "installing LibTorch 2.6 and the build's packages into the root failed: $(tail -1 "$log")"
  fi
  printf '%s\n' "$suite" "${packages[@]}" >"$tmp/.graphprof-root-ready"
  mv -T "$tmp" "$root" || die "cannot move the finished root to $root"
  rm -f "$log"
  trap - EXIT INT TERM
}

if [[ ! -f $ready ]]; then
  mkdir -p "$(dirname "$root")" || die "cannot create $(dirname "$root")"
  exec 9>"$root.lock" || die "cannot create the lock $root.lock"
  flock 9
  if [[ ! -f $ready ]]; then
    [[ -e $root ]] && die "$root exists but is not a finished root (no $(basename "$ready")): remove it or give another --root"
    (build_root) || exit 2
  fi
  exec 9>&-
fi

# The directories to show inside: the repository, the working directory, the binds.
cwd="$(pwd -P)"
shown=("$repo" "$cwd")
links=()  # "link target": a --bind given as a symlink is shown under both names
for b in "${binds[@]}"; do
  [[ -d $b ]] || die "--bind=$b: not a directory"
  target="$(cd "$b" && pwd -P)"
  shown+=("$target")
  if [[ -L ${b%/} ]]; then
    link="$(cd "$(dirname "$b")" && pwd -P)/$(basename "$b")"
    links+=("$link" "$target")
  fi
done
# Each once, and none inside another (that one shows it already).
unique=()
for d in "${shown[@]}"; do
  inside=0
  for e in "${shown[@]}"; do
    [[ $d != "$e" && $d == "$e"/* ]] && inside=1
  done
  for e in "${unique[@]}"; do [[ $d == "$e" ]] && inside=1; done
  ((inside)) || unique+=("$d")
done

# The run: a private mount namespace; its mounts end with it.
exec unshare -m --propagation private -- /bin/bash -c '
  set -e
  root=$1; cwd=$2; n=$3; shift 3
  mount -t proc proc "$root/proc"
  mount -t sysfs sys "$root/sys"
  mount --rbind /dev "$root/dev"
  mount -t tmpfs tmpfs "$root/tmp"
  cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
  for ((i = 0; i < n; i++)); do
    d=$1; shift
    [[ $d == / ]] && { echo "torch2_root.sh: cannot show / inside the root" >&2; exit 2; }
    mkdir -p "$root$d"
    mount --rbind "$d" "$root$d"
  done
  m=$1; shift
  for ((i = 0; i < m; i += 2)); do
    link=$1; target=$2; shift 2
    if [[ ! -e $root$link ]]; then mkdir -p "$(dirname "$root$link")"; ln -s "$target" "$root$link"; fi
  done
  set +e
  exec chroot "$root" /bin/bash -c "cd \"\$0\" && exec \"\$@\"" "$cwd" "$@"
' torch2_root "$root" "$cwd" "${#unique[@]}" "${unique[@]}" "${#links[@]}" "${links[@]}" "$@"
