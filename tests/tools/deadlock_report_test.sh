#!/usr/bin/env bash
# Deadlocks and mismatched collectives in recompiled MPI programs: the report names, for each
# blocked rank, the MPI call, its peer, tag and communicator (by the name the program gave it,
# MPI_COMM_WORLD, or its size and context), the requests of a wait on several; a member that
# calls another collective than the others (a skipped barrier, MPI_Finalize's synchronisation
# met by the others' barrier) is the one named, whichever rank calls first. Exit status 3, as
# every failed run. Where MPICH is installed, the same program shows that MPICH 4.0.2 hangs
# without a word on the mismatches.
# Usage: deadlock_report_test.sh BUILD_DIR SOURCE_DIR
set -uo pipefail
build=$1
src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# shellcheck source=expect.sh
source "$(dirname "$0")/expect.sh"
mgen=$build/mgen
"$build/mgen-cc" -O1 -o "$work/dr" "$src/tests/tools/programs/deadlock_report.c" || exit 1
run() { "$mgen" run -n 4 -q "$work/dr" "$@"; }
since='\(waiting since [0-9.]+ us\)'

# A receive from a rank that never sends: the call, peer, tag and communicator; the others wait
# in MPI_Finalize's synchronisation for rank 0.
expect 3 "deadlock: 4 of 4 ranks are blocked.* rank 0: MPI_Recv from rank 2, tag 7, on MPI_COMM_WORLD $since.* rank 1: MPI_Finalize on MPI_COMM_WORLD, waiting for a message from rank 0" \
  -- run recv_never
# Two blocking synchronous sends to each other.
expect 3 "rank 0: MPI_Ssend to rank 1, tag 3, on MPI_COMM_WORLD $since.* rank 1: MPI_Ssend to rank 0, tag 3, on MPI_COMM_WORLD" \
  -- run ssend_pair
# A communicator the program named, and an unnamed one (ranks of the communicator, world rank beside).
expect 3 "rank 0: MPI_Recv from rank 1, tag 5, on \"halo\" $since" -- run named_comm
expect 3 "rank 0: MPI_Recv from rank 1 \(world rank 2\), tag 1, on a communicator of 2 ranks \(context id 0x[0-9a-f]+\)" \
  -- run split_comm
# A wait on one request that another call posted.
expect 3 "rank 0: MPI_Wait for a receive from rank 3, tag 6, on MPI_COMM_WORLD $since" -- run wait_irecv
# A wait on several requests lists those not complete.
expect 3 "rank 0: MPI_Waitall on 3 requests, 3 not complete: receive from rank 1, tag 1, on MPI_COMM_WORLD; receive from rank 2, tag 2, on MPI_COMM_WORLD; send to rank 3, tag 9, on MPI_COMM_WORLD $since" \
  -- run waitall

# Mismatched collectives: the odd member is named, not the first or last to call.
expect 3 "rank 2: MPI_Finalize: mismatched collectives: rank 2 called MPI_Finalize while ranks 0,1,3 are in MPI_Barrier on MPI_COMM_WORLD \(collective number 1 there\): did rank 2 skip the MPI_Barrier\?" \
  -- run skip_barrier
expect 3 "rank 0: MPI_Finalize: mismatched collectives: rank 0 called MPI_Finalize while ranks 1-3 are in MPI_Barrier on MPI_COMM_WORLD" \
  -- run first_skips
expect 3 "rank 1: MPI_Bcast: mismatched collectives: rank 1 called MPI_Bcast while ranks 0,2,3 are in MPI_Barrier on MPI_COMM_WORLD .*same order" \
  -- run bcast_vs_barrier
expect 3 "rank 3: MPI_Allreduce: mismatched collectives: rank 3 called MPI_Allreduce while ranks 0-2 are in MPI_Bcast on \"halo\"" \
  -- run named_mismatch
# A member that never reaches the collective: the deadlock report says first who called what.
expect 3 "rank 1: MPI_Bcast: mismatched collectives: rank 1 called MPI_Bcast while ranks 0,2 are in MPI_Barrier on MPI_COMM_WORLD \(collective number 1 there\), and rank 3 has not called it yet: .*deadlock: 4 of 4 ranks are blocked.* rank 1: MPI_Bcast: stopped there, as the members called different collectives.* rank 3: MPI_Recv from rank 0, tag 8, on MPI_COMM_WORLD" \
  -- run mismatch_deadlock
# Two ranks: a tie, and MPI_Finalize is the odd one.
expect 3 "rank 0: MPI_Finalize: mismatched collectives: rank 0 called MPI_Finalize while rank 1 is in MPI_Barrier" \
  -- "$mgen" run -n 2 -q "$work/dr" first_skips
# The same under the analytic backend's timing (the check does not depend on the network).
expect 3 "rank 2 called MPI_Finalize while ranks 0,1,3 are in MPI_Barrier" \
  -- "$mgen" run -n 4 -q --set network.backend=analytic "$work/dr" skip_barrier

if command -v mpicc >/dev/null && command -v mpiexec >/dev/null; then
  mpicc -O1 -o "$work/dr.mpich" "$src/tests/tools/programs/deadlock_report.c"
  # MPICH hangs on both (the time-out's 124): no rank is named.
  for c in skip_barrier bcast_vs_barrier; do
    expect 124 "" -- timeout 5 mpiexec -n 4 "$work/dr.mpich" "$c" </dev/null
  done
fi
exit $((failures > 0))
