/* pingpong — ranks 0 and 1 bounce messages of 8 B up to `-m` bytes, sizes multiplied by `-f`.
 *
 * For each size, `-i` round trips (after one untimed warm-up round trip); rank 0 prints the
 * half round-trip time per size. The other ranks only take part in the barriers. The result
 * line's time is the whole sweep's, warm-ups included. Rank 1 checks the first and last byte
 * of every message it receives, rank 0 those of every reply.
 *
 *   pingpong [-i ROUND_TRIPS (10)] [-m MAX_BYTES (4M)] [-f FACTOR (2)]
 */
#include "sbs.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  static const char* const names[] = {"-i", "-m", "-f"};
  long options[] = {10, 4 << 20, 2};
  if (sbs_parse_options(argc, argv, 3, names, options, "[-i ROUND_TRIPS] [-m MAX_BYTES] [-f FACTOR]") != 0 ||
      options[2] < 2) {
    MPI_Finalize();
    return 1;
  }
  const int trips = (int)options[0];
  const long max_bytes = options[1];
  const long factor = options[2];

  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size < 2) {
    if (rank == 0) fprintf(stderr, "pingpong: needs at least 2 ranks\n");
    MPI_Finalize();
    return 1;
  }
  /* Only ranks 0 and 1 hold a buffer: 4 MiB on every rank of 4096 would be 16 GiB. */
  const size_t buffer = rank < 2 ? (size_t)max_bytes + 1 : 1;
  unsigned char* buf = malloc(buffer);
  if (buf == NULL) {
    fprintf(stderr, "pingpong: rank %d: out of memory\n", rank);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  memset(buf, 0, buffer);
  int ok = 1;

  MPI_Barrier(MPI_COMM_WORLD);
  const double start = MPI_Wtime();
  for (long bytes = 8; bytes <= max_bytes; bytes *= factor) {
    double begin = 0;
    for (int t = -1; t < trips; t++) { /* t = -1: the warm-up */
      if (t == 0) begin = MPI_Wtime();
      const unsigned char mark = (unsigned char)(t + 2);
      if (rank == 0) {
        buf[0] = buf[bytes - 1] = mark;
        MPI_Send(buf, (int)bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
        MPI_Recv(buf, (int)bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        ok &= buf[0] == (unsigned char)(mark + 1) && buf[bytes - 1] == (unsigned char)(mark + 1);
      } else if (rank == 1) {
        MPI_Recv(buf, (int)bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        ok &= buf[0] == mark && buf[bytes - 1] == mark;
        buf[0] = buf[bytes - 1] = (unsigned char)(mark + 1);
        MPI_Send(buf, (int)bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
      }
    }
    if (rank == 0) {
      const double half = (MPI_Wtime() - begin) / (2.0 * trips);
      printf("sbs-pingpong bytes=%ld half_rtt_s=%.9e bandwidth_Bps=%.6e\n", bytes, half, (double)bytes / half);
    }
  }
  const double elapsed = MPI_Wtime() - start;

  char fields[160];
  snprintf(fields, sizeof fields, "program=pingpong round_trips=%d max_bytes=%ld factor=%ld", trips, max_bytes, factor);
  sbs_report(fields, elapsed, ok);
  free(buf);
  MPI_Finalize();
  return 0;
}
