/* A ring exchange whose output depends on the messages: rank r prints what rank r-1 sent
 * (its rank times 10 plus the number of ranks). A global counter shows each rank has its own
 * copy of the program's data; the line goes to stderr (a libc data symbol, which a program
 * linked as a position-independent executable reaches through a copy relocation). */
#include <mpi.h>
#include <stdio.h>

int calls;

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  ++calls;
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int token = rank * 10 + size, got = -1;
  MPI_Sendrecv(&token, 1, MPI_INT, (rank + 1) % size, 0, &got, 1, MPI_INT, (rank + size - 1) % size, 0,
               MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  fprintf(stderr, "rank %d of %d got %d (calls %d)\n", rank, size, got, calls);
  MPI_Finalize();
  return got == ((rank + size - 1) % size) * 10 + size ? 0 : 1;
}
