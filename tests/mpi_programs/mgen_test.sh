#!/usr/bin/env bash
# Builds the self-checking MPI programs with mgen-cc and runs them under `mgen run` at several
# rank counts; each program verifies its own results and prints OK. With MPICH's mpiexec
# available, the RESULT checksums at 4 ranks must equal those of the real MPI run (proof the
# programs are real MPI and mgen computes the same answers).
#   mgen_test.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1
src=$2/tests/mpi_programs
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
programs=(p2p colls datatypes onesided nbc globals halo)
for p in "${programs[@]}"; do
  files=("$src/$p.c")
  [[ $p == globals ]] && files+=("$src/globals_b.c")
  "$build/mgen-cc" -O1 -w -o "$work/$p" "${files[@]}"
done
for p in "${programs[@]}"; do
  for n in 1 2 3 5 8 13 64; do
    if out=$("$build/mgen" run -n "$n" --ignore-compute -q "$work/$p" 2>&1) && grep -q '^OK' <<<"$out"; then
      [[ $n == 4 ]] || true
    else
      echo "FAIL: mgen run -n $n $p:"
      sed 's/^/    /' <<<"$out" | head -20
      fail=1
    fi
  done
  echo "ok: $p at 1 2 3 5 8 13 64 ranks"
done
# 256 ranks for two of them (the issue's upper scale).
for p in colls halo; do
  if ! "$build/mgen" run -n 256 --ignore-compute -q "$work/$p" | grep -q '^OK'; then
    echo "FAIL: $p at 256 ranks"
    fail=1
  fi
done
echo "ok: colls, halo at 256 ranks"
# The same answers as MPICH.
if command -v mpicc >/dev/null && command -v mpiexec >/dev/null; then
  for p in "${programs[@]}"; do
    files=("$src/$p.c")
    [[ $p == globals ]] && files+=("$src/globals_b.c")
    mpicc -O1 -w -o "$work/$p.mpich" "${files[@]}"
    real=$(timeout 120 mpiexec -n 4 "$work/$p.mpich" 2>/dev/null | grep '^RESULT' || true)
    sim=$("$build/mgen" run -n 4 --ignore-compute -q "$work/$p" | grep '^RESULT')
    if [[ -z $real ]]; then
      echo "skip: $p did not run under mpiexec here"
    elif [[ $real != "$sim" ]]; then
      echo "FAIL: $p: MPICH says '$real', mgen says '$sim'"
      fail=1
    else
      echo "ok: $p gives the same answer as MPICH ($sim)"
    fi
  done
fi
# A program calling an unsupported function stops with a message naming it.
cat >"$work/unsup.c" <<'C'
#include <mpi.h>
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm inter;
  MPI_Intercomm_create(MPI_COMM_SELF, 0, MPI_COMM_WORLD, 0, 1, &inter);
  MPI_Finalize();
  return 0;
}
C
"$build/mgen-cc" -o "$work/unsup" "$work/unsup.c"
set +e
out=$("$build/mgen" run -n 2 "$work/unsup" 2>&1)
rc=$?
set -e
if [[ $rc != 3 ]] || ! grep -q "MPI_Intercomm_create, which mgen does not support" <<<"$out"; then
  echo "FAIL: unsupported call: exit $rc, output: $out"
  fail=1
else
  echo "ok: unsupported calls are named"
fi
check=$("$build/mgen-cc" --check "$work/unsup" || true)
if ! grep -q "MPI_Intercomm_create" <<<"$check"; then
  echo "FAIL: mgen-cc --check did not list MPI_Intercomm_create: $check"
  fail=1
else
  echo "ok: mgen-cc --check lists it"
fi
exit $fail
