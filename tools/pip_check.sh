#!/usr/bin/env bash
# The pip check: installs graphprof with pip into a fresh virtual environment
# (--system-site-packages: it sees the Python's own torch) and tests the
# installed package, never this checkout's python/ nor a build tree. CI runs
# it on Debian 12 (torch 1.13) and in the Debian 13 root (torch 2.6).
#
#   tools/pip_check.sh [PYTHON]        (default /usr/bin/python3)
#
# Steps, each with one summary line:
#   1. isolation: `pip install .` with pip's default build isolation fails,
#      and its output ends the build's part with the one line that says to
#      use --no-build-isolation (nothing is built, nothing installed).
#   2. install: `pip install --no-build-isolation .` (the CMake build in
#      build-pip/<tag>-torch<version>-<hash>, kept: a second install recompiles what
#      changed; compiles through ccache where CMAKE_CXX_COMPILER_LAUNCHER says),
#      then `pip wheel --no-build-isolation .`: one wheel holding the package.
#   3. use: from /, the issue's commands: graphprof.profile of a scripted
#      torchvision resnet18 verified, `graphprof --zoo=mlp --runs=2` prints a
#      report, `python -m graphprof --help`; with torch 2.x a torch.export
#      program profiled and verified; two ranks of `python -m graphprof`
#      under torchrun, one merged report from rank 0.
#   4. suites: python/tests/{graphprof_test,graphprof_compare_test,
#      installed_package_test}.py against the installed package
#      (GRAPHPROF_TEST_INSTALLED=1).
#   5. editable: `pip install --no-build-isolation -e .` in a second
#      environment, same build directory: imports from the links, runs the CLI.
#
# Environment:
#   GRAPHPROF_CCACHE   0: do not compile through ccache (used when installed,
#                      cache in $CCACHE_DIR or ~/.cache/graphprof/ccache, paths
#                      relative to the checkout, as tools/device_check.sh)
#
# Exit 0 when every step passed; 1 otherwise (the failing step's output shown).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
repo="$PWD"
python="${1:-/usr/bin/python3}"
work="$(mktemp -d "${TMPDIR:-/tmp}/graphprof-pip-check.XXXXXX")"
trap 'rm -rf "$work"' EXIT
# No user site-packages: an old copy of graphprof there would come before
# the venv's own (and no network).
export PIP_NO_INDEX=1 PIP_DISABLE_PIP_VERSION_CHECK=1 OMP_NUM_THREADS=1 PYTHONNOUSERSITE=1
if [[ ${GRAPHPROF_CCACHE:-1} != 0 ]] && command -v ccache >/dev/null 2>&1; then
  # CMake takes a compiler launcher from these variables at the first configure.
  export CCACHE_DIR="${CCACHE_DIR:-$HOME/.cache/graphprof/ccache}" CCACHE_BASEDIR="$repo" CCACHE_NOHASHDIR=true
  export CCACHE_SLOPPINESS="${CCACHE_SLOPPINESS:-pch_defines,time_macros,include_file_mtime,include_file_ctime}"
  export CMAKE_CXX_COMPILER_LAUNCHER=ccache CMAKE_C_COMPILER_LAUNCHER=ccache
fi

fail() { echo "pip_check: FAILED: $*"; exit 1; }
step() { printf 'pip_check: %-10s %s\n' "$1" "$2"; }

"$python" -m venv --system-site-packages "$work/v" || fail "cannot make a virtual environment with $python -m venv"
v="$work/v/bin"

# 1. Build isolation hides the installed torch: one line says so.
if "$v/pip" install "$repo" >"$work/isolated.log" 2>&1; then
  cat "$work/isolated.log"; fail "pip install without --no-build-isolation succeeded"
fi
# pip shows the build's output indented in its error block.
grep -q '^ *graphprof: .*pip install --no-build-isolation \.' "$work/isolated.log" ||
  { cat "$work/isolated.log"; fail "pip install without --no-build-isolation: no line saying to use it"; }
"$v/python" -c "import importlib.util, sys; sys.exit(importlib.util.find_spec('graphprof') is not None)" ||
  fail "a failed pip install left graphprof installed"
step isolation "pip install . refused: $(grep -m1 '^ *graphprof: ' "$work/isolated.log" | sed 's/^ *//' | cut -c1-100)..."

# 2. The install.
start=$SECONDS
"$v/pip" install --no-build-isolation "$repo" >"$work/install.log" 2>&1 ||
  { tail -60 "$work/install.log"; fail "pip install --no-build-isolation ."; }
step install "pip install --no-build-isolation . in $((SECONDS - start)) s: $("$v/pip" list 2>/dev/null | grep '^graphprof ')"
# pip wheel: the same build (its directory is kept: nothing to compile), one wheel with the programs in it.
"$v/pip" wheel --no-build-isolation --no-deps -w "$work/wheel" "$repo" >"$work/wheel.log" 2>&1 ||
  { tail -60 "$work/wheel.log"; fail "pip wheel --no-build-isolation ."; }
