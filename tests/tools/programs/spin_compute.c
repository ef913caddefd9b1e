/* A known amount of CPU work between MPI calls: each of N iterations spins until the thread's
 * own CPU clock (CLOCK_THREAD_CPUTIME_ID) has advanced by US microseconds, then makes an 8-byte
 * MPI_Allreduce (argv[1]: N, argv[2]: US). Each rank prints the CPU time it measured itself
 * between its MPI calls, "rank R: cpu_ns T": the truth that mgen's measured compute (mgen run)
 * or the recorder's dt_cpu (mgen record) is held to (measured_compute_test.sh). */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static int64_t cpu_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static int cmp(const void* a, const void* b) {
  const int64_t x = *(const int64_t*)a, y = *(const int64_t*)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const long n = argc > 1 ? atol(argv[1]) : 1000;
  const int64_t spin = (argc > 2 ? atol(argv[2]) : 200) * 1000;
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  /* What one read of the clock costs (the reads that open and close each measured stretch are
   * half outside it): the median of back-to-back differences. */
  enum { kReads = 101 };
  int64_t d[kReads];
  for (int i = 0; i < kReads; ++i) {
    const int64_t a = cpu_ns();
    d[i] = cpu_ns() - a;
  }
  qsort(d, kReads, sizeof d[0], cmp);
  int64_t total = 0;
  double x = 1, sum = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  for (long i = 0; i < n; ++i) {
    const int64_t c0 = cpu_ns();
    int64_t c1 = c0;
    while (c1 - c0 < spin) {
      for (int k = 0; k < 100; ++k) x = x * 1.0000001 + 1e-9;
      c1 = cpu_ns();
    }
    total += c1 - c0 + d[kReads / 2];
    MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  }
  printf("rank %d: cpu_ns %lld (%ld iterations; %g)\n", rank, (long long)total, n, sum > 0 ? 1.0 : 0.0);
  MPI_Finalize();
  return 0;
}
