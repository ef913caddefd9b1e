/* Known MPI calls per rank, for the reports' per-function tables (report_test.sh). Every rank
 * calls MPI_Init, MPI_Comm_rank, MPI_Comm_size and MPI_Finalize once and MPI_Barrier twice;
 * then ITER rounds of a ring exchange (MPI_Isend of BYTES to the right, MPI_Recv from the left,
 * MPI_Wait), with an MPI_Allreduce of one double after every round but the last. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#define ITER 5
#define BYTES 1000

int main(int argc, char** argv) {
  int rank, size;
  char out[BYTES], in[BYTES];
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  memset(out, rank, sizeof out);
  MPI_Barrier(MPI_COMM_WORLD);
  double sum = 0;
  for (int i = 0; i < ITER; ++i) {
    MPI_Request req;
    MPI_Isend(out, BYTES, MPI_CHAR, (rank + 1) % size, i, MPI_COMM_WORLD, &req);
    MPI_Recv(in, BYTES, MPI_CHAR, (rank + size - 1) % size, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    if (i + 1 < ITER) {
      double v = in[0], s = 0;
      MPI_Allreduce(&v, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
      sum += s;
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("sum %g\n", sum);
  MPI_Finalize();
  return 0;
}
