/* Sends to a rank that does not exist. */
#include "mgen.h"

int MGEN_Main(int argc, char** argv) {
  int size;
  (void)argc;
  (void)argv;
  MGEN_Comm_size(MGEN_COMM_WORLD, &size);
  MGEN_Send(0, 1, MGEN_INT, size, 0, MGEN_COMM_WORLD);
  return 0;
}
