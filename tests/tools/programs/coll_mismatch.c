/* coll_mismatch.c - collectives whose members pass arguments that do not match.
 *
 * Usage: coll_mismatch CASE (3 ranks). Every case but "same_signature" is erroneous MPI; mgen
 * must stop with an error that names the call and the ranks involved. Under MPICH 4.0.2
 * (mpiexec -n 3) bcast_short, bcast_long, allreduce_count, gatherv_counts and alltoallv_pair
 * abort ("Message truncated" / "Other MPI error") on the same rank mgen names; bcast_root and
 * reduce_op run to the end with wrong data, and "order" hangs: the simulator sees every
 * member's arguments, so it reports those too.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char* what = argc > 1 ? argv[1] : "";
  double buf[64] = {0}, out[64] = {0};
  int counts[64], displs[64];
  for (int i = 0; i < size && i < 64; ++i) {
    counts[i] = 1;
    displs[i] = i;
  }
  if (strcmp(what, "bcast_short") == 0) {
    /* rank 1 receives fewer elements than the root sends */
    MPI_Bcast(buf, rank == 1 ? 2 : 4, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  } else if (strcmp(what, "bcast_long") == 0) {
    /* rank 2 expects more than the root sends */
    MPI_Bcast(buf, rank == 2 ? 8 : 4, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  } else if (strcmp(what, "allreduce_count") == 0) {
    MPI_Allreduce(buf, out, rank == size - 1 ? 3 : 6, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  } else if (strcmp(what, "bcast_root") == 0) {
    MPI_Bcast(buf, 4, MPI_DOUBLE, rank == 1 ? 1 : 0, MPI_COMM_WORLD);
  } else if (strcmp(what, "reduce_op") == 0) {
    MPI_Reduce(buf, out, 4, MPI_DOUBLE, rank == 2 ? MPI_MAX : MPI_SUM, 0, MPI_COMM_WORLD);
  } else if (strcmp(what, "gatherv_counts") == 0) {
    /* the root expects one element from each rank; rank 2 sends two */
    MPI_Gatherv(buf, rank == 2 ? 2 : 1, MPI_DOUBLE, out, counts, displs, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  } else if (strcmp(what, "order") == 0) {
    /* rank 0 calls another collective than the others */
    if (rank == 0)
      MPI_Bcast(buf, 4, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    else
      MPI_Allreduce(buf, out, 4, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  } else if (strcmp(what, "alltoallv_pair") == 0) {
    /* rank 0 sends rank 1 two elements; rank 1 expects one from rank 0 */
    int sc[64], rc[64];
    for (int i = 0; i < size; ++i)
      sc[i] = rc[i] = 1;
    if (rank == 0) sc[1] = 2;
    int sd[64], rd[64];
    for (int i = 0; i < size; ++i)
      sd[i] = rd[i] = 2 * i;
    MPI_Alltoallv(buf, sc, sd, MPI_DOUBLE, out, rc, rd, MPI_DOUBLE, MPI_COMM_WORLD);
  } else if (strcmp(what, "same_signature") == 0) {
    /* legal: the root sends one vector of 4 doubles, the others receive 4 doubles */
    MPI_Datatype four;
    MPI_Type_contiguous(4, MPI_DOUBLE, &four);
    MPI_Type_commit(&four);
    if (rank == 0) {
      for (int i = 0; i < 4; ++i)
        buf[i] = i + 1;
      MPI_Bcast(buf, 1, four, 0, MPI_COMM_WORLD);
    } else {
      MPI_Bcast(buf, 4, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    }
    MPI_Type_free(&four);
    if (buf[3] != 4.0) {
      printf("rank %d: wrong data %g\n", rank, buf[3]);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (rank == 0) printf("same_signature: ok\n");
  } else {
    if (rank == 0) fprintf(stderr, "coll_mismatch: unknown case '%s'\n", what);
    MPI_Finalize();
    return 2;
  }
  MPI_Finalize();
  return 0;
}
