/* halo2d — a 2-D halo exchange on a periodic process grid, communication only.
 *
 * The P ranks form a px x py grid, px the largest divisor of P not above sqrt(P) (8 x 8 for 64,
 * 64 x 64 for 4096). Each iteration every rank posts 4 MPI_Irecv and 4 MPI_Isend of `-s`
 * bytes to its up, down, left and right neighbours (the grid wraps around) and waits for all 8
 * with MPI_Waitall. Each message carries its sender and iteration at both ends, which the
 * receiver checks.
 *
 *   halo2d [-i ITERATIONS (100)] [-s BYTES (64K)]
 */
#include "sbs.h"

enum { UP, DOWN, LEFT, RIGHT, DIRECTIONS };

/* The message that travels in direction d arrives from the neighbour on the opposite side. */
static const int kOpposite[DIRECTIONS] = {DOWN, UP, RIGHT, LEFT};

static void stamp(unsigned char* buf, long bytes, int rank, int iteration) {
  const int mark[2] = {rank, iteration};
  sbs_stamp(buf, bytes, mark, 2);
}

static int stamped(const unsigned char* buf, long bytes, int rank, int iteration) {
  const int mark[2] = {rank, iteration};
  return sbs_stamped(buf, bytes, mark, 2);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  static const char* const names[] = {"-i", "-s"};
  long options[] = {100, 64 << 10};
  if (sbs_parse_options(argc, argv, 2, names, options, "[-i ITERATIONS] [-s BYTES]") != 0) {
    MPI_Finalize();
    return 1;
  }
  const int iterations = (int)options[0];
  const long bytes = options[1];

  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int px = 1;
  for (int d = 1; (long)d * d <= size; d++)
    if (size % d == 0) px = d;
  const int py = size / px;
  const int x = rank % px, y = rank / px;
  int neighbour[DIRECTIONS];
  neighbour[UP] = ((y + py - 1) % py) * px + x;
  neighbour[DOWN] = ((y + 1) % py) * px + x;
  neighbour[LEFT] = y * px + (x + px - 1) % px;
  neighbour[RIGHT] = y * px + (x + 1) % px;

  unsigned char* send = malloc((size_t)bytes * DIRECTIONS + 1);
  unsigned char* recv = malloc((size_t)bytes * DIRECTIONS + 1);
  if (send == NULL || recv == NULL) {
    fprintf(stderr, "halo2d: rank %d: out of memory\n", rank);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  memset(send, 0, (size_t)bytes * DIRECTIONS);
  int ok = 1;

  MPI_Barrier(MPI_COMM_WORLD);
  const double start = MPI_Wtime();
  for (int it = 0; it < iterations; it++) {
    MPI_Request requests[2 * DIRECTIONS];
    /* Tag = direction of travel: with px or py at most 2 one rank is two neighbours at once. */
    for (int d = 0; d < DIRECTIONS; d++)
      MPI_Irecv(recv + d * bytes, (int)bytes, MPI_BYTE, neighbour[kOpposite[d]], d, MPI_COMM_WORLD, &requests[d]);
    for (int d = 0; d < DIRECTIONS; d++) {
      stamp(send + d * bytes, bytes, rank, it);
      MPI_Isend(send + d * bytes, (int)bytes, MPI_BYTE, neighbour[d], d, MPI_COMM_WORLD, &requests[DIRECTIONS + d]);
    }
    MPI_Waitall(2 * DIRECTIONS, requests, MPI_STATUSES_IGNORE);
    for (int d = 0; d < DIRECTIONS; d++)
      ok &= stamped(recv + d * bytes, bytes, neighbour[kOpposite[d]], it);
  }
  const double elapsed = MPI_Wtime() - start;

  char fields[160];
  snprintf(fields, sizeof fields, "program=halo2d grid=%dx%d iterations=%d bytes=%ld", px, py, iterations, bytes);
  sbs_report(fields, elapsed, ok);
  free(send);
  free(recv);
  MPI_Finalize();
  return 0;
}
