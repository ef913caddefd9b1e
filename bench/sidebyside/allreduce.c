/* allreduce — MPI_Allreduce(MPI_SUM) of `-s` bytes of doubles, `-i` times.
 *
 * Rank r contributes element j = r + j + iteration, so the sum is known in closed form; every
 * rank checks its first and last element each iteration (all values are exact in a double).
 *
 *   allreduce [-i ITERATIONS (100)] [-s BYTES (64, i.e. 8 doubles)]
 */
#include "sbs.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  static const char* const names[] = {"-i", "-s"};
  long options[] = {100, 8 * sizeof(double)};
  if (sbs_parse_options(argc, argv, 2, names, options, "[-i ITERATIONS] [-s BYTES]") != 0) {
    MPI_Finalize();
    return 1;
  }
  const int iterations = (int)options[0];
  const long count = options[1] / (long)sizeof(double) > 0 ? options[1] / (long)sizeof(double) : 1;

  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  double* in = malloc(sizeof(double) * (size_t)count);
  double* out = malloc(sizeof(double) * (size_t)count);
  if (in == NULL || out == NULL) {
    fprintf(stderr, "allreduce: rank %d: out of memory\n", rank);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  const double ranks_sum = 0.5 * (double)size * (double)(size - 1); /* sum of r over the ranks */
  int ok = 1;

  MPI_Barrier(MPI_COMM_WORLD);
  const double start = MPI_Wtime();
  for (int it = 0; it < iterations; it++) {
    for (long j = 0; j < count; j++)
      in[j] = (double)(rank + j + it);
    MPI_Allreduce(in, out, (int)count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    const long last = count - 1;
    ok &= out[0] == ranks_sum + (double)size * it && out[last] == ranks_sum + (double)size * (double)(last + it);
  }
  const double elapsed = MPI_Wtime() - start;

  char fields[160];
  snprintf(fields, sizeof fields, "program=allreduce iterations=%d bytes=%ld", iterations,
           count * (long)sizeof(double));
  sbs_report(fields, elapsed, ok);
  free(in);
  free(out);
  MPI_Finalize();
  return 0;
}
