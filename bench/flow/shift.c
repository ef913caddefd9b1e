/* shift — the case that isolates the routers' round robin (docs/validation.md, "Arbitration"):
 * the ranks form rows of ROW (default 8); every rank sends BYTES to the rank S places ahead in
 * its row and receives from the one S behind, all at once (one MGEN_Sendrecv, NULL buffers).
 * With one row per torus ring, every link of the ring carries S flows in one direction: one
 * injected there, S - 1 passing through. The exchange is the whole job (no barrier before
 * it), so mgen's predicted time is its time. With SKEW (ns), rank 0 posts its exchange that much
 * later than the others (MGEN_Comp), which breaks the symmetry of its row.
 *
 *   mgen run -n 64 --ppn 1 --ignore-compute --set network.backend=B bench/flow/shift S [BYTES (524288)] [ROW (8)] [SKEW
 * (0)]
 */
#include <stdio.h>
#include <stdlib.h>

#include "mgen.h"

int MGEN_Main(int argc, char** argv) {
  const int shift = argc > 1 ? atoi(argv[1]) : 1;
  const int bytes = argc > 2 ? atoi(argv[2]) : 524288;
  const int row = argc > 3 ? atoi(argv[3]) : 8;
  const double skew = argc > 4 ? atof(argv[4]) : 0;
  int rank = 0, size = 0;
  MGEN_Comm_rank(MGEN_COMM_WORLD, &rank);
  MGEN_Comm_size(MGEN_COMM_WORLD, &size);
  if (row < 1 || size % row != 0 || shift < 0 || bytes < 0 || skew < 0) {
    if (rank == 0) fprintf(stderr, "usage: shift S >= 0 [BYTES >= 0] [ROW dividing the rank count] [SKEW >= 0 ns]\n");
    return 1;
  }
  const int base = rank - rank % row, x = rank % row;
  const int to = base + (x + shift) % row, from = base + (x - shift % row + row) % row;
  if (rank == 0 && skew > 0) MGEN_Comp(skew * 1e-9);
  MGEN_Sendrecv(NULL, bytes, MGEN_BYTE, to, 0, NULL, bytes, MGEN_BYTE, from, 0, MGEN_COMM_WORLD, MGEN_STATUS_IGNORE);
  return 0;
}
