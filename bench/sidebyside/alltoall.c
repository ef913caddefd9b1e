/* alltoall — MPI_Alltoall of `-s` bytes per pair of ranks, `-i` times.
 *
 * The block rank r sends to rank d starts and ends with (r, d, iteration), which d checks.
 * Each rank holds 2 x P x BYTES of buffers: 32 MiB per rank at 4096 ranks and 4 KiB.
 *
 *   alltoall [-i ITERATIONS (10)] [-s BYTES (4K)]
 */
#include "sbs.h"

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
  static const char* const names[] = {"-i", "-s"};
  long options[] = {10, 4 << 10};
  if (sbs_parse_options(argc, argv, 2, names, options, "[-i ITERATIONS] [-s BYTES]") != 0) {
    MPI_Finalize();
    return 1;
  }
  const int iterations = (int)options[0];
  const long bytes = options[1];

  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  unsigned char* send = malloc((size_t)bytes * (size_t)size + 1);
  unsigned char* recv = malloc((size_t)bytes * (size_t)size + 1);
  if (send == NULL || recv == NULL) {
    fprintf(stderr, "alltoall: rank %d: out of memory\n", rank);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  memset(send, 0, (size_t)bytes * (size_t)size);
  int ok = 1;

  MPI_Barrier(MPI_COMM_WORLD);
  const double start = MPI_Wtime();
  for (int it = 0; it < iterations; it++) {
    for (int d = 0; d < size; d++)
      stamp(send + (size_t)d * bytes, bytes, rank, d, it);
    MPI_Alltoall(send, (int)bytes, MPI_BYTE, recv, (int)bytes, MPI_BYTE, MPI_COMM_WORLD);
    for (int s = 0; s < size; s++)
      ok &= stamped(recv + (size_t)s * bytes, bytes, s, rank, it);
  }
  const double elapsed = MPI_Wtime() - start;

  char fields[160];
  snprintf(fields, sizeof fields, "program=alltoall iterations=%d bytes=%ld", iterations, bytes);
  sbs_report(fields, elapsed, ok);
  free(send);
  free(recv);
  MPI_Finalize();
  return 0;
}
