/* The micro-benchmarks of `mgen calibrate`.
 *
 * One source, built twice: with MPICH's mpicc and run under mpiexec (the measurement of this
 * host), and with mgen-cc and run under `mgen run` on the fitted machine (the check that the
 * machine file reproduces the measurement). Rank 0 prints one line per result on stdout:
 *
 *   calib 1 RANKS                                   header (format version, world size)
 *   pingpong BYTES USEC P25 P75 BATCHES BEST        one-way time of a blocking ping-pong
 *   stream BYTES MBPS P25 P75 BATCHES BEST          one-way streaming: a window of Isends
 *   overhead NAME USEC P25 P75 BATCHES BEST         per call: wtime, iprobe, isend, irecv
 *   copy BYTES MBPS P25 P75 BATCHES BEST            memcpy on rank 0 alone
 *   compute gflops VALUE P25 P75 BATCHES BEST       a dense kernel on every rank at once
 *   compute stream MBPS P25 P75 BATCHES BEST        a STREAM triad on every rank at once
 *   kernel NAME USEC P25 P75 BATCHES BEST           the two kernels' times (for the CPU scale)
 *   end
 *
 * Every value is the median of batches, with the quartiles and the fastest batch (BEST: the
 * least time, or the highest rate); a batch is timed with MPI_Wtime and is long enough to
 * cover the clock's resolution many times. Batches repeat until the interquartile range is
 * within MGEN_CALIB_TOL (default 0.02) of the median, at least 5 and at most MGEN_CALIB_BATCHES
 * (default 25). Rank 0 decides and tells the others, so every rank runs the same loops.
 * Arguments: [max bytes (default 16 MiB)] [batch seconds (default 0.002)]. MGEN_CALIB_COMM_ONLY=1
 * skips the memcpy and compute kernels (mgen's check runs without charging computation).
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;
static double tolerance = 0.02;
static int max_batches = 25;
static double batch_seconds = 0.002;

static int compare_doubles(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

/* The q-quantile of v[0..n) (sorts v). */
static double quantile(double* v, int n, double q) {
  qsort(v, (size_t)n, sizeof *v, compare_doubles);
  const double pos = q * (n - 1);
  const int i = (int)pos;
  if (i + 1 >= n) return v[n - 1];
  return v[i] + (pos - i) * (v[i + 1] - v[i]);
}

typedef struct {
  double median, p25, p75, best;
  int batches;
} Result;

/* Runs batch(arg, iters) until the spread is small; batch returns the time of `iters`
 * repetitions on the calling rank. Rank 0's times decide; the result is per repetition. */
