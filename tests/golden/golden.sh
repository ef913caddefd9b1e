#!/usr/bin/env bash
# Golden outputs: the JSON reports of the cases in tests/golden/cases.txt, pinned so that a
# refactoring can prove it moved nothing. Every field of every report must be equal, except the
# wall-clock ones (lines whose key names wall time or the host's speed are dropped on both sides).
#
#   golden.sh check BUILD_DIR SOURCE_DIR [NAME-REGEX]   compare with tests/golden/expected
#   golden.sh regen BUILD_DIR SOURCE_DIR [NAME-REGEX]   rewrite tests/golden/expected
#
# A commit that changes an expected file must say why the prediction changed.
set -uo pipefail
mode=$1
build=$(cd "$2" && pwd)
src=$(cd "$3" && pwd)
only=${4:-.}
mgen=$build/mgen
expected=$src/tests/golden/expected
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The recompiled MPI examples, built with mgen-cc as a user would.
mpi=$work/mpi
mkdir -p "$mpi"
for p in halo cg transpose; do
  if ! "$build/mgen-cc" -O1 -o "$mpi/$p" "$src/examples/mpi/$p.c" -lm >"$work/cc.log" 2>&1; then
    echo "FAIL: mgen-cc examples/mpi/$p.c:"
    cat "$work/cc.log"
    exit 1
  fi
done

# Drops the lines that hold wall-clock measurements (pretty-printed JSON: one key per line) and
# writes the checkout's, build's and scratch folders' paths as {src}, {build} and {work}.
normalise() {
  grep -Ev '"(wall[a-z_]*|[a-z_]*_wall[a-z_]*|host_seconds|cpu_seconds|events_per_second|elapsed[a-z_]*)":' "$1" |
    sed -e "s#$work#{work}#g" -e "s#$build#{build}#g" -e "s#$src#{src}#g"
}

[ "$mode" = regen ] && mkdir -p "$expected"
failures=0
cases=0
while read -r name args; do
  [[ -z $name || $name == \#* ]] && continue
  [[ $name =~ $only ]] || continue
  cases=$((cases + 1))
  args=${args//\{ex\}/$build/examples}
  args=${args//\{mpi\}/$mpi}
  args=${args//\{src\}/$src}
  read -r -a argv <<<"$args"
  report=$work/$name.json
  # --report goes right after the subcommand: what follows a program's path is the program's.
  if ! "$mgen" "${argv[0]}" --report "$report" "${argv[@]:1}" >"$work/$name.out" 2>&1; then
    echo "FAIL: $name: mgen $args exited non-zero:"
    head -20 "$work/$name.out" | sed 's/^/    /'
    failures=$((failures + 1))
    continue
  fi
  normalise "$report" >"$work/$name.norm"
  if [ "$mode" = regen ]; then
    cp "$work/$name.norm" "$expected/$name.json"
    echo "wrote: $name"
  elif [ ! -f "$expected/$name.json" ]; then
    echo "FAIL: $name: no expected file (run golden.sh regen)"
    failures=$((failures + 1))
  elif ! diff -u "$expected/$name.json" "$work/$name.norm" >"$work/$name.diff"; then
    echo "FAIL: $name: report differs from tests/golden/expected/$name.json:"
    head -40 "$work/$name.diff" | sed 's/^/    /'
    failures=$((failures + 1))
  else
    echo "ok: $name"
  fi
done <"$src/tests/golden/cases.txt"

if [ "$cases" -eq 0 ]; then
  echo "FAIL: no case matched '$only'"
  exit 1
fi
echo "golden: $((cases - failures)) passed, $failures failed"
[ "$failures" -eq 0 ]
