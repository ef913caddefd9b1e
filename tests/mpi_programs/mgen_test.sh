#!/usr/bin/env bash
# Builds the self-checking MPI programs with mgen-cc and runs them under `mgen run` at several
# rank counts; each program verifies its own results and prints OK, and its RESULT hash must
# equal the one MPICH printed (expected_results.txt, written by run_mpich.sh). With MPICH's
# mpiexec available, the programs are also built with mpicc and run at 4 ranks here (proof
# they are real MPI and mgen computes the same answers).
#   mgen_test.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1
src=$2/tests/mpi_programs
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
programs=(p2p colls datatypes comms onesided nbc globals errors halo types2 reductions handles intercomm libc_state null_buffers rma_atomics rma_pscw rma_windows topo alltoallw persistent_colls type_contents type_attrs subarray_darray mprobe info errclass sessions comm_groups rma_pairs rma_contention p2p_cancel p2p_large_count)
expected=$src/expected_results.txt
for p in "${programs[@]}"; do
  files=("$src/$p.c")
  [[ $p == globals ]] && files+=("$src/globals_b.c")
  "$build/mgen-cc" -O1 -w -o "$work/$p" "${files[@]}"
done
# Every run must print OK (the program checked itself); where MPICH's hash for the program at
# that rank count is on record (expected_results.txt), mgen's RESULT must equal it.
counts=(1 2 3 4 5 8 13 16 64 256)
for p in "${programs[@]}"; do
  compared=0
  failed_before=$fail
  fail=0
  for n in "${counts[@]}"; do
    # rma_windows shares memory within a node: all ranks on one, as MPICH runs it on one machine.
    extra=()
    [[ $p == rma_windows ]] && extra=(--ppn "$n")
    if ! out=$("$build/mgen" run -n "$n" "${extra[@]}" --ignore-compute -q "$work/$p" 2>&1) || ! grep -q '^OK' <<<"$out"; then
      echo "FAIL: mgen run -n $n $p:"
      sed 's/^/    /' <<<"$out" | head -20
      fail=1
      continue
    fi
    want=$(awk -v p="$p" -v n="$n" '$1 == p && $2 == n { print $3 }' "$expected")
    [[ -n $want ]] || continue
    got=$(awk '/^RESULT /{ print $3 }' <<<"$out")
    if [[ $got != "$want" ]]; then
      echo "FAIL: $p at $n ranks: mgen RESULT $got, MPICH $want"
      fail=1
    fi
    compared=$((compared + 1))
  done
  [[ $fail == 0 ]] && echo "ok: $p at ${counts[*]} ranks; RESULT equals MPICH's at $compared of them"
  [[ $failed_before == 0 ]] || fail=1
done
# Each rank's private copy of a program is an anonymous memory file: no temporary directory is
# needed (TMPDIR points nowhere), and with a soft limit of 64 open files the run raises it for
# the 255 copies while it loads them (where the hard limit allows). Globals stay private.
hard=$(ulimit -Hn)
if [[ $hard == unlimited || $hard -ge 1024 ]]; then soft=64; else soft=$(ulimit -Sn); fi
if ! out=$( (ulimit -Sn "$soft" && TMPDIR=/nonexistent "$build/mgen" run -n 256 --ignore-compute -q "$work/globals") 2>&1) ||
  ! grep -q '^OK' <<<"$out"; then
  echo "FAIL: globals at 256 ranks with TMPDIR=/nonexistent and ulimit -Sn $soft:"
  sed 's/^/    /' <<<"$out" | head -20
  fail=1
else
  echo "ok: globals at 256 ranks loads its copies without a temporary directory (ulimit -Sn $soft)"
fi
# Under Open MPI 4.1.6's selection rules (other algorithms: trees, chains, neighbor exchange)
# the collective programs still give MPICH's answers.
for p in colls reductions; do
  for n in 2 3 5 6 8 13 64; do
    out=$("$build/mgen" run -n "$n" --set collectives.selector=ompi --ignore-compute -q "$work/$p" 2>&1) || true
    want=$(awk -v p="$p" -v n="$n" '$1 == p && $2 == n { print $3 }' "$expected")
    got=$(awk '/^RESULT /{ print $3 }' <<<"$out")
    if ! grep -q '^OK' <<<"$out" || [[ -n $want && $got != "$want" ]]; then
      echo "FAIL: $p at $n ranks with collectives.selector=ompi: RESULT $got, MPICH ${want:-(none)}"
      sed 's/^/    /' <<<"$out" | head -20
      fail=1
    fi
  done
  echo "ok: $p under collectives.selector=ompi"
done
# The same answers as MPICH.
if command -v mpicc >/dev/null && command -v mpiexec >/dev/null; then
  for p in "${programs[@]}"; do
    files=("$src/$p.c")
    [[ $p == globals ]] && files+=("$src/globals_b.c")
    mpicc -O1 -w -o "$work/$p.mpich" "${files[@]}"
    real=$(timeout 120 mpiexec -n 4 "$work/$p.mpich" 2>/dev/null | grep '^RESULT' || true)
    extra=()
    [[ $p == rma_windows ]] && extra=(--ppn 4)
    sim=$("$build/mgen" run -n 4 "${extra[@]}" --ignore-compute -q "$work/$p" | grep '^RESULT')
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
  MPI_Comm parent;
  MPI_Comm_get_parent(&parent);
  MPI_Finalize();
  return 0;
}
C
"$build/mgen-cc" -o "$work/unsup" "$work/unsup.c"
set +e
out=$("$build/mgen" run -n 2 "$work/unsup" 2>&1)
rc=$?
set -e
if [[ $rc != 3 ]] || ! grep -q "MPI_Comm_get_parent, which mgen does not support" <<<"$out"; then
  echo "FAIL: unsupported call: exit $rc, output: $out"
  fail=1
else
  echo "ok: unsupported calls are named"
fi
check=$("$build/mgen-cc" --check "$work/unsup" || true)
if ! grep -q "MPI_Comm_get_parent" <<<"$check"; then
  echo "FAIL: mgen-cc --check did not list MPI_Comm_get_parent: $check"
  fail=1
else
  echo "ok: mgen-cc --check lists it"
fi
exit $fail
