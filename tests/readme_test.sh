#!/usr/bin/env bash
# README.md tells the truth about what it can check mechanically:
#  * its C++ examples are, verbatim, the code the tests compile and run
#    (the blocks between "README example" markers in those tests);
#  * every profile_graph flag is in its flag table.
set -euo pipefail
readme=README.md
fail=0

# Prints the lines strictly between the first line matching $2 and the next
# line matching $3 in file $1.
between() { awk -v b="$2" -v e="$3" '$0 ~ e && on {exit} on {print} $0 ~ b {on=1}' "$1"; }

check_example() {
  local file=$1 begin=$2 end=$3
  local block
  block="$(between "$file" "$begin" "$end")"
  if [[ -z $block ]]; then
    echo "FAIL: no README example markers in $file"; fail=1; return
  fi
  # The README's code fences hold the block exactly (as a run of whole lines).
  if ! /usr/bin/python3 -c 'import sys; sys.exit(0 if sys.argv[1] + "\n" in open(sys.argv[2]).read() else 1)' "$block" "$readme"; then
    echo "FAIL: README.md does not contain the example of $file verbatim"; fail=1
  fi
}

check_example tests/embedding_example_test.cc '^// --- README example begins ---' '^// --- README example ends ---'
check_example tests/interpreter_api_test.cc '^// --- README example begins ---' '^// --- README example ends ---'
check_example tests/real/before_after_test.cc '^// --- README example: checking a pass' '^// --- end of README example ---'

flags="$(sed -n 's/^ABSL_FLAG([^,]*, *\([a-z_]*\),.*/\1/p' tools/profile_graph.cc)"
[[ -n $flags ]] || { echo "FAIL: no flags found in tools/profile_graph.cc"; fail=1; }
for f in $flags; do
  if ! grep -q -- "^| \`--$f[=\` ]" "$readme" && ! grep -q -- "^| \`--[a-z_=A-Z0-9,]*\`, \`--$f[=\`]" "$readme" \
     && ! grep -q -- "^| \`--[a-z_]*\` / \`--$f\`" "$readme"; then
    echo "FAIL: flag --$f is not in README.md's flag table"; fail=1
  fi
done

((fail == 0)) && echo "README examples and flags: ok"
exit "$fail"
