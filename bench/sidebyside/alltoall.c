/* alltoall — MPI_Alltoall of `-s` bytes per pair of ranks, `-i` times.
 *
 * The block rank r sends to rank d starts and ends with (r, d, iteration), which d checks.
 * Each rank holds 2 x P x BYTES of buffers: 32 MiB per rank at 4096 ranks and 4 KiB. With
 * `-S 1` the buffers are shared by all ranks (MGEN_SHARED_MALLOC under mgen, SMPI_SHARED_MALLOC
 * under SimGrid: one send and one receive buffer for the whole job, contents undefined), so
 * the data is not checked.
 *
 *   alltoall [-i ITERATIONS (10)] [-s BYTES (4K)] [-S SHARED (0)]
 */
#include "sbs.h"

#if defined(MGEN_SIMULATED)
#include <mgen/mpix.h>
#define SBS_SHARED_MALLOC(n) MGEN_SHARED_MALLOC(n)
#define SBS_SHARED_FREE(p) MGEN_SHARED_FREE(p)
#elif defined(SMPI_SHARED_MALLOC)
#define SBS_SHARED_MALLOC(n) SMPI_SHARED_MALLOC(n)
#define SBS_SHARED_FREE(p) SMPI_SHARED_FREE(p)
#endif

static void stamp(unsigned char* block, long bytes, int from, int to, int iteration) {
  const int mark[3] = {from, to, iteration};
  sbs_stamp(block, bytes, mark, 3);
}

static int stamped(const unsigned char* block, long bytes, int from, int to, int iteration) {
  const int mark[3] = {from, to, iteration};
  return sbs_stamped(block, bytes, mark, 3);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  static const char* const names[] = {"-i", "-s", "-S"};
  long options[] = {10, 4 << 10, 0};
  if (sbs_parse_options(argc, argv, 3, names, options, "[-i ITERATIONS] [-s BYTES] [-S SHARED]") != 0) {
    MPI_Finalize();
    return 1;
  }
  const int iterations = (int)options[0];
  const long bytes = options[1];
  const int shared = options[2] != 0;

  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  unsigned char *send = NULL, *recv = NULL;
  if (shared) {
#ifdef SBS_SHARED_MALLOC
    send = SBS_SHARED_MALLOC((size_t)bytes * (size_t)size + 1);
    recv = SBS_SHARED_MALLOC((size_t)bytes * (size_t)size + 1);
#else
    if (rank == 0) fprintf(stderr, "alltoall: -S 1 needs mgen-cc or smpicc\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
#endif
  } else {
    send = malloc((size_t)bytes * (size_t)size + 1);
    recv = malloc((size_t)bytes * (size_t)size + 1);
  }
  if (send == NULL || recv == NULL) {
    fprintf(stderr, "alltoall: rank %d: out of memory\n", rank);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  if (!shared) memset(send, 0, (size_t)bytes * (size_t)size);
  int ok = 1;

  MPI_Barrier(MPI_COMM_WORLD);
  const double start = MPI_Wtime();
  for (int it = 0; it < iterations; it++) {
    for (int d = 0; d < size; d++)
      stamp(send + (size_t)d * bytes, bytes, rank, d, it);
    MPI_Alltoall(send, (int)bytes, MPI_BYTE, recv, (int)bytes, MPI_BYTE, MPI_COMM_WORLD);
    for (int s = 0; s < size && !shared; s++)
      ok &= stamped(recv + (size_t)s * bytes, bytes, s, rank, it);
  }
  const double elapsed = MPI_Wtime() - start;

  char fields[160];
  snprintf(fields, sizeof fields, "program=alltoall iterations=%d bytes=%ld shared=%d", iterations, bytes, shared);
  sbs_report(fields, elapsed, ok);
#ifdef SBS_SHARED_MALLOC
  if (shared) {
    SBS_SHARED_FREE(send);
    SBS_SHARED_FREE(recv);
    send = recv = NULL;
  }
#endif
  free(send);
  free(recv);
  MPI_Finalize();
  return 0;
}
