/* Rank r computes (r + 1) microseconds, then everyone meets in a barrier: the predicted time
 * is the slowest rank's computation plus one barrier. Prints its arguments from rank 0. */
#include <stdio.h>

#include "mgen.h"

int MGEN_Main(int argc, char** argv) {
  int rank, i;
  MGEN_Comm_rank(MGEN_COMM_WORLD, &rank);
  if (rank == 0) {
    for (i = 1; i < argc; ++i) printf("arg %d: %s\n", i, argv[i]);
  }
  MGEN_Comp((rank + 1) * 1e-6);
  MGEN_Barrier(MGEN_COMM_WORLD);
  return 0;
}
