/* halo.c - a small 2-D Jacobi iteration with halo exchange (an example application).
 *
 * The global grid of NX x NY interior points (sized from the process grid, so that blocks are
 * uneven) with a fixed boundary is split over a non-periodic 2-D Cartesian communicator
 * (Dims_create, Cart_create, Cart_shift, Cart_coords). Each iteration exchanges halos with the
 * four neighbours using Isend/Irecv + Waitall (rows contiguous, columns as an MPI_Type_vector;
 * MPI_PROC_NULL at the domain boundary), updates the points and combines the residual (sum and
 * maximum of |change|) with Allreduce. Rank 0 runs the same iteration sequentially on the whole
 * grid and checks every residual and, after a Gatherv of the blocks, every final value exactly.
 * All values are dyadic rationals with few bits, so every sum is exact and independent of the
 * reduction order.
 */
#include <math.h>
#include "check.h"

enum { ITERS = 8 };

static double boundary(int i, int j) {
  return (double)((i * 5 + j * 3) % 17);
}
static double initial(int i, int j) {
  return (double)((i * 7 + j * 11) % 13);
}
static int block_start(int c, int n, int d) {
  return (int)((long long)c * n / d);
}

/* one Jacobi sweep over the interior of a (rows+2) x (cols+2) array with leading dimension ld */
static void sweep(const double* u, double* un, int rows, int cols, int ld, double* rsum, double* rmax) {
  double s = 0.0, m = 0.0;
  for (int i = 1; i <= rows; i++)
    for (int j = 1; j <= cols; j++) {
      double v = 0.25 * (((u[(i - 1) * ld + j] + u[(i + 1) * ld + j]) + u[i * ld + j - 1]) + u[i * ld + j + 1]);
      double d = fabs(v - u[i * ld + j]);
      un[i * ld + j] = v;
      s += d;
      if (d > m) m = d;
    }
  *rsum = s;
  *rmax = m;
}

