/* transpose — distributed matrix transpose with MPI_Alltoall, plus one uneven MPI_Alltoallv.
 *
 * The N x N integer matrix A(i, j) = i N + j, N = B p for p ranks and block size B (default
 * 8), is stored by rows: rank r holds rows [r B, r B + B). A transpose cuts the local rows
 * into p B x B blocks, transposes each while packing, and swaps them with one MPI_Alltoall;
 * the block from rank s lands in columns [s B, s B + B). The matrix is transposed REPS times
 * (default 4), each between MPI_Barriers, and checked after each. Then one MPI_Alltoallv sends
 * (s + 2 d) mod 4 values from rank s to rank d (some counts are 0), each value naming its
 * sender, receiver and position. A weighted checksum is summed to rank 0 with MPI_Reduce.
 *
 * Check: every rank compares every element it holds with its closed form, and rank 0 the
 * checksum with one computed sequentially.
 *
 *   mpiexec -n 4 ./transpose [B [REPS]]
 */
#include "mpi_counts.h"

static int rank, size, isize; /* isize: MPI_INT's size */

static void fail(const char* what) {
  fprintf(stderr, "transpose: rank %d: %s\n", rank, what);
  MPI_Abort(MPI_COMM_WORLD, 1);
}

/* Transposes the distributed n x n matrix whose local rows are a (b rows of n), using buf
 * (b n ints) for the packed blocks. */
static void transpose(int* a, int* buf, int b, int n) {
  for (int d = 0; d < size; d++)
    for (int c = 0; c < b; c++)
      for (int r = 0; r < b; r++)
        buf[(d * b + c) * b + r] = a[r * n + d * b + c];
  COUNTED(MPI_Alltoall, b * b * isize, buf, b * b, MPI_INT, a, b * b, MPI_INT, MPI_COMM_WORLD);
  /* Block s arrived as a[s b b ...] with its rows already transposed; spread it into columns. */
  for (int i = 0; i < b * n; i++)
    buf[i] = a[i];
  for (int s = 0; s < size; s++)
    for (int c = 0; c < b; c++)
      for (int r = 0; r < b; r++)
        a[c * n + s * b + r] = buf[(s * b + c) * b + r];
}

/* Values from rank s to rank d in the Alltoallv. */
static int uneven_count(int s, int d) {
  return (s + 2 * d) % 4;
}
static int uneven_value(int s, int d, int k) {
  return s * 10000 + d * 100 + k;
}

int main(int argc, char** argv) {
  COUNTED(MPI_Init, 0, &argc, &argv);
  COUNTED(MPI_Comm_rank, 0, MPI_COMM_WORLD, &rank);
  COUNTED(MPI_Comm_size, 0, MPI_COMM_WORLD, &size);
  isize = counted_type_size(MPI_INT);
  const int lsize = counted_type_size(MPI_LONG_LONG);
  const int b = argc > 1 ? atoi(argv[1]) : 8, reps = argc > 2 ? atoi(argv[2]) : 4, n = b * size;
  if (b < 1 || reps < 0 || (long long)n * n > 1 << 30) fail("need 1 <= B, N^2 <= 2^30 and REPS >= 0");

  int* a = malloc(sizeof(int) * (size_t)b * (size_t)n);
  int* buf = malloc(sizeof(int) * (size_t)b * (size_t)n);
  for (int r = 0; r < b; r++)
    for (int j = 0; j < n; j++)
      a[r * n + j] = (rank * b + r) * n + j;
  for (int t = 1; t <= reps; t++) {
    COUNTED(MPI_Barrier, 0, MPI_COMM_WORLD);
    transpose(a, buf, b, n);
    COUNTED(MPI_Barrier, 0, MPI_COMM_WORLD);
    for (int r = 0; r < b; r++)
      for (int j = 0; j < n; j++) {
        const int i = rank * b + r;
        if (a[r * n + j] != (t % 2 ? j * n + i : i * n + j)) fail("wrong element after a transpose");
      }
  }

  /* Uneven exchange: counts and displacements each way, then at most 3 values per peer. */
  int* v = malloc(sizeof(int) * 10 * (size_t)size);
  int *scount = v, *sdisp = v + size, *rcount = v + 2 * size, *rdisp = v + 3 * size;
  int *sbuf = v + 4 * size, *rbuf = v + 7 * size, stotal = 0, rtotal = 0;
  for (int d = 0; d < size; d++) {
    scount[d] = uneven_count(rank, d), sdisp[d] = stotal, rcount[d] = uneven_count(d, rank), rdisp[d] = rtotal;
    for (int k = 0; k < scount[d]; k++)
      sbuf[stotal + k] = uneven_value(rank, d, k);
    stotal += scount[d], rtotal += rcount[d];
  }
  COUNTED(MPI_Alltoallv, stotal * isize, sbuf, scount, sdisp, MPI_INT, rbuf, rcount, rdisp, MPI_INT, MPI_COMM_WORLD);
  for (int s = 0; s < size; s++)
    for (int k = 0; k < rcount[s]; k++)
      if (rbuf[rdisp[s] + k] != uneven_value(s, rank, k)) fail("wrong value from the Alltoallv");

  /* Weighted so that a misplaced value changes the sum. */
  long long local_sum = 0, sum = 0, ref = 0;
  for (int r = 0; r < b; r++)
    for (int j = 0; j < n; j++)
      local_sum += (long long)a[r * n + j] * ((rank * b + r + 2 * j) % 7 + 1);
  for (int k = 0; k < rtotal; k++)
    local_sum += rbuf[k];
  COUNTED(MPI_Reduce, lsize, &local_sum, &sum, 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++)
        ref += (long long)(reps % 2 ? j * n + i : i * n + j) * ((i + 2 * j) % 7 + 1);
    for (int s = 0; s < size; s++)
      for (int d = 0; d < size; d++)
        for (int k = 0; k < uneven_count(s, d); k++)
          ref += uneven_value(s, d, k);
    if (sum != ref) fail("checksum differs from the sequential one");
    printf("RESULT transpose %lld\nOK\n", sum);
  }
  free(a);
  free(buf);
  free(v);
  return counted_finalize(rank);
}