static Result measure(double (*batch)(void*, long), void* arg) {
  long iters = 1;
  /* Grow the batch until it lasts batch_seconds (rank 0's clock; everyone follows). */
  for (;;) {
    double t = batch(arg, iters);
    /* A clock that does not move (a simulation that charges no computation) ends the growth. */
    int enough = t >= batch_seconds || iters >= (1L << 30) || (t <= 0 && iters >= (1L << 16));
    MPI_Bcast(&enough, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (enough) break;
    long next = t > 0 ? (long)(iters * 1.5 * batch_seconds / t) + 1 : iters * 8;
    if (next > iters * 8) next = iters * 8;
    if (next <= iters) next = iters + 1;
    MPI_Bcast(&next, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    iters = next;
  }
  double times[256], sorted[256];
  int n = 0;
  Result r;
  for (;;) {
    times[n++] = batch(arg, iters) / (double)iters;
    int done = 0;
    if (rank == 0 && n >= 5) {
      memcpy(sorted, times, sizeof(double) * (size_t)n);
      const double med = quantile(sorted, n, 0.5);
      const double iqr = quantile(sorted, n, 0.75) - quantile(sorted, n, 0.25);
      done = iqr <= tolerance * med || n >= max_batches;
    }
    MPI_Bcast(&done, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (done) break;
  }
  memcpy(sorted, times, sizeof(double) * (size_t)n);
  r.median = quantile(sorted, n, 0.5);
  r.p25 = quantile(sorted, n, 0.25);
  r.p75 = quantile(sorted, n, 0.75);
  r.best = sorted[0];
  r.batches = n;
  return r;
}

static void print_result(const char* what, const char* key, Result r, double scale) {
  if (rank != 0) return;
  printf("%s %s %.6g %.6g %.6g %d %.6g\n", what, key, r.median * scale, r.p25 * scale, r.p75 * scale, r.batches,
         r.best * scale);
  fflush(stdout);
}

/* A result whose unit is a rate: the quantiles swap ends. */
static Result as_rate(Result r, double amount) {
  Result q = r;
  q.median = amount / r.median;
  q.p25 = amount / r.p75;
  q.p75 = amount / r.p25;
  q.best = amount / r.best;
  return q;
}

typedef struct {
  char* buf;
  long bytes;
  int window;
  MPI_Request* reqs;
} P2p;

/* Ranks 0 and 1 bounce a message; the others wait. Time per repetition = one round trip. */
static double pingpong_batch(void* arg, long iters) {
  P2p* p = arg;
  const int n = (int)p->bytes;
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  if (rank == 0) {
    for (long i = 0; i < iters; ++i) {
      MPI_Send(p->buf, n, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
      MPI_Recv(p->buf, n, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
  } else if (rank == 1) {
    for (long i = 0; i < iters; ++i) {
      MPI_Recv(p->buf, n, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(p->buf, n, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
    }
  }
  return MPI_Wtime() - t0;
}

/* Rank 0 streams a window of messages to rank 1, which answers each window with 4 bytes. */
static double stream_batch(void* arg, long iters) {
  P2p* p = arg;
  const int n = (int)p->bytes;
  char ack[4] = {0};
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  for (long i = 0; i < iters; ++i) {
    if (rank == 0) {
      for (int w = 0; w < p->window; ++w)
        MPI_Isend(p->buf, n, MPI_BYTE, 1, 2, MPI_COMM_WORLD, &p->reqs[w]);
      MPI_Waitall(p->window, p->reqs, MPI_STATUSES_IGNORE);
      MPI_Recv(ack, 4, MPI_BYTE, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
      for (int w = 0; w < p->window; ++w)
        MPI_Irecv(p->buf, n, MPI_BYTE, 0, 2, MPI_COMM_WORLD, &p->reqs[w]);
      MPI_Waitall(p->window, p->reqs, MPI_STATUSES_IGNORE);
      MPI_Send(ack, 4, MPI_BYTE, 0, 3, MPI_COMM_WORLD);
    }
  }
  return MPI_Wtime() - t0;
}

/* Per-call costs on rank 0, in batches of `window` calls. */
static double wtime_batch(void* arg, long iters) {
  (void)arg;
  volatile double sink = 0;
  const double t0 = MPI_Wtime();
  if (rank == 0)
    for (long i = 0; i < iters; ++i)
      sink += MPI_Wtime();
  (void)sink;
  return MPI_Wtime() - t0;
}

static double iprobe_batch(void* arg, long iters) {
  (void)arg;
  int flag = 0;
  const double t0 = MPI_Wtime();
  if (rank == 0)
    for (long i = 0; i < iters; ++i)
      MPI_Iprobe(MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
  return MPI_Wtime() - t0;
}

/* The time of posting `window` 8-byte Isends (rank 0) or Irecvs (rank 0, matched afterwards by
 * rank 1), per repetition of the whole window; completion is outside the timed part. */
static double post_batch(P2p* p, long iters, int sends) {
  double spent = 0;
  for (long i = 0; i < iters; ++i) {
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
      const double t0 = MPI_Wtime();
      for (int w = 0; w < p->window; ++w) {
        if (sends)
          MPI_Isend(p->buf + 8 * w, 8, MPI_BYTE, 1, 4, MPI_COMM_WORLD, &p->reqs[w]);
        else
          MPI_Irecv(p->buf + 8 * w, 8, MPI_BYTE, 1, 4, MPI_COMM_WORLD, &p->reqs[w]);
      }
      spent += MPI_Wtime() - t0;
      if (!sends) MPI_Send(p->buf, 0, MPI_BYTE, 1, 5, MPI_COMM_WORLD);
      MPI_Waitall(p->window, p->reqs, MPI_STATUSES_IGNORE);
    } else if (rank == 1) {
      if (!sends) MPI_Recv(p->buf, 0, MPI_BYTE, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      for (int w = 0; w < p->window; ++w) {
        if (sends)
          MPI_Irecv(p->buf + 8 * w, 8, MPI_BYTE, 0, 4, MPI_COMM_WORLD, &p->reqs[w]);
        else
          MPI_Isend(p->buf + 8 * w, 8, MPI_BYTE, 0, 4, MPI_COMM_WORLD, &p->reqs[w]);
      }
      MPI_Waitall(p->window, p->reqs, MPI_STATUSES_IGNORE);
    }
  }
  MPI_Bcast(&spent, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  return spent;
}
static double isend_batch(void* arg, long iters) { return post_batch(arg, iters, 1); }
static double irecv_batch(void* arg, long iters) { return post_batch(arg, iters, 0); }

typedef struct {
  char *dst, *src;
  long bytes;
} Copy;

static double copy_batch(void* arg, long iters) {
  Copy* c = arg;
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  if (rank == 0)
    for (long i = 0; i < iters; ++i) {
      memcpy(c->dst, c->src, (size_t)c->bytes);
      __asm__ volatile("" : : "r"(c->dst) : "memory"); /* keep every copy */
    }
  return MPI_Wtime() - t0;
}

/* The slowest rank's time since t0 (every rank's work counts, as in a bulk-synchronous program). */
static double slowest_since(double t0) {
  double t = MPI_Wtime() - t0, worst = 0;
  MPI_Allreduce(&t, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return worst;
}

/* Dense kernel: C += A B on n x n blocks that stay in cache, 2 n^3 flops; every rank at once,
 * the slowest rank's time counts (as a bulk-synchronous program would see it). */
enum { kDim = 96 };
typedef struct {
  double *a, *b, *c;
} Dense;

static double dense_batch(void* arg, long iters) {
  Dense* d = arg;
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  for (long it = 0; it < iters; ++it) {
    for (int i = 0; i < kDim; ++i)
      for (int k = 0; k < kDim; ++k) {
        const double aik = d->a[i * kDim + k];
        for (int j = 0; j < kDim; ++j)
          d->c[i * kDim + j] += aik * d->b[k * kDim + j];
      }
    __asm__ volatile("" : : "r"(d->c) : "memory");
  }
  return slowest_since(t0);
}

/* STREAM triad a = b + s c on arrays far larger than the caches; every rank at once. */
typedef struct {
  double *a, *b, *c;
  long n;
} Triad;

static double triad_batch(void* arg, long iters) {
  Triad* t = arg;
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  for (long it = 0; it < iters; ++it) {
    for (long i = 0; i < t->n; ++i)
      t->a[i] = t->b[i] + 3.0 * t->c[i];
    __asm__ volatile("" : : "r"(t->a) : "memory");
  }
  return slowest_since(t0);
}

static void* checked_malloc(size_t bytes) {
  void* p = malloc(bytes);
  if (p == NULL) {
    fprintf(stderr, "calib: rank %d: cannot allocate %zu bytes\n", rank, bytes);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  memset(p, 1, bytes);
  return p;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  long max_bytes = argc > 1 ? atol(argv[1]) : 16L << 20;
  if (argc > 2) batch_seconds = atof(argv[2]);
  const char* env = getenv("MGEN_CALIB_TOL");
  if (env != NULL) tolerance = atof(env);
  env = getenv("MGEN_CALIB_BATCHES");
  if (env != NULL) max_batches = atoi(env);
  if (max_batches < 5) max_batches = 5;
  if (max_batches > 256) max_batches = 256;
  if (size < 2) {
    if (rank == 0) fprintf(stderr, "calib: needs at least 2 ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  if (rank == 0) {
    printf("calib 1 %d\n", size);
    fflush(stdout);
  }

  enum { kWindow = 64 };
  MPI_Request reqs[kWindow];
  P2p p = {checked_malloc((size_t)max_bytes + 8 * kWindow), 0, kWindow, reqs};

  /* Per-call costs first, while nothing else has touched MPI's queues. */
  p.window = kWindow;
  print_result("overhead", "wtime", measure(wtime_batch, &p), 1e6);
  print_result("overhead", "iprobe", measure(iprobe_batch, &p), 1e6);
  print_result("overhead", "isend", measure(isend_batch, &p), 1e6 / kWindow);
  print_result("overhead", "irecv", measure(irecv_batch, &p), 1e6 / kWindow);

  char key[32];
  for (long bytes = 1; bytes <= max_bytes; bytes *= 2) {
    p.bytes = bytes;
    snprintf(key, sizeof key, "%ld", bytes);
    print_result("pingpong", key, measure(pingpong_batch, &p), 1e6 / 2);
  }
  for (long bytes = 1; bytes <= max_bytes; bytes *= 2) {
    p.bytes = bytes;
    /* At most 64 MiB in flight per window. */
    p.window = bytes * kWindow > (64L << 20) ? (int)((64L << 20) / bytes) : kWindow;
    if (p.window < 1) p.window = 1;
    snprintf(key, sizeof key, "%ld", bytes);
    print_result("stream", key, as_rate(measure(stream_batch, &p), (double)bytes * p.window / 1e6), 1);
  }

  env = getenv("MGEN_CALIB_COMM_ONLY");
  if (env != NULL && atoi(env) != 0) {
    if (rank == 0) printf("end\n");
    fflush(stdout);
    free(p.buf);
    MPI_Finalize();
    return 0;
  }

  Copy c = {checked_malloc(64L << 20), checked_malloc(64L << 20), 0};
  for (long bytes = 4096; bytes <= (64L << 20); bytes *= 4) {
    c.bytes = bytes;
    snprintf(key, sizeof key, "%ld", bytes);
    print_result("copy", key, as_rate(measure(copy_batch, &c), (double)bytes / 1e6), 1);
  }
  free(c.dst);
  free(c.src);

  Dense d = {checked_malloc(sizeof(double) * kDim * kDim), checked_malloc(sizeof(double) * kDim * kDim),
             checked_malloc(sizeof(double) * kDim * kDim)};
  for (int i = 0; i < kDim * kDim; ++i) {
    d.a[i] = 1.0 / (i + 1);
    d.b[i] = 0.5;
    d.c[i] = 0;
  }
  const Result dense = measure(dense_batch, &d);
  print_result("kernel", "dense", dense, 1e6);
  print_result("compute", "gflops", as_rate(dense, 2.0 * kDim * kDim * kDim / 1e9), 1);

  const long n = 4L << 20; /* 3 arrays of 32 MiB */
  Triad t = {checked_malloc(sizeof(double) * n), checked_malloc(sizeof(double) * n), checked_malloc(sizeof(double) * n),
             n};
  const Result triad = measure(triad_batch, &t);
  print_result("kernel", "triad", triad, 1e6);
  print_result("compute", "stream", as_rate(triad, 24.0 * n / 1e6), 1);

  if (rank == 0) {
    printf("end\n");
    fflush(stdout);
  }
  free(p.buf);
  MPI_Finalize();
  return 0;
}
