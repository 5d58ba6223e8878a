#!/usr/bin/env bash
# Opens HTML reports made by profile_graph in headless Chromium and checks
# them (html_report_test.mjs: no console errors, no network request, table
# sorting and search, icicle zoom, IR <-> table links, the diff section):
# the zoo resnet18 (zoomed into layer4), control_flow (loops and ifs in the
# timeline), a diff against a saved report, and a merge of two reports
# (their first runs as lanes of the timeline). Screenshots go to the test's
# undeclared outputs (bazel-testlogs/.../test.outputs/).
set -euo pipefail

browser_dir="${GRAPHPROF_BROWSER_DIR:-}"
if [[ -z $browser_dir || ! -d $browser_dir/node_modules/puppeteer-core ]]; then
  echo "FAIL: puppeteer-core is not installed (GRAPHPROF_BROWSER_DIR='$browser_dir'): run ./bazelw, which installs it"
  exit 1
fi
if [[ ! -x /usr/bin/chromium ]]; then
  echo "FAIL: /usr/bin/chromium is missing: run ./bazelw, which installs Debian's chromium"
  exit 1
fi

tool="$PWD/tools/profile_graph"
work="${TEST_TMPDIR:-/tmp}/browser"
shots="${TEST_UNDECLARED_OUTPUTS_DIR:-$work}"
mkdir -p "$work" "$shots"
ln -sfn "$browser_dir/node_modules" "$work/node_modules"
cp tests/browser/html_report_test.mjs "$work/"

# expect REPORT.json HAS_DIFF > EXPECT.json: the node the page must list first
# (largest mean time, as the JSON report has it).
expect() {
  node -e '
    const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
    const report = r.nodes ? r : r.b;
    let top = report.nodes[0];
    for (const n of report.nodes) if (n.mean_us > top.mean_us) top = n;
    // Executed nodes that did floating-point work: one roofline point each.
    const points = report.nodes.filter((n) => (n.flops || 0) > 0 && n.calls.some((c) => c > 0)).length;
    console.log(JSON.stringify({top_node_id: top.id, has_diff: process.argv[2] === "true",
                                roofline_points: report.peak_gflops ? points : null}));
  ' "$1" "$2"
}

failures=0
check_page() {
  local name=$1 zoom=$2
  shift 2
  if ! node "$work/html_report_test.mjs" --page="$work/$name.html" --expect="$work/$name.expect.json" \
      --screenshot="$shots/$name.png" --zoom="$zoom" --max_open_ms=60000 "$@"; then
    echo "FAIL: $name"
    failures=$((failures + 1))
  fi
}

quick=(--warmup=1 --runs=3)
# Given ceilings (--peaks): the page draws the roofline without measuring.
"$tool" --zoo=resnet18 "${quick[@]}" --peaks=50,10 --html="$work/resnet18.html" --format=json --output="$work/resnet18.json"
expect "$work/resnet18.json" false > "$work/resnet18.expect.json"
check_page resnet18 layer4

"$tool" --zoo=control_flow "${quick[@]}" --html="$work/control_flow.html" --format=json \
  --output="$work/control_flow.json"
expect "$work/control_flow.json" false > "$work/control_flow.expect.json"
check_page control_flow ""

"$tool" --zoo=resnet18 "${quick[@]}" --compare="$work/resnet18.json" --html="$work/diff.html" --format=json \
  --output="$work/diff.json" >/dev/null
node -e '
  const fs = require("fs");
  const page = fs.readFileSync(process.argv[1], "utf8");
  const data = JSON.parse(page.match(/<script id="graphprof-data" type="application\/json">([\s\S]*?)<\/script>/)[1]);
  let top = null;
  const cols = data.tables.node.columns.map((c) => c.key);
  for (const row of data.tables.node.rows) {
    const mean = row[cols.indexOf("mean_us")];
    if (top === null || mean > top.mean) top = {id: row[cols.indexOf("id")], mean};
  }
  fs.writeFileSync(process.argv[2], JSON.stringify({top_node_id: top.id, has_diff: true}));
' "$work/diff.html" "$work/diff.expect.json"
check_page diff layer1

# A merged report: each report's first run is a lane of the timeline.
"$tool" --zoo=resnet18 "${quick[@]}" --trace="$work/resnet18b.trace.json" --format=json \
  --output="$work/resnet18b.json" >/dev/null
"$tool" merge "$work/resnet18.json" "$work/resnet18b.json" --html="$work/lanes.html" --format=json \
  --output="$work/lanes.json"
expect "$work/lanes.json" false > "$work/lanes.expect.json"
check_page lanes layer4

if ((failures > 0)); then
  echo "$failures page(s) failed"
  exit 1
fi
echo "all pages passed in headless Chromium"
