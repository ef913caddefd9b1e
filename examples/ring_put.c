/* NSIM-ACE's sample program (§3.2): every rank puts 4 bytes to its right neighbour, waits
 * for the put it receives from its left, then for its own put's completion. */
#include "mgen.h"

int MGEN_Main(int argc, char** argv) {
  int rank, size, ms = 4, r, tag = 0;
  MGEN_Comm com = MGEN_COMM_WORLD;
  MGEN_acp_handle handle;
  (void)argc;
  (void)argv;
  MGEN_Comm_rank(com, &rank);
  MGEN_Comm_size(com, &size);
  r = (rank + 1) % size;
  handle = MGEN_rdma_put(r, ms, tag);
  MGEN_rdma_poll(tag);
  MGEN_acp_complete(handle);
  return 0;
}