int main(int argc, char** argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  ck_t h = CK_INIT;

  int dims[2] = {0, 0}, periods[2] = {0, 0}, coords[2];
  MPI_Dims_create(size, 2, dims);
  MPI_Comm cart;
  MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
  int crank;
  MPI_Comm_rank(cart, &crank);
  MPI_Cart_coords(cart, crank, 2, coords);
  const int NX = 5 * dims[0] + 3, NY = 5 * dims[1] + 2; /* interior points */

  int r0 = block_start(coords[0], NX, dims[0]), r1 = block_start(coords[0] + 1, NX, dims[0]);
  int c0 = block_start(coords[1], NY, dims[1]), c1 = block_start(coords[1] + 1, NY, dims[1]);
  int rows = r1 - r0, cols = c1 - c0, ld = cols + 2;
  CHECK(rows >= 5 && cols >= 5, "block %dx%d", rows, cols);

  /* local array with a halo; global interior index (gi, gj) = (r0 + i, c0 + j), 1-based */
  double* u = malloc(sizeof(double) * (size_t)(rows + 2) * (size_t)ld);
  double* un = malloc(sizeof(double) * (size_t)(rows + 2) * (size_t)ld);
  for (int i = 0; i < rows + 2; i++)
    for (int j = 0; j < ld; j++) {
      int gi = r0 + i, gj = c0 + j;
      int on_boundary = gi == 0 || gi == NX + 1 || gj == 0 || gj == NY + 1;
      u[i * ld + j] = on_boundary ? boundary(gi, gj) : initial(gi, gj);
      un[i * ld + j] = u[i * ld + j];
    }

  int up, down, left, right;
  MPI_Cart_shift(cart, 0, 1, &up, &down);
  MPI_Cart_shift(cart, 1, 1, &left, &right);
  MPI_Datatype column;
  MPI_Type_vector(rows, 1, ld, MPI_DOUBLE, &column);
  MPI_Type_commit(&column);

  /* sequential reference on rank 0 */
  double *su = NULL, *sun = NULL;
  int sld = NY + 2;
  if (rank == 0) {
    su = malloc(sizeof(double) * (size_t)(NX + 2) * (size_t)sld);
    sun = malloc(sizeof(double) * (size_t)(NX + 2) * (size_t)sld);
    for (int i = 0; i < NX + 2; i++)
      for (int j = 0; j < sld; j++) {
        int on_boundary = i == 0 || i == NX + 1 || j == 0 || j == NY + 1;
        su[i * sld + j] = sun[i * sld + j] = on_boundary ? boundary(i, j) : initial(i, j);
      }
  }

  for (int it = 0; it < ITERS; it++) {
    MPI_Request rq[8];
    /* receive halos: row 0 from up, row rows+1 from down, column 0 from left, cols+1 right */
    MPI_Irecv(&u[0 * ld + 1], cols, MPI_DOUBLE, up, 1, cart, &rq[0]);
    MPI_Irecv(&u[(rows + 1) * ld + 1], cols, MPI_DOUBLE, down, 2, cart, &rq[1]);
    MPI_Irecv(&u[1 * ld + 0], 1, column, left, 3, cart, &rq[2]);
    MPI_Irecv(&u[1 * ld + cols + 1], 1, column, right, 4, cart, &rq[3]);
    MPI_Isend(&u[rows * ld + 1], cols, MPI_DOUBLE, down, 1, cart, &rq[4]);
    MPI_Isend(&u[1 * ld + 1], cols, MPI_DOUBLE, up, 2, cart, &rq[5]);
    MPI_Isend(&u[1 * ld + cols], 1, column, right, 3, cart, &rq[6]);
    MPI_Isend(&u[1 * ld + 1], 1, column, left, 4, cart, &rq[7]);
    MPI_Waitall(8, rq, MPI_STATUSES_IGNORE);

    double res[2], gsum, gmax;
    sweep(u, un, rows, cols, ld, &res[0], &res[1]);
    MPI_Allreduce(&res[0], &gsum, 1, MPI_DOUBLE, MPI_SUM, cart);
    MPI_Allreduce(&res[1], &gmax, 1, MPI_DOUBLE, MPI_MAX, cart);
    double* t = u;
    u = un;
    un = t;

    if (rank == 0) {
      double ssum, smax;
      sweep(su, sun, NX, NY, sld, &ssum, &smax);
      double* st = su;
      su = sun;
      sun = st;
      CHECK(gsum == ssum && gmax == smax, "iteration %d residual %.17g/%.17g want %.17g/%.17g", it, gsum, gmax, ssum,
            smax);
      ck_double(&h, gsum);
      ck_double(&h, gmax);
    }
  }

  /* gather the blocks on rank 0 and compare with the sequential grid */
  double* blk = malloc(sizeof(double) * (size_t)rows * (size_t)cols);
  for (int i = 0; i < rows; i++)
    for (int j = 0; j < cols; j++)
      blk[i * cols + j] = u[(i + 1) * ld + j + 1];
  int* counts = NULL;
  int* displs = NULL;
  double* all = NULL;
  if (rank == 0) {
    counts = malloc(sizeof(int) * (size_t)size);
    displs = malloc(sizeof(int) * (size_t)size);
    int pos = 0;
    for (int q = 0; q < size; q++) {
      int qc[2];
      MPI_Cart_coords(cart, q, 2, qc);
      counts[q] = (block_start(qc[0] + 1, NX, dims[0]) - block_start(qc[0], NX, dims[0])) *
                  (block_start(qc[1] + 1, NY, dims[1]) - block_start(qc[1], NY, dims[1]));
      displs[q] = pos;
      pos += counts[q];
    }
    CHECK(pos == NX * NY, "blocks cover %d of %d points", pos, NX * NY);
    all = malloc(sizeof(double) * (size_t)pos);
  }
  MPI_Gatherv(blk, rows * cols, MPI_DOUBLE, all, counts, displs, MPI_DOUBLE, 0, cart);
  if (rank == 0) {
    for (int q = 0; q < size; q++) {
      int qc[2];
      MPI_Cart_coords(cart, q, 2, qc);
      int qr0 = block_start(qc[0], NX, dims[0]), qr1 = block_start(qc[0] + 1, NX, dims[0]);
      int qc0 = block_start(qc[1], NY, dims[1]), qc1 = block_start(qc[1] + 1, NY, dims[1]);
      const double* b = all + displs[q];
      for (int i = 0; i < qr1 - qr0; i++)
        for (int j = 0; j < qc1 - qc0; j++) {
          double want = su[(qr0 + i + 1) * sld + (qc0 + j + 1)];
          CHECK(b[i * (qc1 - qc0) + j] == want, "final value at (%d,%d) from rank %d", qr0 + i, qc0 + j, q);
        }
    }
    ck_doubles(&h, su, (NX + 2) * sld);
    free(counts);
    free(displs);
    free(all);
    free(su);
    free(sun);
  }
  free(blk);
  free(u);
  free(un);
  MPI_Type_free(&column);
  MPI_Comm_free(&cart);
  ck_finish(&h, "halo");
  MPI_Finalize();
  return 0;
}
