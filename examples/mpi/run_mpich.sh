#!/usr/bin/env bash
# run_mpich.sh BUILD_DIR — build the six example MPI programs with MPICH's mpicc/mpif90 into
# BUILD_DIR and check them under mpiexec at 1, 4 and 8 ranks: one RESULT line and OK per run,
# a well-formed counts file per rank, the same RESULT on a second run, and the same RESULT and
# counts from the C and Fortran versions of each program. Exits non-zero on any failure.
set -u

if [ $# -ne 1 ]; then
  echo "usage: $0 BUILD_DIR" >&2
  exit 2
fi
src=$(cd "$(dirname "$0")" && pwd)
build=$1
mkdir -p "$build" || exit 1
build=$(cd "$build" && pwd)
programs="halo cg transpose"
failures=0
start=$(date +%s%N)

fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

# Build: C as C11; the Fortran module's .mod goes to BUILD_DIR (-J), not the source folder.
for p in $programs; do
  mpicc -std=c11 -O1 -Wall -Werror -Wno-stringop-overflow -o "$build/$p" "$src/$p.c" -lm || exit 1
done
mpif90 -O1 -Wall -Werror -J "$build" -c -o "$build/mpi_counts.o" "$src/mpi_counts.f90" || exit 1
for p in $programs; do
  mpif90 -O1 -Wall -Werror -I "$build" -J "$build" -o "$build/${p}_f" "$src/$p.f90" "$build/mpi_counts.o" || exit 1
done

# check_counts DIR N: counts.0 .. counts.N-1 exist, nothing else; each has unique
# "MPI_Name calls bytes" lines sorted by name (C locale), calls >= 1, and MPI_Init and
# MPI_Finalize once.
check_counts() {
  local dir=$1 n=$2 r f bad line_re='^MPI_[A-Z][a-z_0-9]* [1-9][0-9]* (0|[1-9][0-9]*)$'
  [ "$(ls "$dir" | wc -l)" -eq "$n" ] || fail "$dir: expected $n counts files, found $(ls "$dir" | wc -l)"
  for ((r = 0; r < n; r++)); do
    f=$dir/counts.$r
    if [ ! -s "$f" ]; then
      fail "$f missing or empty"
      continue
    fi
    bad=$(grep -Ev "$line_re" "$f" | head -1)
    [ -z "$bad" ] || fail "$f: malformed line '$bad'"
    cut -d' ' -f1 "$f" | LC_ALL=C sort -uc || fail "$f: names not sorted or repeated"
    grep -qx 'MPI_Init 1 0' "$f" || fail "$f: no 'MPI_Init 1 0'"
    grep -qx 'MPI_Finalize 1 0' "$f" || fail "$f: no 'MPI_Finalize 1 0'"
  done
}

# run EXE N TAG: one run with a fresh counts folder $build/runs/TAG; sets $result to its RESULT
# line (empty if the run failed).
run() {
  local exe=$1 n=$2 dir=$build/runs/$3 out status
  result=
  rm -rf "$dir" && mkdir -p "$dir"
  out=$(MPI_COUNTS_DIR=$dir timeout 120 mpiexec -n "$n" "$build/$exe" 2>"$dir.stderr")
  status=$?
  if [ $status -ne 0 ]; then
    fail "$exe -n $n: exit status $status: $(head -c 300 "$dir.stderr")"
    return
  fi
  [ "$(grep -c '^RESULT ' <<<"$out")" -eq 1 ] || fail "$exe -n $n: not exactly one RESULT line: $out"
  grep -Eq "^RESULT ${exe%_f} [^ ]+\$" <<<"$out" || fail "$exe -n $n: bad RESULT line: $out"
  [ "$(grep -c '^OK$' <<<"$out")" -eq 1 ] || fail "$exe -n $n: not exactly one OK line: $out"
  [ "$(grep -A1 '^RESULT ' <<<"$out" | tail -1)" = OK ] || fail "$exe -n $n: no OK after RESULT: $out"
  check_counts "$dir" "$n"
  result=$(grep '^RESULT ' <<<"$out" | head -1)
}

for p in $programs; do
  for n in 1 4 8; do
    run "$p" $n "$p.$n"
    c=$result
    run "${p}_f" $n "${p}_f.$n"
    f=$result
    [ $n -eq 4 ] && c4=$c
    echo "$p -n $n: C '$c', Fortran '$f'"
    [ -n "$c" ] && [ "$c" = "$f" ] || fail "$p -n $n: C and Fortran RESULT differ"
    diff -r "$build/runs/$p.$n" "$build/runs/${p}_f.$n" >/dev/null || fail "$p -n $n: C and Fortran counts differ"
  done
  # A second run at 4 ranks must print the same RESULT (the first matched between C and Fortran).
  for exe in "$p" "${p}_f"; do
    run "$exe" 4 "$exe.4.again"
    [ -n "$result" ] && [ "$result" = "$c4" ] || fail "$exe -n 4: second run printed '$result', first '$c4'"
  done
done
ms=$((($(date +%s%N) - start) / 1000000))
printf 'build and runs took %d.%03d s\n' $((ms / 1000)) $((ms % 1000))

if [ "$failures" -ne 0 ]; then
  echo "$failures failure(s)" >&2
  exit 1
fi
echo "all MPICH runs passed"
