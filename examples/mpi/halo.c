/* halo — 2-D Jacobi iteration with a one-cell halo exchange on a Cartesian process grid.
 *
 * An N x N grid (default 48, 50 iterations) with fixed boundary values (1 on the top edge, 0.5 on the left,
 * 0 elsewhere) is split into blocks over the process grid from MPI_Dims_create and
 * MPI_Cart_create. Each iteration swaps halos with the four neighbours from MPI_Cart_shift
 * (4 MPI_Irecv + 4 MPI_Isend + MPI_Waitall; MPI_PROC_NULL on the outer edges, where the ghost
 * cells keep the boundary values), then does one Jacobi sweep. Every RES_EVERY iterations the
 * largest change is combined with MPI_Allreduce(MPI_MAX); at the end a fixed-point checksum is
 * summed to rank 0 with MPI_Reduce.
 *
 * Check: every rank repeats the whole computation sequentially and compares its block bit for
 * bit (each point sees the same operands in the same order), and the residual and checksum too.
 * Integer checksums and a MAX residual make RESULT independent of the rank count.
 *
 *   mpiexec -n 4 ./halo [N [iterations]]
 */
#include <math.h>

#include "mpi_counts.h"

#define RES_EVERY 10
#define SCALE 1e9 /* checksum resolution */

enum { UP, DOWN, LEFT, RIGHT };

/* Value outside the domain at global (i, j); only the edges are ever read. */
static double boundary(int i, int j) {
  return i < 0 ? 1.0 : j < 0 ? 0.5 : 0.0;
}

/* One Jacobi sweep over the ni x nj interior of u (row stride nj + 2) into v; returns the
 * largest change. */
static double sweep(const double* u, double* v, int ni, int nj) {
  const int s = nj + 2;
  double res = 0;
  for (int i = 1; i <= ni; i++)
    for (int j = 1; j <= nj; j++) {
      const int k = i * s + j;
      v[k] = 0.25 * ((u[k - s] + u[k + s]) + (u[k - 1] + u[k + 1]));
      res = fmax(res, fabs(v[k] - u[k]));
    }
  return res;
}

/* Two (ni+2) x (nj+2) arrays for the block starting at global (i0, j0), interior zero and
 * ghosts at their boundary values. */
static double* new_grid(int ni, int nj, int i0, int j0) {
  double* u = malloc(sizeof(double) * 2 * (size_t)(ni + 2) * (size_t)(nj + 2));
  for (int i = 0; i < ni + 2; i++)
    for (int j = 0; j < nj + 2; j++) {
      const int in = i >= 1 && i <= ni && j >= 1 && j <= nj;
      const int k = i * (nj + 2) + j;
      u[k] = u[k + (ni + 2) * (nj + 2)] = in ? 0.0 : boundary(i0 + i - 1, j0 + j - 1);
    }
  return u;
}

static long long checksum(const double* u, int ni, int nj) {
  long long sum = 0;
  for (int i = 1; i <= ni; i++)
    for (int j = 1; j <= nj; j++)
      sum += llround(u[i * (nj + 2) + j] * SCALE);
  return sum;
}

static void fail(const char* what, int rank) {
  fprintf(stderr, "halo: rank %d: %s\n", rank, what);
  MPI_Abort(MPI_COMM_WORLD, 1);
}

