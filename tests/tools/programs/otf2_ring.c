// The OTF2 tests' program (otf2_test.sh): known point-to-point sizes and collectives.
//   a blocking ring: rank r sends 1000 * (r + 1) bytes to r + 1 (tag 7);
//   a chain: MPI_Sendrecv of 500 bytes up (tag 9), the ends to and from MPI_PROC_NULL;
//   a non-blocking ring: 100000 bytes to r + 1 (tag 8), Irecv + Isend + Waitall;
//   MPI_Allreduce of 8 doubles, MPI_Bcast of 100 ints from rank 1, MPI_Barrier.
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  char* out = calloc(1, 1 << 20);
  char* in = calloc(1, 1 << 20);
  const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  const int mine = 1000 * (rank + 1), theirs = 1000 * (prev + 1);
  if (rank % 2 == 0) {
    MPI_Send(out, mine, MPI_BYTE, next, 7, MPI_COMM_WORLD);
    MPI_Recv(in, theirs, MPI_BYTE, prev, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else {
    MPI_Recv(in, theirs, MPI_BYTE, prev, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(out, mine, MPI_BYTE, next, 7, MPI_COMM_WORLD);
  }
  const int up = rank + 1 < size ? rank + 1 : MPI_PROC_NULL, down = rank > 0 ? rank - 1 : MPI_PROC_NULL;
  MPI_Sendrecv(out, 500, MPI_BYTE, up, 9, in, 500, MPI_BYTE, down, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Request q[2];
  MPI_Irecv(in, 100000, MPI_BYTE, prev, 8, MPI_COMM_WORLD, &q[0]);
  MPI_Isend(out, 100000, MPI_BYTE, next, 8, MPI_COMM_WORLD, &q[1]);
  MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
  double x[8] = {0}, y[8];
  MPI_Allreduce(x, y, 8, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  MPI_Bcast(out, 100, MPI_INT, 1 % size, MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);
  free(out);
  free(in);
  MPI_Finalize();
  return 0;
}
