/* kreg — the smallest case of the flow backend's gap on fat trees (docs/validation.md, "A small
 * reproducer of the gap"): every rank sends BYTES to each of the next K ranks on a ring and
 * receives from the K before it, all posted at once (NULL buffers), and waits for all 2K. No
 * link carries more than its share: max-min gives every message 1/K of its sender's NIC and of
 * its receiver's link. The exchange is the whole job (no barrier before it), so mgen's
 * predicted time is its time. With SKEW (ns), rank 0 posts its sends that much later than the
 * others (MGEN_Comp), which breaks the exchange's symmetry.
 *
 *   mgen run -n N --ppn 1 --ignore-compute --set network.backend=B bench/flow/kreg K [BYTES (1048576)] [SKEW (0)]
 */
#include <stdio.h>
#include <stdlib.h>

#include "mgen.h"

enum { kMaxK = 64 };

int MGEN_Main(int argc, char** argv) {
  const int k = argc > 1 ? atoi(argv[1]) : 1;
  const int bytes = argc > 2 ? atoi(argv[2]) : 1048576;
  const double skew = argc > 3 ? atof(argv[3]) : 0;
  int rank = 0, size = 0;
  MGEN_Comm_rank(MGEN_COMM_WORLD, &rank);
  MGEN_Comm_size(MGEN_COMM_WORLD, &size);
  if (k < 1 || k > kMaxK || k >= size || bytes < 0 || skew < 0) {
    if (rank == 0) fprintf(stderr, "usage: kreg K (1 to min(%d, ranks - 1)) [BYTES >= 0] [SKEW >= 0 ns]\n", kMaxK);
    return 1;
  }
  MGEN_Request requests[2 * kMaxK];
  /* Tag = distance, so a rank that is two of the peers at once (k >= size / 2) is unambiguous. */
  for (int i = 1; i <= k; i++)
    MGEN_Irecv(NULL, bytes, MGEN_BYTE, (rank - i + size) % size, i, MGEN_COMM_WORLD, &requests[i - 1]);
  if (rank == 0 && skew > 0) MGEN_Comp(skew * 1e-9);
  for (int i = 1; i <= k; i++)
    MGEN_Isend(NULL, bytes, MGEN_BYTE, (rank + i) % size, i, MGEN_COMM_WORLD, &requests[k + i - 1]);
  MGEN_Waitall(2 * k, requests, MGEN_STATUSES_IGNORE);
  return 0;
}
