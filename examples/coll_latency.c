/* coll_latency — OSU-style latency sweeps of the collectives.
 *
 * For each collective (barrier, bcast, allreduce, reduce, allgather, alltoall; --colls picks
 * some) and each message size 4 B, 8 B, ... up to --max, every rank calls it --warmup times,
 * then --iters times timed; its time per call is the measured time over --iters. Rank 0 prints
 * one table per collective: the mean, minimum and maximum over ranks of the time per call.
 * Sizes are per rank, as in the OSU benchmarks: the buffer of bcast, allreduce and reduce, one
 * rank's block for allgather and alltoall. A barrier separates sizes. Roots are rank 0.
 *
 * By default buffers are NULL (sizes only, reductions not computed). --data uses real int
 * buffers and checks every result (allgather and alltoall then need p x max bytes per buffer).
 *
 * The collectives beyond MGEN_Barrier, MGEN_Bcast and MGEN_Allgather are referenced weakly, so
 * this program loads into an mgen that lacks some of them and reports those as unavailable.
 *
 *   mgen run -n 64 examples/coll_latency --max 64K
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "example_util.h"

#pragma weak MGEN_Reduce
#pragma weak MGEN_Allreduce
#pragma weak MGEN_Alltoall
#pragma weak MGEN_Allgather
#pragma weak MGEN_Bcast

enum { BARRIER, BCAST, ALLREDUCE, REDUCE, ALLGATHER, ALLTOALL, NCOLLS };
static const char* const coll_names[NCOLLS] = {"barrier", "bcast", "allreduce", "reduce", "allgather", "alltoall"};

static int available(int coll) {
  switch (coll) {
    case BCAST:
      return MGEN_Bcast != NULL;
    case ALLREDUCE:
      return MGEN_Allreduce != NULL;
    case REDUCE:
      return MGEN_Reduce != NULL;
    case ALLGATHER:
      return MGEN_Allgather != NULL;
    case ALLTOALL:
      return MGEN_Alltoall != NULL;
    default:
      return 1;
  }
}

/* Buffers for --data (NULL otherwise), sized for the largest call. */
typedef struct buffers {
  int* send;
  int* recv;
} buffers;

static void call(int coll, int count, const buffers* buf) {
  switch (coll) {
    case BARRIER:
      MGEN_Barrier(MGEN_COMM_WORLD);
      break;
    case BCAST:
      MGEN_Bcast(buf->recv, count, MGEN_INT, 0, MGEN_COMM_WORLD);
      break;
    case ALLREDUCE:
      MGEN_Allreduce(buf->send, buf->recv, count, MGEN_INT, MGEN_SUM, MGEN_COMM_WORLD);
      break;
    case REDUCE:
      MGEN_Reduce(buf->send, buf->recv, count, MGEN_INT, MGEN_SUM, 0, MGEN_COMM_WORLD);
      break;
    case ALLGATHER:
      MGEN_Allgather(buf->send, count, MGEN_INT, buf->recv, count, MGEN_INT, MGEN_COMM_WORLD);
      break;
    case ALLTOALL:
      MGEN_Alltoall(buf->send, count, MGEN_INT, buf->recv, count, MGEN_INT, MGEN_COMM_WORLD);
      break;
  }
}

/* What rank `from` contributes at element i of its block for rank `to`. */
static int value(int from, int to, int i) {
  return (int)(((long long)from * 7919 + (long long)to * 31 + i) % 1000003);
}

/* Fills the buffers before a size's calls; the receive buffer gets garbage. */
static void fill(int coll, int count, int rank, int size, const buffers* buf) {
  int i, j;
  const int blocks = (coll == ALLTOALL) ? size : 1;
  for (j = 0; j < blocks; ++j) {
    for (i = 0; i < count; ++i)
      buf->send[(size_t)j * count + i] = coll == ALLTOALL ? value(rank, j, i) : value(rank, 0, i);
  }
  memset(buf->recv, 0xA5, sizeof(int) * (size_t)count * (size_t)(coll == ALLGATHER || coll == ALLTOALL ? size : 1));
  if (coll == BCAST && rank == 0) {
    for (i = 0; i < count; ++i)
      buf->recv[i] = value(0, 0, i);
  }
}

/* Wrong elements after a size's calls. */
static long long check(int coll, int count, int rank, int size, const buffers* buf) {
  long long wrong = 0;
  int i, j;
  for (i = 0; i < count; ++i) {
    switch (coll) {
      case BCAST:
        wrong += buf->recv[i] != value(0, 0, i);
        break;
      case ALLREDUCE:
      case REDUCE: {
        long long sum = 0;
        if (coll == REDUCE && rank != 0) break;
        for (j = 0; j < size; ++j)
          sum += value(j, 0, i);
        wrong += buf->recv[i] != (int)sum;
        break;
      }
      case ALLGATHER:
        for (j = 0; j < size; ++j)
          wrong += buf->recv[(size_t)j * count + i] != value(j, 0, i);
        break;
      case ALLTOALL:
        for (j = 0; j < size; ++j)
          wrong += buf->recv[(size_t)j * count + i] != value(j, rank, i);
        break;
      default:
        break;
    }
  }
  return wrong;
}