int main(int argc, char** argv) {
  int rank, size, dims[2] = {0, 0}, periods[2] = {0, 0}, coords[2], nb[4];
  MPI_Comm cart;
  COUNTED(MPI_Init, 0, &argc, &argv);
  COUNTED(MPI_Comm_rank, 0, MPI_COMM_WORLD, &rank);
  COUNTED(MPI_Comm_size, 0, MPI_COMM_WORLD, &size);
  const int dsize = counted_type_size(MPI_DOUBLE), lsize = counted_type_size(MPI_LONG_LONG);
  const int n = argc > 1 ? atoi(argv[1]) : 48, iters = argc > 2 ? atoi(argv[2]) : 50;

  COUNTED(MPI_Dims_create, 0, size, 2, dims);
  if (n < dims[0] || n < dims[1] || iters < 1) fail("need N >= the process grid and iterations >= 1", rank);
  /* reorder = 0: ranks in cart are the world ranks. */
  COUNTED(MPI_Cart_create, 0, MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
  COUNTED(MPI_Cart_coords, 0, cart, rank, 2, coords);
  COUNTED(MPI_Cart_shift, 0, cart, 0, 1, &nb[UP], &nb[DOWN]);
  COUNTED(MPI_Cart_shift, 0, cart, 1, 1, &nb[LEFT], &nb[RIGHT]);

  /* Block rows [i0, i0 + ni) and columns [j0, j0 + nj); blocks differ by at most one. */
  const int i0 = coords[0] * n / dims[0], ni = (coords[0] + 1) * n / dims[0] - i0;
  const int j0 = coords[1] * n / dims[1], nj = (coords[1] + 1) * n / dims[1] - j0;
  const int s = nj + 2, len[4] = {nj, nj, ni, ni};
  /* First element and stride of the interior edge sent in each direction, and of the ghost
   * line received from it. */
  const int send_at[4] = {s + 1, ni * s + 1, s + 1, s + nj}, recv_at[4] = {1, (ni + 1) * s + 1, s, s + nj + 1};
  const int step[4] = {1, 1, s, s};
  double* grid = new_grid(ni, nj, i0, j0);
  double *u = grid, *v = grid + (ni + 2) * s;
  double* sbuf = malloc(sizeof(double) * 4 * (size_t)(ni + nj));
  double* rbuf = malloc(sizeof(double) * 4 * (size_t)(ni + nj));
  double res = 0;

  for (int it = 0; it < iters; it++) {
    MPI_Request req[8];
    /* A message sent towards direction d carries tag d and arrives from direction d ^ 1. */
    for (int d = 0; d < 4; d++)
      COUNTED(MPI_Irecv, len[d] * dsize, rbuf + d * (ni + nj), len[d], MPI_DOUBLE, nb[d], d ^ 1, cart, &req[d]);
    for (int d = 0; d < 4; d++) {
      for (int k = 0; k < len[d]; k++)
        sbuf[d * (ni + nj) + k] = u[send_at[d] + k * step[d]];
      COUNTED(MPI_Isend, len[d] * dsize, sbuf + d * (ni + nj), len[d], MPI_DOUBLE, nb[d], d, cart, &req[4 + d]);
    }
    COUNTED(MPI_Waitall, 0, 8, req, MPI_STATUSES_IGNORE);
    for (int d = 0; d < 4; d++)
      if (nb[d] != MPI_PROC_NULL)
        for (int k = 0; k < len[d]; k++)
          u[recv_at[d] + k * step[d]] = rbuf[d * (ni + nj) + k];

    const double local = sweep(u, v, ni, nj);
    if (it % RES_EVERY == RES_EVERY - 1) COUNTED(MPI_Allreduce, dsize, &local, &res, 1, MPI_DOUBLE, MPI_MAX, cart);
    double* t = u;
    u = v;
    v = t;
  }

  long long local_sum = checksum(u, ni, nj), sum = 0;
  COUNTED(MPI_Reduce, lsize, &local_sum, &sum, 1, MPI_LONG_LONG, MPI_SUM, 0, cart);

  /* The sequential reference, on the whole grid. */
  double* whole = new_grid(n, n, 0, 0);
  double *g = whole, *h = whole + (n + 2) * (n + 2);
  double ref_res = 0;
  for (int it = 0; it < iters; it++) {
    const double r = sweep(g, h, n, n);
    if (it % RES_EVERY == RES_EVERY - 1) ref_res = r;
    double* t = g;
    g = h;
    h = t;
  }
  for (int i = 1; i <= ni; i++)
    for (int j = 1; j <= nj; j++)
      if (u[i * s + j] != g[(i0 + i) * (n + 2) + j0 + j]) fail("block differs from the sequential grid", rank);
  if (res != ref_res) fail("residual differs from the sequential one", rank);
  if (rank == 0) {
    if (sum != checksum(g, n, n)) fail("checksum differs from the sequential one", rank);
    printf("RESULT halo %lld\nOK\n", sum);
  }

  free(grid);
  free(whole);
  free(sbuf);
  free(rbuf);
  COUNTED(MPI_Comm_free, 0, &cart);
  return counted_finalize(rank);
}
