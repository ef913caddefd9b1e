/* Rank R (first argument, default 0) returns S (second argument, default 0) from MGEN_Main,
 * after a barrier; the other ranks return 0. */
#include <stdlib.h>

#include "mgen.h"

int MGEN_Main(int argc, char** argv) {
  int rank;
  const int who = argc > 1 ? atoi(argv[1]) : 0;
  const int status = argc > 2 ? atoi(argv[2]) : 0;
  MGEN_Comm_rank(MGEN_COMM_WORLD, &rank);
  MGEN_Barrier(MGEN_COMM_WORLD);
  return rank == who ? status : 0;
}