int MGEN_Main(int argc, char** argv) {
  long long min = 4, max = 1048576, iters = 10, iters_large = 4, warmup = 2;
  int data = 0;
  const char* colls = "barrier,bcast,allreduce,reduce,allgather,alltoall";
  const ex_option options[] = {
      {"min", EX_INT, &min, "smallest size in bytes (a multiple of 4)"},
      {"max", EX_INT, &max, "largest size in bytes"},
      {"iters", EX_INT, &iters, "timed calls per size"},
      {"iters-large", EX_INT, &iters_large, "timed calls per size above 64 KiB"},
      {"warmup", EX_INT, &warmup, "untimed calls per size first"},
      {"colls", EX_STRING, &colls, "comma-separated collectives to measure"},
      {"data", EX_FLAG, &data, "real buffers; check every result"},
  };
  const ex_program prog = {"coll_latency", "OSU-style latency of the collectives over message sizes.", options,
                           (int)(sizeof options / sizeof options[0])};
  int rank, size, c, s, nsizes = 0, wanted[NCOLLS] = {0};
  long long bytes, i, wrong = 0;
  double *t, *tmin = NULL, *tsum = NULL, *tmax = NULL, wrong_total = 0;
  buffers buf = {NULL, NULL};

  if (!ex_parse(&prog, argc, argv)) return 0;
  rank = ex_rank();
  size = ex_size();
  if (min < 4 || min % 4 != 0) ex_die(&prog, "--min must be a positive multiple of 4, not %lld", min);
  if (max < min || max > 1073741824LL) ex_die(&prog, "--max must be in [--min, 1 GiB], not %lld", max);
  if (iters < 1 || iters_large < 1 || warmup < 0) ex_die(&prog, "need --iters >= 1, --iters-large >= 1, --warmup >= 0");
  {
    const char* p = colls;
    while (*p) {
      size_t len = strcspn(p, ",");
      int found = 0;
      for (c = 0; c < NCOLLS; ++c) {
        if (strlen(coll_names[c]) == len && strncmp(coll_names[c], p, len) == 0) wanted[c] = found = 1;
      }
      if (!found) ex_die(&prog, "--colls: unknown collective '%.*s'", (int)len, p);
      p += len;
      if (*p == ',') ++p;
    }
  }
  for (bytes = min; bytes <= max; bytes *= 2)
    ++nsizes;
  if (data && size > 2000) ex_die(&prog, "--data: the checked sums fit an int only up to 2000 ranks");
  if (data) {
    const size_t ints = (size_t)(max / 4) * (size_t)size;
    buf.send = (int*)malloc(sizeof(int) * ints);
    buf.recv = (int*)malloc(sizeof(int) * ints);
    if (!buf.send || !buf.recv) ex_die(&prog, "--data: cannot allocate 2 x %zu bytes", sizeof(int) * ints);
  }
  t = (double*)calloc((size_t)NCOLLS * (size_t)nsizes, sizeof(double));
  if (rank == 0) {
    tmin = (double*)calloc((size_t)NCOLLS * (size_t)nsizes, sizeof(double));
    tsum = (double*)calloc((size_t)NCOLLS * (size_t)nsizes, sizeof(double));
    tmax = (double*)calloc((size_t)NCOLLS * (size_t)nsizes, sizeof(double));
  }

  for (c = 0; c < NCOLLS; ++c) {
    if (!wanted[c] || !available(c)) continue;
    for (s = 0, bytes = min; s < (c == BARRIER ? 1 : nsizes); ++s, bytes *= 2) {
      const int count = (int)(bytes / 4);
      const long long n = bytes > 65536 ? iters_large : iters;
      double t0 = 0;
      if (data) fill(c, count, rank, size, &buf);
      MGEN_Barrier(MGEN_COMM_WORLD);
      for (i = 0; i < warmup + n; ++i) {
        if (i == warmup) t0 = MGEN_Wtime();
        call(c, count, &buf);
      }
      t[c * nsizes + s] = (MGEN_Wtime() - t0) / (double)n;
      if (data) wrong += check(c, count, rank, size, &buf);
    }
  }

  ex_gather_stats(t, NCOLLS * nsizes, tmin, tsum, tmax);
  ex_gather_stat((double)wrong, NULL, &wrong_total, NULL);
  if (rank == 0) {
    printf(
        "# coll_latency: %d ranks, sizes %lld..%lld B, %lld timed call(s) per size (%lld above 64 KiB) after %lld "
        "warm-up, %s buffers\n",
        size, min, max, iters, iters_large, warmup, data ? "real (checked)" : "size-only");
    for (c = 0; c < NCOLLS; ++c) {
      if (!wanted[c]) continue;
      if (!available(c)) {
        printf("\n# %s: not available (this mgen does not define MGEN_%c%s)\n", coll_names[c], coll_names[c][0] - 32,
               coll_names[c] + 1);
        continue;
      }
      printf("\n# %s\n", coll_names[c]);
      printf("# %10s %14s %14s %14s\n", "size (B)", "avg (us)", "min (us)", "max (us)");
      for (s = 0, bytes = min; s < (c == BARRIER ? 1 : nsizes); ++s, bytes *= 2) {
        const int k = c * nsizes + s;
        if (c == BARRIER) {
          printf("%12s %14.4f %14.4f %14.4f\n", "-", tsum[k] / size * 1e6, tmin[k] * 1e6, tmax[k] * 1e6);
        } else {
          printf("%12lld %14.4f %14.4f %14.4f\n", bytes, tsum[k] / size * 1e6, tmin[k] * 1e6, tmax[k] * 1e6);
        }
      }
    }
    if (data) {
      if (wrong_total > 0) {
        printf("\ndata check: FAILED, %.0f wrong element(s)\n", wrong_total);
        fflush(stdout);
        MGEN_Abort(MGEN_COMM_WORLD, 2);
      }
      printf("\ndata check: ok\n");
    }
  }
  free(t);
  free(tmin);
  free(tsum);
  free(tmax);
  free(buf.send);
  free(buf.recv);
  return 0;
}
