/* dying.c - an MPI program whose rank 1 is killed half way: a loop of allreduces and ring
 * messages; at iteration KILL_AT (argv[1], default 20) rank 1 sends itself SIGTERM, or
 * SIGKILL if argv[2] is "kill". The recorder must leave readable traces up to that point. */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int kill_at = argc > 1 ? atoi(argv[1]) : 20;
  const int sig = argc > 2 && strcmp(argv[2], "kill") == 0 ? SIGKILL : SIGTERM;
  double v = rank, sum = 0;
  for (int i = 0; i < 1000; ++i) {
    if (rank == 1 && i == kill_at) {
      if (sig == SIGKILL) sleep(2); /* let the recorder's once-a-second flush happen */
      MPI_Allreduce(&v, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_SELF);
      kill(getpid(), sig);
    }
    MPI_Allreduce(&v, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Sendrecv_replace(&v, 1, MPI_DOUBLE, (rank + 1) % size, 0, (rank + size - 1) % size, 0, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
  }
  MPI_Finalize();
  return 0;
}
