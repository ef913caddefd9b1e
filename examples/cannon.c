/* cannon — Cannon's matrix multiplication, after PPT's Fig. 5.
 *
 * C = A B for n x n matrices on p = q^2 ranks arranged as a periodic q x q Cartesian grid;
 * rank (i, j) owns the m x m blocks (m = n / q) A(i,j), B(i,j) and C(i,j).
 *
 *   skew:   shift A(i, .) left by i, B(., j) up by j          (MGEN_Sendrecv, m*m*8 bytes)
 *   q - 1 rounds of
 *           C += A B, an m^3 block multiply                   (MGEN_Comp(2 m^3 / rate))
 *           shift A left by one, B up by one
 *   then    C += A B, the last block product
 *
 * PPT's Fig. 5 is the skeleton of this: its loop has the q - 1 rounds and leaves out the last
 * block multiply; --fig5 runs exactly that skeleton. Neighbours come from MGEN_Cart_shift.
 *
 * By default the blocks are not allocated (NULL buffers: sizes only). --verify allocates real
 * double blocks filled from small integers, really multiplies them, gathers C on rank 0 with
 * point-to-point messages and compares it with a direct product there (exact: the entries are
 * small integers).
 *
 *   mgen run -n 16 examples/cannon --n 10000
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "example_util.h"

#define TAG_A 1
#define TAG_B 2
#define TAG_C 3

/* The test matrices: small integers, so every product and sum is exact in double. */
static double a_entry(long long r, long long c) {
  return (double)((r * 7 + c * 3) % 11 - 5);
}

static double b_entry(long long r, long long c) {
  return (double)((r * 5 + c * 2 + 1) % 9 - 4);
}

/* C += A B for m x m row-major blocks. */
static void block_multiply(int m, const double* a, const double* b, double* c) {
  int i, j, k;
  for (i = 0; i < m; ++i) {
    for (k = 0; k < m; ++k) {
      const double aik = a[(size_t)i * m + k];
      const double* brow = b + (size_t)k * m;
      double* crow = c + (size_t)i * m;
      for (j = 0; j < m; ++j)
        crow[j] += aik * brow[j];
    }
  }
}

/* Sends *block to dest and receives the replacement from source (MPI_Sendrecv_replace made
 * of MGEN_Sendrecv and a spare buffer; with NULL blocks only the size travels). */
static void shift(double** block, double** spare, int count, int dest, int source, int tag, MGEN_Comm comm) {
  double* t;
  MGEN_Sendrecv(*block, count, MGEN_DOUBLE, dest, tag, *spare, count, MGEN_DOUBLE, source, tag, comm,
                MGEN_STATUS_IGNORE);
  t = *block;
  *block = *spare;
  *spare = t;
}

