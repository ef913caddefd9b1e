/* bibw — OSU-style bidirectional bandwidth between two ranks.
 *
 * For message sizes 1, 2, 4, ... up to --max bytes, both ranks post --window Irecvs and
 * --window Isends at once and wait for all of them; --iters such rounds follow --warmup
 * rounds. Bandwidth = 2 x size x window x iterations / time (both directions together), in
 * MB/s (10^6 B/s); rank A's time is used. Messages above 64 KiB use --iters-large iterations.
 * Buffers are NULL: only sizes travel.
 *
 *   mgen run -n 16 examples/bibw --max 1M
 */
#include <stdio.h>
#include <stdlib.h>

#include "example_util.h"

#define TAG_DATA 1
#define TAG_RESULT 2
#define LARGE 65536

int MGEN_Main(int argc, char** argv) {
  long long rank_a = 0, rank_b = -1, max = 4194304, iters = 10, iters_large = 4, warmup = 2, window = 64;
  const ex_option options[] = {
      {"rank-a", EX_INT, &rank_a, "the first rank"},
      {"rank-b", EX_INT, &rank_b, "the second rank (-1: the last rank)"},
      {"max", EX_INT, &max, "largest message size in bytes"},
      {"iters", EX_INT, &iters, "measured iterations per size"},
      {"iters-large", EX_INT, &iters_large, "measured iterations above 64 KiB"},
      {"warmup", EX_INT, &warmup, "warm-up iterations per size"},
      {"window", EX_INT, &window, "messages in flight each way per iteration"},
  };
  const ex_program prog = {"bibw", "OSU-style bidirectional bandwidth between two ranks.", options,
                           (int)(sizeof options / sizeof options[0])};
  int rank, size, a, b, nsizes = 0, s, peer;
  long long bytes, i, w;
  double* bw;
  MGEN_Request* reqs;

  if (!ex_parse(&prog, argc, argv)) return 0;
  rank = ex_rank();
  size = ex_size();
  if (size < 2) ex_die(&prog, "needs at least 2 ranks, not %d", size);
  if (rank_b == -1) rank_b = size - 1;
  if (rank_a < 0 || rank_a >= size || rank_b < 0 || rank_b >= size || rank_a == rank_b)
    ex_die(&prog, "--rank-a %lld and --rank-b %lld must be two different ranks of 0..%d", rank_a, rank_b, size - 1);
  if (max < 1 || max > 1073741824LL) ex_die(&prog, "--max must be in [1, 1 GiB], not %lld", max);
  if (iters < 1 || iters_large < 1 || warmup < 0) ex_die(&prog, "need --iters >= 1, --iters-large >= 1, --warmup >= 0");
  if (window < 1 || window > 100000) ex_die(&prog, "--window must be in [1, 100000], not %lld", window);
  a = (int)rank_a;
  b = (int)rank_b;

  for (bytes = 1; bytes <= max; bytes *= 2)
    ++nsizes;
  bw = (double*)calloc((size_t)nsizes, sizeof(double));
  reqs = (MGEN_Request*)malloc(sizeof(MGEN_Request) * 2 * (size_t)window);

  if (rank == a || rank == b) {
    peer = rank == a ? b : a;
    for (s = 0, bytes = 1; s < nsizes; ++s, bytes *= 2) {
      const long long n = bytes > LARGE ? iters_large : iters;
      const int count = (int)bytes;
      double t0 = 0;
      for (i = 0; i < warmup + n; ++i) {
        if (i == warmup) t0 = MGEN_Wtime();
        for (w = 0; w < window; ++w)
          MGEN_Irecv(NULL, count, MGEN_BYTE, peer, TAG_DATA, MGEN_COMM_WORLD, &reqs[w]);
        for (w = 0; w < window; ++w)
          MGEN_Isend(NULL, count, MGEN_BYTE, peer, TAG_DATA, MGEN_COMM_WORLD, &reqs[window + w]);
        MGEN_Waitall((int)(2 * window), reqs, MGEN_STATUSES_IGNORE);
      }
      bw[s] = 2.0 * (double)bytes * (double)window * (double)n / (MGEN_Wtime() - t0) * 1e-6;
    }
    if (rank == a && a != 0) MGEN_Send(bw, nsizes, MGEN_DOUBLE, 0, TAG_RESULT, MGEN_COMM_WORLD);
  }
  if (rank == 0) {
    if (a != 0) MGEN_Recv(bw, nsizes, MGEN_DOUBLE, a, TAG_RESULT, MGEN_COMM_WORLD, MGEN_STATUS_IGNORE);
    printf("# bibw: ranks %d <-> %d of %d, %lld iteration(s) (%lld above %d B) after %lld warm-up, window %lld\n", a, b,
           size, iters, iters_large, LARGE, warmup, window);
    printf("# %10s %16s\n", "size (B)", "bandwidth (MB/s)");
    for (s = 0, bytes = 1; s < nsizes; ++s, bytes *= 2)
      printf("%12lld %16.2f\n", bytes, bw[s]);
  }
  free(bw);
  free(reqs);
  return 0;
}
