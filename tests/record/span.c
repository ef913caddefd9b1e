/* span.c - known spans for `mgen trace stats`: rank 1 sleeps 300 ms before MPI_Init (so rank
 * 0 waits in MPI_Init), then rank r sleeps (r + 1) x 100 ms between MPI_Init and MPI_Finalize
 * (so rank 0 waits in MPI_Finalize for rank 1), and each rank prints the MPI_Wtime span it
 * measured itself: "span RANK SECONDS". The trace's span must match that span and contain
 * neither wait. */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static void sleep_ms(long ms) {
  struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
  while (nanosleep(&t, &t) != 0) {
  }
}

int main(int argc, char** argv) {
  const char* pmi_rank = getenv("PMI_RANK"); /* set by MPICH's hydra before MPI_Init */
  if (pmi_rank != NULL && atoi(pmi_rank) == 1) sleep_ms(300);
  MPI_Init(&argc, &argv);
  const double t0 = MPI_Wtime();
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  sleep_ms(100L * (rank + 1));
  const double t1 = MPI_Wtime();
  printf("span %d %.6f\n", rank, t1 - t0);
  fflush(stdout);
  MPI_Finalize();
  return 0;
}
