/* pingpong — OSU-style point-to-point latency and bandwidth between two ranks.
 *
 * For message sizes 0, 1, 2, 4, ... up to --max bytes:
 *   latency:   rank A sends, rank B receives and sends back, --iters times after --warmup
 *              round trips; one-way latency = round-trip time / 2.
 *   bandwidth: rank A posts a window of --window back-to-back Isends, waits for them all, then
 *              waits for B's 4-byte acknowledgement; B posts the matching Irecvs, waits, and
 *              acknowledges. Bandwidth = size x window x iterations / time, in MB/s (10^6 B/s).
 * Messages above 64 KiB use --iters-large iterations. Buffers are NULL: only sizes travel.
 *
 * The two ranks default to 0 and p - 1, so on a torus with block placement they sit far
 * apart; --rank-a and --rank-b choose others. The remaining ranks do nothing.
 *
 *   mgen run -n 16 examples/pingpong --max 1M
 */
#include <stdio.h>
#include <stdlib.h>

#include "example_util.h"

#define TAG_PING 1
#define TAG_BW 2
#define TAG_ACK 3
#define TAG_RESULT 4
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
      {"window", EX_INT, &window, "back-to-back messages per bandwidth iteration"},
  };
  const ex_program prog = {"pingpong", "OSU-style ping-pong latency and windowed bandwidth between two ranks.", options,
                           (int)(sizeof options / sizeof options[0])};
  int rank, size, a, b, nsizes = 0, s, peer;
  long long bytes, i, w;
  double *lat, *bw;
  MGEN_Request* reqs;

  if (!ex_parse(&prog, argc, argv)) return 0;
  rank = ex_rank();
  size = ex_size();
  if (size < 2) ex_die(&prog, "needs at least 2 ranks, not %d", size);
  if (rank_b == -1) rank_b = size - 1;
  if (rank_a < 0 || rank_a >= size || rank_b < 0 || rank_b >= size || rank_a == rank_b)
    ex_die(&prog, "--rank-a %lld and --rank-b %lld must be two different ranks of 0..%d", rank_a, rank_b, size - 1);
  if (max < 0 || max > 1073741824LL) ex_die(&prog, "--max must be in [0, 1 GiB], not %lld", max);
  if (iters < 1 || iters_large < 1 || warmup < 0) ex_die(&prog, "need --iters >= 1, --iters-large >= 1, --warmup >= 0");
  if (window < 1 || window > 100000) ex_die(&prog, "--window must be in [1, 100000], not %lld", window);
  a = (int)rank_a;
  b = (int)rank_b;

  for (bytes = 0; bytes <= max; bytes = bytes ? bytes * 2 : 1)
    ++nsizes;
  lat = (double*)calloc((size_t)nsizes, sizeof(double));
  bw = (double*)calloc((size_t)nsizes, sizeof(double));
  reqs = (MGEN_Request*)malloc(sizeof(MGEN_Request) * (size_t)window);

  if (rank == a || rank == b) {
    peer = rank == a ? b : a;
    for (s = 0, bytes = 0; s < nsizes; ++s, bytes = bytes ? bytes * 2 : 1) {
      const long long n = bytes > LARGE ? iters_large : iters;
      const int count = (int)bytes;
      double t0 = 0;
      /* Latency. */
      for (i = 0; i < warmup + n; ++i) {
        if (i == warmup) t0 = MGEN_Wtime();
        if (rank == a) {
          MGEN_Send(NULL, count, MGEN_BYTE, peer, TAG_PING, MGEN_COMM_WORLD);
          MGEN_Recv(NULL, count, MGEN_BYTE, peer, TAG_PING, MGEN_COMM_WORLD, MGEN_STATUS_IGNORE);
        } else {
          MGEN_Recv(NULL, count, MGEN_BYTE, peer, TAG_PING, MGEN_COMM_WORLD, MGEN_STATUS_IGNORE);
          MGEN_Send(NULL, count, MGEN_BYTE, peer, TAG_PING, MGEN_COMM_WORLD);
        }
      }
      lat[s] = (MGEN_Wtime() - t0) / (2.0 * (double)n);
      if (bytes == 0) continue;
      /* Bandwidth. */
      for (i = 0; i < warmup + n; ++i) {
        if (i == warmup) t0 = MGEN_Wtime();
        if (rank == a) {
          for (w = 0; w < window; ++w)
            MGEN_Isend(NULL, count, MGEN_BYTE, peer, TAG_BW, MGEN_COMM_WORLD, &reqs[w]);
          MGEN_Waitall((int)window, reqs, MGEN_STATUSES_IGNORE);
          MGEN_Recv(NULL, 4, MGEN_BYTE, peer, TAG_ACK, MGEN_COMM_WORLD, MGEN_STATUS_IGNORE);
        } else {
          for (w = 0; w < window; ++w)
            MGEN_Irecv(NULL, count, MGEN_BYTE, peer, TAG_BW, MGEN_COMM_WORLD, &reqs[w]);
          MGEN_Waitall((int)window, reqs, MGEN_STATUSES_IGNORE);
          MGEN_Send(NULL, 4, MGEN_BYTE, peer, TAG_ACK, MGEN_COMM_WORLD);
        }
      }
      bw[s] = (double)bytes * (double)window * (double)n / (MGEN_Wtime() - t0) * 1e-6;
    }
    /* Rank A measured; rank 0 prints. */
    if (rank == a && a != 0) {
      MGEN_Send(lat, nsizes, MGEN_DOUBLE, 0, TAG_RESULT, MGEN_COMM_WORLD);
      MGEN_Send(bw, nsizes, MGEN_DOUBLE, 0, TAG_RESULT, MGEN_COMM_WORLD);
    }
  }
  if (rank == 0) {
    if (a != 0) {
      MGEN_Recv(lat, nsizes, MGEN_DOUBLE, a, TAG_RESULT, MGEN_COMM_WORLD, MGEN_STATUS_IGNORE);
      MGEN_Recv(bw, nsizes, MGEN_DOUBLE, a, TAG_RESULT, MGEN_COMM_WORLD, MGEN_STATUS_IGNORE);
    }
    printf("# pingpong: ranks %d <-> %d of %d, %lld iteration(s) (%lld above %d B) after %lld warm-up, window %lld\n",
           a, b, size, iters, iters_large, LARGE, warmup, window);
    printf("# %10s %14s %16s\n", "size (B)", "latency (us)", "bandwidth (MB/s)");
    for (s = 0, bytes = 0; s < nsizes; ++s, bytes = bytes ? bytes * 2 : 1) {
      if (bytes == 0) {
        printf("%12lld %14.4f %16s\n", bytes, lat[s] * 1e6, "-");
      } else {
        printf("%12lld %14.4f %16.2f\n", bytes, lat[s] * 1e6, bw[s]);
      }
    }
  }
  free(lat);
  free(bw);
  free(reqs);
  return 0;
}
