/* random_ring_rdma — the HPCC random ring with RDMA puts, as NSIM-ACE rewrote it for the ACP
 * basic layer (§4.1).
 *
 * The ring order is the same seeded permutation as in random_ring. Each iteration every rank
 * puts `bytes` into its right neighbour (tag 0) and into its left neighbour (tag 1), waits with
 * MGEN_rdma_poll for the two puts coming in (tag 0 from its left, tag 1 from its right), then
 * waits for its own two puts to complete (MGEN_acp_complete). Rank 0 prints the bandwidth per
 * process: 2 x bytes over the slowest rank's time per iteration.
 *
 * MGEN_rdma_poll(tag) consumes one completed put of that tag. Every put a rank receives with
 * tag 0 comes from its left neighbour and every one with tag 1 from its right, so counting
 * them is exact even when a neighbour is one iteration ahead.
 *
 *   mgen run -n 16 -c configs/nsim-ace-ib.toml --ppn 2 examples/random_ring_rdma
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "example_util.h"

/* The same ring order as random_ring.c. */
static uint64_t lcg_next(uint64_t* state) {
  *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
  return *state >> 33;
}

static void ring_order(int p, uint64_t seed, int* order) {
  uint64_t state = seed;
  int i;
  for (i = 0; i < p; ++i)
    order[i] = i;
  lcg_next(&state);
  for (i = p - 1; i > 0; --i) {
    int j = (int)(lcg_next(&state) % (uint64_t)(i + 1));
    int t = order[i];
    order[i] = order[j];
    order[j] = t;
  }
}

int MGEN_Main(int argc, char** argv) {
  long long bytes = 2097152, iters = 5, seed = 1;
  const ex_option options[] = {
      {"bytes", EX_INT, &bytes, "bytes put to each neighbour per iteration"},
      {"iters", EX_INT, &iters, "iterations"},
      {"seed", EX_INT, &seed, "seed of the random ring order"},
  };
  const ex_program prog = {"random_ring_rdma",
                           "HPCC random ring bandwidth with RDMA puts to both ring neighbours (NSIM-ACE 4.1).", options,
                           (int)(sizeof options / sizeof options[0])};
  int rank, size, pos = 0, left, right, i;
  long long it;
  int* order;
  double t0, elapsed, tmin = 0, tsum = 0, tmax = 0;

  if (!ex_parse(&prog, argc, argv)) return 0;
  rank = ex_rank();
  size = ex_size();
  if (size < 2) ex_die(&prog, "needs at least 2 ranks, not %d", size);
  if (bytes < 0 || bytes > 1073741824LL) ex_die(&prog, "--bytes must be in [0, 1 GiB], not %lld", bytes);
  if (iters < 1) ex_die(&prog, "--iters must be at least 1, not %lld", iters);
  if (seed < 0) ex_die(&prog, "--seed must not be negative");

  order = (int*)malloc(sizeof(int) * (size_t)size);
  ring_order(size, (uint64_t)seed, order);
  for (i = 0; i < size; ++i) {
    if (order[i] == rank) pos = i;
  }
  left = order[(pos + size - 1) % size];
  right = order[(pos + 1) % size];

  if (rank == 0) {
    printf("random_ring_rdma: %d ranks, %lld bytes put to each neighbour, %lld iteration(s), seed %lld\n", size, bytes,
           iters, seed);
    if (size <= 32) {
      printf("ring order:");
      for (i = 0; i < size; ++i)
        printf(" %d", order[i]);
      printf("\n");
    }
  }

  MGEN_Barrier(MGEN_COMM_WORLD);
  t0 = MGEN_Wtime();
  for (it = 0; it < iters; ++it) {
    MGEN_acp_handle to_right = MGEN_rdma_put(right, (int)bytes, 0);
    MGEN_acp_handle to_left = MGEN_rdma_put(left, (int)bytes, 1);
    MGEN_rdma_poll(0); /* from the left neighbour */
    MGEN_rdma_poll(1); /* from the right neighbour */
    MGEN_acp_complete(to_right);
    MGEN_acp_complete(to_left);
  }
  elapsed = MGEN_Wtime() - t0;

  ex_gather_stat(elapsed, &tmin, &tsum, &tmax);
  if (rank == 0) {
    char a[32], b[32], c[32];
    const double per_iter = tmax / (double)iters;
    printf("time per iteration: slowest rank %s, mean %s, fastest %s\n", ex_time(per_iter, a, sizeof a),
           ex_time(tsum / size / (double)iters, b, sizeof b), ex_time(tmin / (double)iters, c, sizeof c));
    printf("bandwidth per process: %.4f GB/s (2 x %lld bytes put per rank per iteration)\n",
           per_iter > 0 ? 2.0 * (double)bytes / per_iter * 1e-9 : 0.0, bytes);
  }
  free(order);
  return 0;
}
