#!/usr/bin/env bash
# Records a program doing the reductions NPB FT and others do (complex and long double sums,
# MAXLOC on MPI_2DOUBLE_PRECISION and other pair types) under real MPICH and replays it: the
# replay must finish at 4 and 8 ranks (it used to stop: MPI_SUM refused on a 16-byte type).
#   record_reductions_test.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1
src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mpicc -std=c11 -O1 -Wall -Werror -o "$work/reductions" "$src/tests/record/reductions.c" -lm
fail=0
for n in 4 8; do
  if ! out=$(timeout 120 "$build/mgen" record -n "$n" --out "$work/trace.$n" -- "$work/reductions" 2>&1); then
    echo "FAIL: mgen record -n $n: $out"
    fail=1
    continue
  fi
  if ! out=$("$build/mgen" replay "$work/trace.$n" -q 2>&1); then
    echo "FAIL: replay at $n ranks:"
    sed 's/^/    /' <<<"$out" | head -20
    fail=1
    continue
  fi
  echo "ok: the reductions recorded at $n ranks replay"
done
exit $fail
