#!/usr/bin/env bash
# The README and docs tell the truth about what can be checked mechanically:
#  * docs/cpp.md's C++ examples are, verbatim, the code the tests compile and
#    run (the blocks between "README example" markers in those tests);
#  * every profile_graph flag is in docs/cli.md's flag table;
#  * every file the README and the docs link to exists;
#  * README.md stays a front door (at most 16 KB; reference goes to docs/).
set -euo pipefail
fail=0

# Prints the lines strictly between the first line matching $2 and the next
# line matching $3 in file $1.
between() { awk -v b="$2" -v e="$3" '$0 ~ e && on {exit} on {print} $0 ~ b {on=1}' "$1"; }

check_example() {
  local file=$1 begin=$2 end=$3 doc=$4
  local block
  block="$(between "$file" "$begin" "$end")"
  if [[ -z $block ]]; then
    echo "FAIL: no README example markers in $file"; fail=1; return
  fi
  # The doc's code fences hold the block exactly (as a run of whole lines).
  if ! /usr/bin/python3 -c 'import sys; sys.exit(0 if sys.argv[1] + "\n" in open(sys.argv[2]).read() else 1)' "$block" "$doc"; then
    echo "FAIL: $doc does not contain the example of $file verbatim"; fail=1
  fi
}

check_example tests/embedding_example_test.cc '^// --- README example begins ---' '^// --- README example ends ---' docs/cpp.md
check_example tests/interpreter_api_test.cc '^// --- README example begins ---' '^// --- README example ends ---' docs/cpp.md
check_example examples/cmake_consumer/main.cc '^// --- README example begins ---' '^// --- README example ends ---' docs/cpp.md
check_example tests/real/before_after_test.cc '^// --- README example: checking a pass' '^// --- end of README example ---' docs/cpp.md

table=docs/cli.md
flags="$(sed -n 's/^ABSL_FLAG([^,]*, *\([a-z_]*\),.*/\1/p' tools/command_line.cc)"
[[ -n $flags ]] || { echo "FAIL: no flags found in tools/command_line.cc"; fail=1; }
for f in $flags; do
  if ! grep -q -- "^| \`--$f[=\` ]" "$table" && ! grep -q -- "^| \`--[a-z_=A-Z0-9,]*\`, \`--$f[=\`]" "$table" \
     && ! grep -q -- "^| \`--[a-z_]*\` / \`--$f\`" "$table"; then
    echo "FAIL: flag --$f is not in $table's flag table"; fail=1
  fi
done

size=$(wc -c < README.md)
if ((size > 16384)); then echo "FAIL: README.md is $size bytes (at most 16 KB; put reference in docs/)"; fail=1; fi

# Relative links ](path) and ](path#anchor) of the README and every doc.
for doc in README.md docs/*.md bench/README.md tests/fuzz/README.md; do
  dir=$(dirname "$doc")
  while read -r target; do
    target="${target%%#*}"
    [[ -z $target || $target == http* ]] && continue
    if [[ ! -e "$dir/$target" ]]; then echo "FAIL: $doc links to $target, which does not exist"; fail=1; fi
  done < <(grep -o '](\([^) ]*\))' "$doc" | sed 's/^](\(.*\))$/\1/')
done

((fail == 0)) && echo "README, docs examples, flags and links: ok"
exit "$fail"
