/* Run-to-run noise of predictions that include measured compute (docs/PERFORMANCE.md,
 * "Measured compute"): argv[1] = pingpong (2 ranks: the OSU-like latency of 8 B, 10,000 round
 * trips after 100 warm-up ones) or allreduce (any ranks: 8 B, 10,000 after 100). Rank 0 prints
 * the predicted time per latency point or per allreduce, in us:
 *   build/mgen-cc -O2 bench/compute_noise.c -o noise
 *   for i in $(seq 10); do build/mgen run -q -n 2 ./noise pingpong; build/mgen run -q -n 4 ./noise allreduce; done */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const int iters = 10000, warm = 100;
  char buf[8] = {0};
  double x = 1, y = 0, t0 = 0;
  if (argc > 1 && strcmp(argv[1], "pingpong") == 0) {
    for (int i = 0; i < iters + warm; ++i) {
      if (i == warm) t0 = MPI_Wtime();
      if (rank == 0) {
        MPI_Send(buf, 8, MPI_CHAR, 1, 1, MPI_COMM_WORLD);
        MPI_Recv(buf, 8, MPI_CHAR, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      } else if (rank == 1) {
        MPI_Recv(buf, 8, MPI_CHAR, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(buf, 8, MPI_CHAR, 0, 1, MPI_COMM_WORLD);
      }
    }
    if (rank == 0) printf("latency_us %.4f\n", (MPI_Wtime() - t0) / (2.0 * iters) * 1e6);
  } else {
    for (int i = 0; i < iters + warm; ++i) {
      if (i == warm) {
        MPI_Barrier(MPI_COMM_WORLD);
        t0 = MPI_Wtime();
      }
      MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    if (rank == 0) printf("allreduce_us %.4f\n", (MPI_Wtime() - t0) / iters * 1e6);
  }
  MPI_Finalize();
  return 0;
}
