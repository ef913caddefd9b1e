/* parking — the parking lot, which shows the routers' round robin in a steady state
 * (docs/validation.md, "Arbitration"): in every row of 8 ranks (one torus ring), the ranks 1..K
 * each send BYTES to rank K + 1 at once (NULL buffers), so their flows merge one router after
 * another on the way. The senders of row 0 print when their sends completed. Max-min gives
 * each flow the same share of the last link; a router that takes turns between its inputs gives
 * the flow injected last half of it, and the flows passing through share the other half.
 *
 *   mgen run -n 64 --ppn 1 --ignore-compute --set network.backend=B bench/flow/parking.so [K (3)] [BYTES (1048576)]
 */
#include <stdio.h>
#include <stdlib.h>

#include "mgen.h"

int MGEN_Main(int argc, char** argv) {
  const int k = argc > 1 ? atoi(argv[1]) : 3;
  const int bytes = argc > 2 ? atoi(argv[2]) : 1048576;
  int rank = 0, size = 0;
  MGEN_Comm_rank(MGEN_COMM_WORLD, &rank);
  MGEN_Comm_size(MGEN_COMM_WORLD, &size);
  if (k < 1 || k > 6 || bytes < 0 || size % 8 != 0) {
    if (rank == 0) fprintf(stderr, "usage: parking [1 <= K <= 6] [BYTES >= 0], on a multiple of 8 ranks\n");
    return 1;
  }
  const int x = rank % 8, base = rank - x;
  if (x >= 1 && x <= k) {
    MGEN_Send(NULL, bytes, MGEN_BYTE, base + k + 1, 0, MGEN_COMM_WORLD);
    if (base == 0) printf("sender %d: done at %.3f us\n", x, MGEN_Wtime() * 1e6);
  } else if (x == k + 1) {
    MGEN_Request r[6];
    for (int i = 1; i <= k; ++i)
      MGEN_Irecv(NULL, bytes, MGEN_BYTE, base + i, 0, MGEN_COMM_WORLD, &r[i - 1]);
    MGEN_Waitall(k, r, MGEN_STATUSES_IGNORE);
  }
  return 0;
}
