/* random_ring — the HPCC randomly ordered ring bandwidth benchmark (NSIM-ACE §4.1) with MPI
 * point-to-point messages.
 *
 * The ranks form a ring in a random order: a permutation drawn from a seeded generator, the
 * same on every rank. Each iteration every rank sends `bytes` to its left and to its right
 * neighbour in the ring and receives `bytes` from each, all four transfers at once (Irecv,
 * Irecv, Isend, Isend, Waitall). Rank 0 prints the bandwidth per process, HPCC-style: the bytes
 * one rank sends per iteration (2 x bytes) over the time of an iteration, using the slowest
 * rank's time.
 *
 * By default buffers are NULL: only sizes travel, which is all the timing needs. --data sends
 * real buffers filled with a pattern and checks every received byte.
 *
 *   mgen run -n 16 -c configs/nsim-ace-ib.toml --ppn 2 examples/random_ring
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "example_util.h"

/* The ring order: a Fisher-Yates shuffle of 0..p-1 driven by a 64-bit LCG (Knuth's MMIX
 * constants), so that every rank computes the same permutation from the same seed. */
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

/* Byte i of what `src` sends in direction `dir` (0 = to its right, 1 = to its left) in
 * iteration `it`. */
static unsigned char pattern(int src, int dir, int it, long long i) {
  return (unsigned char)((unsigned)src * 131u + (unsigned)dir * 17u + (unsigned)it * 7u + (unsigned)i);
}

int MGEN_Main(int argc, char** argv) {
  long long bytes = 2097152, iters = 5, seed = 1;
  int data = 0;
  const ex_option options[] = {
      {"bytes", EX_INT, &bytes, "bytes sent to each neighbour per iteration"},
      {"iters", EX_INT, &iters, "iterations"},
      {"seed", EX_INT, &seed, "seed of the random ring order"},
      {"data", EX_FLAG, &data, "send real buffers and check their contents"},
  };
  const ex_program prog = {"random_ring",
                           "HPCC random ring bandwidth with Isend/Irecv to both ring neighbours (NSIM-ACE 4.1).",
                           options, (int)(sizeof options / sizeof options[0])};
  int rank, size, pos = 0, left, right, i, dir;
  long long it, k, errors = 0;
  int* order;
  unsigned char *sendbuf[2] = {NULL, NULL}, *recvbuf[2] = {NULL, NULL};
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

  if (data) {
    for (dir = 0; dir < 2; ++dir) {
      sendbuf[dir] = (unsigned char*)malloc((size_t)bytes + 1);
      recvbuf[dir] = (unsigned char*)malloc((size_t)bytes + 1);
    }
  }

  if (rank == 0) {
    printf("random_ring: %d ranks, %lld bytes to each neighbour, %lld iteration(s), seed %lld, %s\n", size, bytes,
           iters, seed, data ? "real buffers (checked)" : "size-only buffers");
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
    MGEN_Request req[4];
    if (data) {
      for (dir = 0; dir < 2; ++dir) {
        for (k = 0; k < bytes; ++k)
          sendbuf[dir][k] = pattern(rank, dir, (int)it, k);
      }
    }
    /* Tag 0 travels to the right, tag 1 to the left; with two ranks left == right and the
     * tags keep the two messages apart. */
    MGEN_Irecv(recvbuf[0], (int)bytes, MGEN_BYTE, left, 0, MGEN_COMM_WORLD, &req[0]);
    MGEN_Irecv(recvbuf[1], (int)bytes, MGEN_BYTE, right, 1, MGEN_COMM_WORLD, &req[1]);
    MGEN_Isend(sendbuf[0], (int)bytes, MGEN_BYTE, right, 0, MGEN_COMM_WORLD, &req[2]);
    MGEN_Isend(sendbuf[1], (int)bytes, MGEN_BYTE, left, 1, MGEN_COMM_WORLD, &req[3]);
    MGEN_Waitall(4, req, MGEN_STATUSES_IGNORE);
    if (data) {
      for (k = 0; k < bytes; ++k) {
        if (recvbuf[0][k] != pattern(left, 0, (int)it, k)) ++errors;
        if (recvbuf[1][k] != pattern(right, 1, (int)it, k)) ++errors;
      }
    }
  }
  elapsed = MGEN_Wtime() - t0;

  ex_gather_stat(elapsed, &tmin, &tsum, &tmax);
  {
    double errs = (double)errors, total_errors = 0;
    ex_gather_stat(errs, NULL, &total_errors, NULL);
    if (rank == 0) {
      char a[32], b[32], c[32];
      const double per_iter = tmax / (double)iters;
      printf("time per iteration: slowest rank %s, mean %s, fastest %s\n", ex_time(per_iter, a, sizeof a),
             ex_time(tsum / size / (double)iters, b, sizeof b), ex_time(tmin / (double)iters, c, sizeof c));
      printf("bandwidth per process: %.4f GB/s (2 x %lld bytes sent per rank per iteration)\n",
             per_iter > 0 ? 2.0 * (double)bytes / per_iter * 1e-9 : 0.0, bytes);
      if (data) {
        if (total_errors > 0) {
          printf("data check: FAILED, %.0f wrong byte(s)\n", total_errors);
        } else {
          printf("data check: ok, %lld bytes checked per rank\n", 2 * bytes * iters);
        }
      }
    }
    if (data && rank == 0 && total_errors > 0) MGEN_Abort(MGEN_COMM_WORLD, 2);
  }

  for (dir = 0; dir < 2; ++dir) {
    free(sendbuf[dir]);
    free(recvbuf[dir]);
  }
  free(order);
  return 0;
}
