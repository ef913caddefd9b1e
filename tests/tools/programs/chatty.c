/* chatty.c - two ranks exchange many messages and rank 0 prints a line now and then: enough
 * events for mgen's progress line to be drawn between the lines (progress_line_test.sh). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const int rounds = argc > 1 ? atoi(argv[1]) : 20000;
  static char out[65536], in[65536];
  for (int i = 0; i < rounds; ++i) {
    MPI_Sendrecv(out, sizeof out, MPI_CHAR, 1 - rank, 0, in, sizeof in, MPI_CHAR, 1 - rank, 0, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    if (rank == 0 && i % (rounds / 20 + 1) == 0) printf("chatty line %d\n", i);
  }
  MPI_Finalize();
  return 0;
}
