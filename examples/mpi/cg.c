/* cg — conjugate gradients (Hestenes & Stiefel 1952) on a 1-D decomposed tridiagonal system.
 *
 * Solves A x = b with A = tridiag(-1, 4, -1) of order N (default 1000) and b = A x* for
 * x*_i = (i mod 17) / 4, the vectors split into contiguous blocks. Rank 0 reads N and the
 * iteration count (default 25) and sends them with one MPI_Bcast. Each iteration exchanges one
 * ghost value of p with each neighbour by two MPI_Sendrecv (MPI_PROC_NULL at the ends, whose
 * ghosts stay 0), then takes two dot products with MPI_Allreduce; one more Allreduce starts
 * the loop. A fixed-point checksum of x is summed to rank 0 with MPI_Reduce.
 *
 * Check: every rank repeats the solve sequentially and compares its block. A is well
 * conditioned (eigenvalues in (2, 6)), so 25 iterations reach x* to rounding and RESULT
 * equals the closed-form checksum at every rank count.
 *
 *   mpiexec -n 4 ./cg [N [iterations]]
 */
#include <math.h>

#include "mpi_counts.h"

#define SCALE 1e6 /* checksum resolution */

static int left, right, dsize; /* neighbour ranks and MPI_DOUBLE's size */

/* Fills p's ghosts p[0] and p[m + 1] from the neighbours' edge values. */
static void exchange(double* p, int m) {
  COUNTED(MPI_Sendrecv, dsize, &p[1], 1, MPI_DOUBLE, left, 0, &p[m + 1], 1, MPI_DOUBLE, right, 0, MPI_COMM_WORLD,
          MPI_STATUS_IGNORE);
  COUNTED(MPI_Sendrecv, dsize, &p[m], 1, MPI_DOUBLE, right, 1, &p[0], 1, MPI_DOUBLE, left, 1, MPI_COMM_WORLD,
          MPI_STATUS_IGNORE);
}

static double dot(const double* a, const double* b, int m, int parallel) {
  double local = 0, global = 0;
  for (int i = 0; i < m; i++)
    local += a[i] * b[i];
  if (!parallel) return local;
  COUNTED(MPI_Allreduce, dsize, &local, &global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return global;
}

static double exact(long i) {
  return (double)(i % 17) / 4;
}

/* iters CG steps from x = 0 on rows [lo, lo + m) of n; alone (parallel = 0) it makes no MPI
 * calls and m must be n. */
static void cg(double* x, long lo, int m, long n, int iters, int parallel) {
  double* b = malloc(sizeof(double) * (size_t)m);
  double* r = malloc(sizeof(double) * (size_t)m);
  double* p = calloc((size_t)m + 2, sizeof(double)); /* with ghosts p[0] and p[m + 1] */
  double* q = malloc(sizeof(double) * (size_t)m);
  for (int i = 0; i < m; i++) {
    const long g = lo + i;
    b[i] = 4 * exact(g) - (g > 0 ? exact(g - 1) : 0) - (g < n - 1 ? exact(g + 1) : 0);
    x[i] = 0;
    r[i] = p[i + 1] = b[i];
  }
  double rr = dot(r, r, m, parallel);
  for (int it = 0; it < iters; it++) {
    if (parallel) exchange(p, m);
    for (int i = 0; i < m; i++)
      q[i] = 4 * p[i + 1] - p[i] - p[i + 2];
    const double pq = dot(p + 1, q, m, parallel);
    const double alpha = pq != 0 ? rr / pq : 0; /* 0 once r is exactly 0 */
    for (int i = 0; i < m; i++) {
      x[i] += alpha * p[i + 1];
      r[i] -= alpha * q[i];
    }
    const double rr_new = dot(r, r, m, parallel);
    const double beta = rr != 0 ? rr_new / rr : 0;
    for (int i = 0; i < m; i++)
      p[i + 1] = r[i] + beta * p[i + 1];
    rr = rr_new;
  }
  free(b);
  free(r);
  free(p);
  free(q);
}

int main(int argc, char** argv) {
  int rank, size;
  COUNTED(MPI_Init, 0, &argc, &argv);
  COUNTED(MPI_Comm_rank, 0, MPI_COMM_WORLD, &rank);
  COUNTED(MPI_Comm_size, 0, MPI_COMM_WORLD, &size);
  dsize = counted_type_size(MPI_DOUBLE);
  const int isize = counted_type_size(MPI_INT), lsize = counted_type_size(MPI_LONG_LONG);

  int params[2] = {1000, 25}; /* N, iterations */
  if (rank == 0) {
    if (argc > 1) params[0] = atoi(argv[1]);
    if (argc > 2) params[1] = atoi(argv[2]);
  }
  COUNTED(MPI_Bcast, 2 * isize, params, 2, MPI_INT, 0, MPI_COMM_WORLD);
  const long n = params[0];
  if (n < size || params[1] < 0) {
    if (rank == 0) fprintf(stderr, "cg: need N >= the number of ranks and iterations >= 0\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  const long lo = rank * n / size;
  const int m = (int)((rank + 1) * n / size - lo);
  left = rank > 0 ? rank - 1 : MPI_PROC_NULL;
  right = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;

  double* x = malloc(sizeof(double) * (size_t)m);
  double* ref = malloc(sizeof(double) * (size_t)n);
  cg(x, lo, m, n, params[1], 1);
  cg(ref, 0, (int)n, n, params[1], 0);

  long long local_sum = 0, sum = 0;
  for (int i = 0; i < m; i++) {
    if (fabs(x[i] - ref[lo + i]) > 1e-9 * (1 + fabs(ref[lo + i]))) {
      fprintf(stderr, "cg: rank %d: x[%ld] = %.17g, sequentially %.17g\n", rank, lo + i, x[i], ref[lo + i]);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    local_sum += llround(x[i] * SCALE);
  }
  COUNTED(MPI_Reduce, lsize, &local_sum, &sum, 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    long long ref_sum = 0;
    for (long i = 0; i < n; i++)
      ref_sum += llround(ref[i] * SCALE);
    if (llabs(sum - ref_sum) > n) { /* each term may round the other way */
      fprintf(stderr, "cg: checksum %lld, sequentially %lld\n", sum, ref_sum);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    printf("RESULT cg %lld\nOK\n", sum);
  }
  free(x);
  free(ref);
  return counted_finalize(rank);
}
