/* barrier_common.h — the measurement loop shared by barrier_ring_rdma.c and
 * barrier_rd_rdma.c: run a barrier N times back to back, record when each rank entered and
 * left each one (MGEN_Wtime is the simulated clock, the same on every rank), and let rank 0
 * report the minimum and mean barrier time and check the barrier property.
 */
#ifndef MGEN_EXAMPLE_BARRIER_COMMON_H
#define MGEN_EXAMPLE_BARRIER_COMMON_H

#include <stdio.h>
#include <stdlib.h>

#include "example_util.h"

/* One barrier by this rank; `bytes` per put; `complete_each`: complete every put before the
 * next step instead of all of them at the end of the barrier. */
typedef void (*barrier_fn)(int rank, int size, int bytes, int complete_each, MGEN_acp_handle* handles);

/* Runs `iters` barriers and prints the results from rank 0. `max_handles` bounds the puts one
 * rank issues in one barrier. Returns 0, or stops the job if the barrier property is broken. */
static inline int run_barrier_benchmark(const ex_program* prog, const char* description, barrier_fn barrier,
                                        int max_handles, long long iters, long long bytes, int complete_each) {
  const int rank = ex_rank(), size = ex_size();
  const int n = (int)iters;
  /* [0, n): entry times, [n, 2n): exit times, [2n, 3n): time inside. */
  double* t = (double*)malloc(sizeof(double) * 3 * (size_t)n);
  double *lo = NULL, *sum = NULL, *hi = NULL;
  MGEN_acp_handle* handles = (MGEN_acp_handle*)malloc(sizeof(MGEN_acp_handle) * (size_t)(max_handles + 1));
  long long k;
  if (rank == 0) {
    lo = (double*)malloc(sizeof(double) * 3 * (size_t)n);
    sum = (double*)malloc(sizeof(double) * 3 * (size_t)n);
    hi = (double*)malloc(sizeof(double) * 3 * (size_t)n);
    printf("%s: %d ranks, %lld barrier(s), %lld-byte puts, puts completed %s\n%s\n", prog->name, size, iters, bytes,
           complete_each ? "after every step" : "at the end of each barrier", description);
  }
  for (k = 0; k < n; ++k) {
    t[k] = MGEN_Wtime();
    barrier(rank, size, (int)bytes, complete_each, handles);
    t[n + k] = MGEN_Wtime();
    t[2 * n + k] = t[n + k] - t[k];
  }
  ex_gather_stats(t, 3 * n, lo, sum, hi);
  if (rank == 0) {
    /* The barrier time of iteration k is the longest any rank spent in it (what a rank timing
     * its own call would report at worst); NSIM-ACE used the minimum over 100 barriers. */
    double best = hi[2 * n], mean = 0, after_last = 1e300;
    long long violations = 0;
    for (k = 0; k < n; ++k) {
      const double time_k = hi[2 * n + k];
      if (time_k < best) best = time_k;
      mean += time_k;
      /* From the last rank's entry to the last rank's exit. */
      if (hi[n + k] - hi[k] < after_last) after_last = hi[n + k] - hi[k];
      /* Nobody may leave barrier k before everybody has entered it. */
      if (lo[n + k] < hi[k]) ++violations;
    }
    mean /= (double)n;
    printf("barrier time: min %.4f us, mean %.4f us (the slowest rank's time in each barrier)\n", best * 1e6,
           mean * 1e6);
    printf("from the last rank's entry to the last exit: min %.4f us\n", after_last * 1e6);
    if (violations) {
      printf("barrier check: FAILED, %lld barrier(s) let a rank out before the last one came in\n", violations);
      fflush(stdout);
      MGEN_Abort(MGEN_COMM_WORLD, 2);
    }
    printf("barrier check: ok, no rank left any barrier before the last rank had entered it\n");
  }
  free(t);
  free(lo);
  free(sum);
  free(hi);
  free(handles);
  return 0;
}

#endif /* MGEN_EXAMPLE_BARRIER_COMMON_H */
