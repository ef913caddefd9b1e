/* An MGEN program (NSIM-ACE's interface): each rank adds its rank to a sum with MGEN_Allreduce. */
#include <mgen.h>
#include <stdio.h>

int MGEN_Main(int argc, char** argv) {
  (void)argc;
  (void)argv;
  int rank = 0, size = 0, sum = 0;
  MGEN_Comm_rank(MGEN_COMM_WORLD, &rank);
  MGEN_Comm_size(MGEN_COMM_WORLD, &size);
  MGEN_Allreduce(&rank, &sum, 1, MGEN_INT, MGEN_SUM, MGEN_COMM_WORLD);
  if (rank == 0) printf("sum of %d ranks: %d\n", size, sum);
  return 0;
}
