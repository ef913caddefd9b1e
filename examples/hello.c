/* hello — the smallest MGEN program. Every rank says hello (when there are at most 16 of
 * them), all ranks meet in a barrier, and rank 0 prints the simulated time.
 *
 *   mgen run -n 4 examples/hello
 */
#include <stdio.h>
#include <string.h>

#include "mgen.h"

int MGEN_Main(int argc, char** argv) {
  int rank, size;
  double t0, t1;
  MGEN_Comm_rank(MGEN_COMM_WORLD, &rank);
  MGEN_Comm_size(MGEN_COMM_WORLD, &size);
  if (argc > 1) { /* hello takes no arguments */
    const int help = strcmp(argv[1], "--help") == 0;
    if (rank == 0) {
      if (!help) fprintf(stderr, "hello: error: unexpected argument '%s'\n", argv[1]);
      fprintf(help ? stdout : stderr, "usage: mgen run -n N [mgen options] hello\n");
      fflush(NULL);
    }
    if (help) return 0;
    if (rank != 0) MGEN_Barrier(MGEN_COMM_WORLD); /* wait for rank 0's message and abort */
    MGEN_Abort(MGEN_COMM_WORLD, 1);               /* the run fails: `mgen run` exits with 3 */
  }

  if (size <= 16) printf("hello from rank %d of %d\n", rank, size);
  t0 = MGEN_Wtime();
  MGEN_Barrier(MGEN_COMM_WORLD);
  t1 = MGEN_Wtime();
  if (rank == 0) printf("%d rank(s): a barrier took %.4f us of simulated time\n", size, (t1 - t0) * 1e6);
  return 0;
}
