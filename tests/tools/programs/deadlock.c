/* Ranks 0 and 1 both receive first: a deadlock mgen must report, not hang on. */
#include "mgen.h"

int MGEN_Main(int argc, char** argv) {
  int rank, v = 0;
  (void)argc;
  (void)argv;
  MGEN_Comm_rank(MGEN_COMM_WORLD, &rank);
  if (rank < 2) MGEN_Recv(&v, 1, MGEN_INT, 1 - rank, 4, MGEN_COMM_WORLD, MGEN_STATUS_IGNORE);
  return 0;
}