wheels=("$work"/wheel/graphprof-*.whl)
[[ ${#wheels[@]} -eq 1 && -f ${wheels[0]} ]] || fail "pip wheel wrote ${wheels[*]}"
"$v/python" - "${wheels[0]}" <<'PY' || fail "the wheel ${wheels[0]##*/} lacks what the package holds"
import sys, zipfile
names = set(zipfile.ZipFile(sys.argv[1]).namelist())
need = {"graphprof/__init__.py", "graphprof/_graphprof.so", "graphprof/_build_info.py", "graphprof/bin/profile_graph",
        "graphprof/bin/profile_graph_full"}
sys.exit(0 if need <= names and any(n.endswith(".dist-info/RECORD") for n in names) else 1)
PY
step wheel "pip wheel --no-build-isolation .: ${wheels[0]##*/}"

# 3. Used from another directory, as the issue's commands.
cd /
verified="$("$v/python" -c "import graphprof, torch, torchvision; print(graphprof.profile(torch.jit.script(torchvision.models.resnet18().eval()), torch.randn(1,3,224,224), runs=2).verified)")" ||
  fail "graphprof.profile of a scripted resnet18"
[[ $verified == True ]] || fail "graphprof.profile of a scripted resnet18: verified=$verified"
"$v/graphprof" --zoo=mlp --runs=2 >"$work/mlp.txt" 2>&1 || { cat "$work/mlp.txt"; fail "graphprof --zoo=mlp --runs=2"; }
grep -q 'aten::' "$work/mlp.txt" || { cat "$work/mlp.txt"; fail "graphprof --zoo=mlp --runs=2 printed no report"; }
"$v/python" -m graphprof --help >"$work/help.txt" 2>&1 || { cat "$work/help.txt"; fail "python -m graphprof --help"; }
if "$v/python" -c "import sys, torch; sys.exit(not hasattr(torch, 'export'))"; then
  verified="$("$v/python" -c "
import graphprof, torch
m = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3), torch.nn.BatchNorm2d(8), torch.nn.ReLU()).eval()
x = torch.randn(1, 3, 16, 16)
print(graphprof.profile(torch.export.export(m, (x,)), x, runs=2).verified)")" || fail "graphprof.profile of a torch.export program"
  [[ $verified == True ]] || fail "graphprof.profile of a torch.export program: verified=$verified"
  exported=", a torch.export program verified"
fi
step use "from /: resnet18 verified, graphprof --zoo=mlp printed a report, python -m graphprof --help${exported:-}"

# 3b. Under torchrun, two ranks of `python -m graphprof` (docs/distributed.md):
# rank 0 writes one report with both ranks' runs. The launchers here need
# what docs/distributed.md says: 1.13's --redirects/--tee/--log_dir under
# Python 3.11 (underscore options), Debian 2.6's the libuv workaround.
port="$("$v/python" -c "import socket; s = socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])")"
mkdir -p "$work/torchrun"
if "$v/python" -c "import sys, torch; sys.exit(int(torch.__version__.split('.')[0]) < 2)"; then
  cat >"$work/torchrun/sitecustomize.py" <<'PY'
import torch.distributed as _dist
class _TCPStore(_dist.TCPStore):
    def __init__(self, *args, **kwargs):
        kwargs.setdefault('use_libuv', False)
        super().__init__(*args, **kwargs)
_dist.TCPStore = _TCPStore
PY
  launcher=(env PYTHONPATH="$work/torchrun" USE_LIBUV=0 "$v/python" -m torch.distributed.run --nproc-per-node=2
            --master-port="$port")
else
  launcher=("$v/python" -m torch.distributed.run --nproc_per_node=2 --master_port="$port" --redirects=2 --tee=1
            --log_dir="$work/torchrun/logs")
fi
timeout 300 "${launcher[@]}" -m graphprof --zoo=mlp --warmup=1 --runs=3 --format=json \
  --output="$work/torchrun/ranks.json" >"$work/torchrun.log" 2>&1 ||
  { tail -40 "$work/torchrun.log"; fail "torchrun -m graphprof with 2 ranks"; }
"$v/python" - "$work/torchrun/ranks.json" <<'PY' || { tail -40 "$work/torchrun.log"; fail "torchrun -m graphprof: not one report of 2 ranks"; }
import json, sys
r = json.load(open(sys.argv[1]))
sources = r["run_sources"]
sys.exit(not ([s["rank"] for s in sources] == [0, 1] and all(s["world_size"] == 2 for s in sources) and r["runs"] == 6))
PY
step ranks "torchrun --nproc-per-node=2 -m graphprof --zoo=mlp: one report, run sources rank 0 and rank 1"
cd "$repo"

# 4. The suites against the installed package.
for suite in graphprof_test graphprof_compare_test installed_package_test; do
  start=$SECONDS
  (cd / && GRAPHPROF_TEST_INSTALLED=1 "$v/python" "$repo/python/tests/$suite.py") >"$work/$suite.log" 2>&1 ||
    { tail -60 "$work/$suite.log"; fail "$suite against the installed package"; }
  # Every test of the installed package's own suite runs (a skip there means it did not see the package).
  [[ $suite != installed_package_test ]] || ! grep -q 'skipped=' "$work/$suite.log" ||
    { cat "$work/$suite.log"; fail "$suite skipped tests"; }
  step suites "$suite: $(grep -E '^(OK|Ran)' "$work/$suite.log" | tr '\n' ' ')($((SECONDS - start)) s)"
done

# 5. Editable, in a second environment (the same build directory: nothing to compile).
"$python" -m venv --system-site-packages "$work/e" || fail "cannot make a second virtual environment"
"$work/e/bin/pip" install --no-build-isolation -e "$repo" >"$work/editable.log" 2>&1 ||
  { tail -60 "$work/editable.log"; fail "pip install --no-build-isolation -e ."; }
where="$(cd / && "$work/e/bin/python" -c "import graphprof; print(graphprof.__file__)")" || fail "import graphprof (editable)"
[[ $where == "$repo"/build-pip/*/editable/graphprof/__init__.py ]] || fail "editable: graphprof imported from $where"
"$work/e/bin/graphprof" --help >/dev/null 2>&1 || fail "graphprof --help (editable)"
step editable "pip install -e: graphprof from ${where#"$repo"/}, graphprof --help runs"
echo "pip_check: passed ($python, torch $("$v/python" -c 'import torch; print(torch.__version__)'))"
