// The OTF2 tests' program with communicators (otf2_test.sh): MPI_COMM_WORLD split in halves
// (ranks 0-1, 2-3, ...); in each half, its rank 0 sends 777 bytes to its rank 1 (tag 3) and
// the half reduces 4 doubles; a cartesian communicator of the first 2 ranks (the others get
// MPI_COMM_NULL) in which rank 0 sends 555 bytes to rank 1 (tag 4); both freed.
#include <mpi.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  char buf[1024] = {0};
  MPI_Comm half;
  MPI_Comm_split(MPI_COMM_WORLD, rank / 2, rank, &half);
  int me;
  MPI_Comm_rank(half, &me);
  if (me == 0) MPI_Send(buf, 777, MPI_BYTE, 1, 3, half);
  if (me == 1) MPI_Recv(buf, 777, MPI_BYTE, 0, 3, half, MPI_STATUS_IGNORE);
  double x[4] = {0}, y[4];
  MPI_Allreduce(x, y, 4, MPI_DOUBLE, MPI_SUM, half);
  MPI_Comm line;
  const int dims[1] = {2}, periods[1] = {0};
  MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &line);
  if (line != MPI_COMM_NULL) {
    if (rank == 0) MPI_Send(buf, 555, MPI_BYTE, 1, 4, line);
    if (rank == 1) MPI_Recv(buf, 555, MPI_BYTE, 0, 4, line, MPI_STATUS_IGNORE);
    MPI_Comm_free(&line);
  }
  MPI_Comm_free(&half);
  MPI_Finalize();
  return 0;
}
