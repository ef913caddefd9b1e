/* Parses its options as the OSU micro-benchmarks do (getopt_long, a '+' and ':' option string,
 * long names), on every rank, then checks that every rank read the same values and rank 0
 * prints them. Under a shared libc every rank after the first would see the defaults. */
#include <getopt.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  static const struct option longs[] = {{"help", no_argument, 0, 'h'},
                                        {"version", no_argument, 0, 'v'},
                                        {"full", no_argument, 0, 'f'},
                                        {"message-size", required_argument, 0, 'm'},
                                        {"iterations", required_argument, 0, 'i'},
                                        {"warmup", required_argument, 0, 'x'},
                                        {"mem-limit", required_argument, 0, 'M'},
                                        {"validation", no_argument, 0, 'c'},
                                        {0, 0, 0, 0}};
  /* Defaults, as a benchmark has them. */
  long v[6] = {1, 1 << 20, 1000, 200, 0, 0}; /* min, max, iterations, warmup, full, validation */
  int c, index, bad = 0;
  while ((c = getopt_long(argc, argv, "+:hvfm:i:x:M:c", longs, &index)) != -1) {
    switch (c) {
      case 'm': {
        char* colon = strchr(optarg, ':');
        v[0] = atol(optarg);
        if (colon) v[1] = atol(colon + 1);
        break;
      }
      case 'i': v[2] = atol(optarg); break;
      case 'x': v[3] = atol(optarg); break;
      case 'f': v[4] = 1; break;
      case 'c': v[5] = 1; break;
      default: bad = 1;
    }
  }
  long lo[6], hi[6];
  MPI_Allreduce(v, lo, 6, MPI_LONG, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(v, hi, 6, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
  int all_bad = 0;
  MPI_Allreduce(&bad, &all_bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0) {
    const int same = memcmp(lo, hi, sizeof lo) == 0;
    printf("options: min %ld max %ld iterations %ld warmup %ld full %ld validation %ld; %s on %d ranks%s; next '%s'\n",
           v[0], v[1], v[2], v[3], v[4], v[5], same ? "the same" : "DIFFERENT", size, all_bad ? ", errors" : "",
           optind < argc ? argv[optind] : "");
  }
  MPI_Finalize();
  return 0;
}