int MGEN_Main(int argc, char** argv) {
  long long n = 1000;
  double rate = 10e9;
  int verify = 0, fig5 = 0;
  const ex_option options[] = {
      {"n", EX_INT, &n, "matrix dimension (a multiple of sqrt(p))"},
      {"rate", EX_DOUBLE, &rate, "flop rate of one rank, flop/s (10G = 10 GFLOP/s)"},
      {"verify", EX_FLAG, &verify, "real matrices: check C = A B on rank 0 (use a small n)"},
      {"fig5", EX_FLAG, &fig5, "run PPT Fig. 5's skeleton exactly: no last block multiply"},
  };
  const ex_program prog = {"cannon", "Cannon's matrix multiplication on a sqrt(p) x sqrt(p) grid (PPT Fig. 5).",
                           options, (int)(sizeof options / sizeof options[0])};
  int rank, size, q, m, row, col, round, multiplies = 0;
  int dims[2], periods[2] = {1, 1}, coords[2];
  int src, dst;
  MGEN_Comm grid;
  double *a = NULL, *b = NULL, *c = NULL, *spare_a = NULL, *spare_b = NULL;
  double t_start, t_end, comp_time, comp_total = 0, block_seconds;
  long long count;

  if (!ex_parse(&prog, argc, argv)) return 0;
  size = ex_size();
  q = (int)(sqrt((double)size) + 0.5);
  if (q * q != size) ex_die(&prog, "needs a square number of ranks, not %d", size);
  if (n < 1) ex_die(&prog, "--n must be positive, not %lld", n);
  if (n % q != 0) ex_die(&prog, "--n %lld is not a multiple of sqrt(p) = %d", n, q);
  if (!(rate > 0)) ex_die(&prog, "--rate must be positive");
  if (verify && n > 2048) ex_die(&prog, "--verify multiplies real matrices: use --n 2048 or less, not %lld", n);
  m = (int)(n / q);
  count = (long long)m * m;
  if (count > 2147483647LL / 8) ex_die(&prog, "blocks of %d x %d are too large for one message", m, m);

  dims[0] = dims[1] = q;
  MGEN_Cart_create(MGEN_COMM_WORLD, 2, dims, periods, 0, &grid);
  MGEN_Comm_rank(grid, &rank);
  MGEN_Cart_coords(grid, rank, 2, coords);
  row = coords[0];
  col = coords[1];
  block_seconds = 2.0 * (double)m * (double)m * (double)m / rate;

  if (verify) {
    int i, j;
    a = (double*)malloc(sizeof(double) * (size_t)count);
    b = (double*)malloc(sizeof(double) * (size_t)count);
    c = (double*)calloc((size_t)count, sizeof(double));
    spare_a = (double*)malloc(sizeof(double) * (size_t)count);
    spare_b = (double*)malloc(sizeof(double) * (size_t)count);
    for (i = 0; i < m; ++i) {
      for (j = 0; j < m; ++j) {
        a[(size_t)i * m + j] = a_entry((long long)row * m + i, (long long)col * m + j);
        b[(size_t)i * m + j] = b_entry((long long)row * m + i, (long long)col * m + j);
      }
    }
  }
  if (rank == 0) {
    printf(
        "cannon: n = %lld on %d ranks (%d x %d grid, %d x %d blocks, %lld bytes per shift), %.3g GFLOP/s per rank%s\n",
        n, size, q, q, m, m, count * 8, rate * 1e-9, fig5 ? ", PPT Fig. 5 skeleton" : "");
  }

  MGEN_Barrier(grid);
  t_start = MGEN_Wtime();
  /* Skew: A(i, j) goes i columns left, B(i, j) goes j rows up. */
  if (row % q != 0) {
    MGEN_Cart_shift(grid, 1, -row, &src, &dst);
    shift(&a, &spare_a, (int)count, dst, src, TAG_A, grid);
  }
  if (col % q != 0) {
    MGEN_Cart_shift(grid, 0, -col, &src, &dst);
    shift(&b, &spare_b, (int)count, dst, src, TAG_B, grid);
  }
  for (round = 0; round < q; ++round) {
    const int last = round == q - 1;
    if (last && fig5) break;
    comp_time = MGEN_Wtime();
    if (verify) block_multiply(m, a, b, c);
    MGEN_Comp(block_seconds);
    comp_total += MGEN_Wtime() - comp_time;
    ++multiplies;
    if (last) break;
    MGEN_Cart_shift(grid, 1, -1, &src, &dst); /* A to the left */
    shift(&a, &spare_a, (int)count, dst, src, TAG_A, grid);
    MGEN_Cart_shift(grid, 0, -1, &src, &dst); /* B upwards */
    shift(&b, &spare_b, (int)count, dst, src, TAG_B, grid);
  }
  t_end = MGEN_Wtime();

  {
    double tmin = 0, tsum = 0, tmax = 0;
    ex_gather_stat(t_end - t_start, &tmin, &tsum, &tmax);
    if (rank == 0) {
      char x[32], y[32], z[32];
      const double flops = 2.0 * (double)n * (double)n * (double)n * (fig5 ? (double)(q - 1) / q : 1.0);
      printf("time: %s (slowest rank), %s (fastest); computation %s per rank in %d block multiplies\n",
             ex_time(tmax, x, sizeof x), ex_time(tmin, y, sizeof y), ex_time(comp_total, z, sizeof z), multiplies);
      printf("rate: %.4f GFLOP/s in total, %.1f%% of %d x %.3g GFLOP/s\n", tmax > 0 ? flops / tmax * 1e-9 : 0.0,
             tmax > 0 ? 100.0 * flops / tmax / (rate * size) : 0.0, size, rate * 1e-9);
    }
  }

  if (verify) {
    if (rank != 0) {
      MGEN_Send(c, (int)count, MGEN_DOUBLE, 0, TAG_C, grid);
    } else {
      /* Gather C block by block and compare it with a direct product of A and B. */
      double* block = (double*)malloc(sizeof(double) * (size_t)count);
      double max_error = 0;
      long long wrong = 0, i, j, k;
      int r;
      for (r = 0; r < size; ++r) {
        int rc[2];
        const double* got = c;
        if (r != 0) {
          MGEN_Recv(block, (int)count, MGEN_DOUBLE, r, TAG_C, grid, MGEN_STATUS_IGNORE);
          got = block;
        }
        MGEN_Cart_coords(grid, r, 2, rc);
        for (i = 0; i < m; ++i) {
          const long long gi = (long long)rc[0] * m + i;
          for (j = 0; j < m; ++j) {
            const long long gj = (long long)rc[1] * m + j;
            double want = 0, err;
            for (k = 0; k < n; ++k)
              want += a_entry(gi, k) * b_entry(k, gj);
            err = fabs(got[(size_t)i * m + j] - want);
            if (err > max_error) max_error = err;
            if (err != 0) ++wrong;
          }
        }
      }
      free(block);
      if (fig5) {
        printf("verify: %s (expected with --fig5: the skeleton leaves out the last block product)\n",
               wrong ? "C differs from A B" : "C = A B");
      } else if (wrong) {
        printf("verify: FAILED, %lld of %lld entries of C differ from A B (max error %g)\n", wrong, n * n, max_error);
        fflush(stdout);
        MGEN_Abort(MGEN_COMM_WORLD, 2);
      } else {
        printf("verify: ok, C = A B in all %lld entries\n", n * n);
      }
    }
  }
  free(a);
  free(b);
  free(c);
  free(spare_a);
  free(spare_b);
  MGEN_Comm_free(&grid);
  return 0;
}
