#!/usr/bin/env bash
# Collectives whose members pass mismatched arguments stop the run with an error naming the call,
# the error class and both ranks (exit status 3); a legal call whose members use different
# datatypes with the same type signature runs. Where MPICH is installed, the same program shows
# that MPICH 4.0.2 aborts in the cases it detects and runs the legal one.
# Usage: coll_mismatch_test.sh BUILD_DIR SOURCE_DIR
set -uo pipefail
build=$1
src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# shellcheck source=expect.sh
source "$(dirname "$0")/expect.sh"
mgen=$build/mgen
"$build/mgen-cc" -O1 -o "$work/cm" "$src/tests/tools/programs/coll_mismatch.c" || exit 1
run() { "$mgen" run -n 3 -q "$work/cm" "$@"; }

mismatch="the members' counts or datatypes do not match"
expect 3 "rank 1: MPI_Bcast: MPI_ERR_TRUNCATE: .*rank 1 passes 16 bytes, rank 0 passed 32 bytes: $mismatch" -- run bcast_short
expect 3 "rank 2: MPI_Bcast: MPI_ERR_TRUNCATE: .*rank 2 passes 64 bytes, rank 0 passed 32 bytes" -- run bcast_long
expect 3 "rank 2: MPI_Allreduce: MPI_ERR_TRUNCATE: .*rank 2 passes 24 bytes, rank 0 passed 48 bytes" -- run allreduce_count
expect 3 "rank 1: MPI_Bcast: MPI_ERR_ROOT: .*rank 1 passes root 1, rank 0 passed root 0" -- run bcast_root
expect 3 "rank 2: MPI_Reduce: MPI_ERR_OP: .*rank 2 passes another reduction operation than rank 0" -- run reduce_op
expect 3 "rank 2: MPI_Gatherv: MPI_ERR_TRUNCATE: .*rank 0's counts give rank 2 8 bytes, but rank 2 passes 16 bytes" \
  -- run gatherv_counts
# The odd member is named (rank 0, the first to call), not the first to disagree with it.
expect 3 "rank 0: MPI_Bcast: mismatched collectives: rank 0 called MPI_Bcast while ranks 1,2 are in MPI_Allreduce on MPI_COMM_WORLD \(collective number 1 there\): every member must call the same collectives in the same order" \
  -- run order
expect 3 "rank 1: MPI_Alltoallv: a piece of 16 bytes from rank 0 is longer than the 8 bytes .*$mismatch" -- run alltoallv_pair
expect 0 "same_signature: ok" -- run same_signature
# The same under the other backends' timing (the check does not depend on the network).
expect 3 "MPI_ERR_TRUNCATE" -- "$mgen" run -n 3 -q --set network.backend=analytic "$work/cm" allreduce_count

if command -v mpicc >/dev/null && command -v mpiexec >/dev/null; then
  mpicc -O1 -o "$work/cm.mpich" "$src/tests/tools/programs/coll_mismatch.c"
  # MPICH's launcher sometimes kills the other processes before it has forwarded the aborting
  # rank's message (1 run in 30 on this machine, once in CI): the exit status is checked on every
  # try, the message on up to three.
  mpich_run() {
    local out rc try
    for try in 1 2 3; do
      out=$(timeout 60 mpiexec -n 3 "$work/cm.mpich" "$1" 2>&1 </dev/null)
      rc=$?
      [ "$rc" -ne 14 ] && break
      grep -q "Message truncated" <<<"$out" && break
    done
    printf '%s\n' "$out"
    return "$rc"
  }
  for c in bcast_short allreduce_count gatherv_counts alltoallv_pair; do
    expect 14 "Message truncated" -- mpich_run "$c"
  done
  expect 0 "same_signature: ok" -- timeout 60 mpiexec -n 3 "$work/cm.mpich" same_signature
fi
exit $((failures > 0))
