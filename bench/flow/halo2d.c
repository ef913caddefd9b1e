/* halo2d — bench/sidebyside/halo2d.c's 2-D halo as an MGEN program with NULL buffers: only
 * sizes travel, so the cost measured is the MPI layer's and the network model's, not payload
 * copies (the flow backend's cost against the packet backend's, issue 19). The P ranks form a
 * px x py periodic grid (px the largest divisor of P not above sqrt(P)); each iteration every
 * rank posts 4 Irecv and 4 Isend of BYTES to its up, down, left and right neighbours and waits
 * for all 8. Rank 0 prints the time of the iterations.
 *
 *   mgen run -n 4096 --ppn 1 -c PLATFORM bench/flow/halo2d [ITERATIONS (100)] [BYTES (65536)]
 */
#include <stdio.h>
#include <stdlib.h>

#include "mgen.h"

enum { UP, DOWN, LEFT, RIGHT, DIRECTIONS };

/* The message that travels in direction d arrives from the neighbour on the opposite side. */
static const int kOpposite[DIRECTIONS] = {DOWN, UP, RIGHT, LEFT};

int MGEN_Main(int argc, char** argv) {
  const int iterations = argc > 1 ? atoi(argv[1]) : 100;
  const int bytes = argc > 2 ? atoi(argv[2]) : 65536;
  int rank = 0, size = 0;
  MGEN_Comm_rank(MGEN_COMM_WORLD, &rank);
  MGEN_Comm_size(MGEN_COMM_WORLD, &size);
  if (iterations < 1 || bytes < 0) {
    if (rank == 0) fprintf(stderr, "usage: halo2d [ITERATIONS >= 1] [BYTES >= 0]\n");
    return 1;
  }
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

  MGEN_Barrier(MGEN_COMM_WORLD);
  const double start = MGEN_Wtime();
  for (int it = 0; it < iterations; it++) {
    MGEN_Request requests[2 * DIRECTIONS];
    /* Tag = direction of travel: with px or py at most 2 one rank is two neighbours at once. */
    for (int d = 0; d < DIRECTIONS; d++)
      MGEN_Irecv(NULL, bytes, MGEN_BYTE, neighbour[kOpposite[d]], d, MGEN_COMM_WORLD, &requests[d]);
    for (int d = 0; d < DIRECTIONS; d++)
      MGEN_Isend(NULL, bytes, MGEN_BYTE, neighbour[d], d, MGEN_COMM_WORLD, &requests[DIRECTIONS + d]);
    MGEN_Waitall(2 * DIRECTIONS, requests, MGEN_STATUSES_IGNORE);
  }
  const double elapsed = MGEN_Wtime() - start;
  if (rank == 0)
    printf("halo2d grid=%dx%d iterations=%d bytes=%d time=%.9f s\n", px, py, iterations, bytes, elapsed);
  return 0;
}
