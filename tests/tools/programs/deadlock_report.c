/* deadlock_report.c - programs that deadlock or call mismatched collectives: mgen must name the
 * call, the peer, the tag and the communicator each blocked rank waits on, and the rank that
 * called another collective than the others.
 *
 * Usage: deadlock_report CASE (4 ranks). Every case is erroneous MPI: under MPICH 4.0.2
 * (mpiexec -n 4) each one hangs without a word, the collective mismatches included
 * (deadlock_report_test.sh checks two of them).
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size, v = 0, w = 0, x = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char* what = argc > 1 ? argv[1] : "";
  if (strcmp(what, "recv_never") == 0) {
    /* rank 0 waits for a message rank 2 never sends */
    if (rank == 0) MPI_Recv(&v, 1, MPI_INT, 2, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else if (strcmp(what, "ssend_pair") == 0) {
    /* ranks 0 and 1 both send synchronously first */
    if (rank < 2) MPI_Ssend(&v, 1, MPI_INT, 1 - rank, 3, MPI_COMM_WORLD);
    if (rank < 2) MPI_Recv(&w, 1, MPI_INT, 1 - rank, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else if (strcmp(what, "skip_barrier") == 0) {
    /* rank 2 skips the barrier the others call */
    if (rank != 2) MPI_Barrier(MPI_COMM_WORLD);
  } else if (strcmp(what, "first_skips") == 0) {
    /* rank 0, the first to call a collective, skips the barrier */
    if (rank != 0) MPI_Barrier(MPI_COMM_WORLD);
  } else if (strcmp(what, "bcast_vs_barrier") == 0) {
    /* rank 1 broadcasts while the others are in a barrier */
    if (rank == 1)
      MPI_Bcast(&v, 1, MPI_INT, 0, MPI_COMM_WORLD);
    else
      MPI_Barrier(MPI_COMM_WORLD);
  } else if (strcmp(what, "mismatch_deadlock") == 0) {
    /* rank 1 broadcasts while ranks 0 and 2 are in a barrier; rank 3 never gets there */
    if (rank == 3) MPI_Recv(&v, 1, MPI_INT, 0, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (rank == 1)
      MPI_Bcast(&v, 1, MPI_INT, 0, MPI_COMM_WORLD);
    else
      MPI_Barrier(MPI_COMM_WORLD);
  } else if (strcmp(what, "named_comm") == 0) {
    /* a named duplicate of the world: rank 0 waits on it for a message rank 1 sends on the world */
    MPI_Comm halo;
    MPI_Comm_dup(MPI_COMM_WORLD, &halo);
    MPI_Comm_set_name(halo, "halo");
    if (rank == 0) MPI_Recv(&v, 1, MPI_INT, 1, 5, halo, MPI_STATUS_IGNORE);
    if (rank == 1) MPI_Send(&v, 1, MPI_INT, 0, 5, MPI_COMM_WORLD);
  } else if (strcmp(what, "named_mismatch") == 0) {
    /* on the named communicator, rank 3 reduces while the others broadcast */
    MPI_Comm halo;
    MPI_Comm_dup(MPI_COMM_WORLD, &halo);
    MPI_Comm_set_name(halo, "halo");
    if (rank == 3)
      MPI_Allreduce(&v, &w, 1, MPI_INT, MPI_SUM, halo);
    else
      MPI_Bcast(&v, 1, MPI_INT, 0, halo);
  } else if (strcmp(what, "split_comm") == 0) {
    /* an unnamed communicator of the even ranks: rank 0 waits for its rank 1 (world rank 2) */
    MPI_Comm even;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &even);
    if (rank == 0) MPI_Recv(&v, 1, MPI_INT, 1, 1, even, MPI_STATUS_IGNORE);
  } else if (strcmp(what, "wait_irecv") == 0) {
    /* rank 0 waits for a receive posted earlier */
    if (rank == 0) {
      MPI_Request r;
      MPI_Irecv(&v, 1, MPI_INT, 3, 6, MPI_COMM_WORLD, &r);
      MPI_Wait(&r, MPI_STATUS_IGNORE);
    }
  } else if (strcmp(what, "waitall") == 0) {
    /* rank 0 waits for three requests nobody matches */
    if (rank == 0) {
      MPI_Request r[3];
      MPI_Status st[3];
      MPI_Irecv(&v, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, &r[0]);
      MPI_Irecv(&w, 1, MPI_INT, 2, 2, MPI_COMM_WORLD, &r[1]);
      MPI_Issend(&x, 1, MPI_INT, 3, 9, MPI_COMM_WORLD, &r[2]);
      MPI_Waitall(3, r, st);
    }
  }
  MPI_Finalize();
  if (rank == 0) printf("%s: ok\n", what);
  return 0;
}
