/* record_overhead.c - what the recorder costs per MPI call: a loop of MPI_Comm_rank (the
 * recorder's cost is nearly all of such a call's time) and a 2-rank ping-pong of 8-byte
 * messages (a call that communicates). Prints ns per call; run it with and without
 * `mgen record` (bench/run_record_bench.sh) and take the difference. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0, r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int n = argc > 1 ? atoi(argv[1]) : 200000;
  double t0 = MPI_Wtime();
  for (int i = 0; i < n; ++i)
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
  const double local = (MPI_Wtime() - t0) / n;
  double v = 1;
  const int pings = n / 10;
  MPI_Barrier(MPI_COMM_WORLD);
  t0 = MPI_Wtime();
  for (int i = 0; i < pings && size >= 2; ++i) {
    if (rank == 0) {
      MPI_Send(&v, 1, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD);
      MPI_Recv(&v, 1, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
      MPI_Recv(&v, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(&v, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD);
    }
  }
  const double ping = (MPI_Wtime() - t0) / (2.0 * pings);
  if (rank == 0) printf("local_call_ns %.1f\npingpong_call_ns %.1f\n", local * 1e9, ping * 1e9);
  MPI_Finalize();
  return 0;
}
