/* Shared helpers of the side-by-side benchmark programs (bench/sidebyside/README.md).
 *
 * Every program times its communication with MPI_Wtime between a barrier and the end of its
 * loop; the job's time is the slowest rank's, combined with MPI_Reduce(MPI_MAX) after the timed
 * part. Under a simulator MPI_Wtime is simulated time, so that number is the simulator's
 * prediction. Rank 0 prints one line that run.sh parses:
 *
 *   sbs program=NAME ranks=P ... time_s=T check=ok|FAILED
 */
#ifndef SBS_H
#define SBS_H

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "4096", "64K", "64KiB", "1M", "1MiB": binary multiples, as the benchmark's sizes are. */
static inline long sbs_parse_size(const char* text) {
  char* end = NULL;
  long value = strtol(text, &end, 10);
  if (end == text || value < 0) return -1;
  if (*end == 'K' || *end == 'k') {
    value <<= 10;
    end++;
  } else if (*end == 'M' || *end == 'm') {
    value <<= 20;
    end++;
  } else if (*end == 'G' || *end == 'g') {
    value <<= 30;
    end++;
  }
  if (strcmp(end, "") != 0 && strcmp(end, "i") != 0 && strcmp(end, "iB") != 0 && strcmp(end, "B") != 0) return -1;
  return value;
}

/* Reads "-NAME VALUE" pairs; the defaults stay for options not given. Returns 0 on success,
 * after printing the usage from rank 0 otherwise. `names` and `values` have `count` entries. */
static inline int sbs_parse_options(int argc, char** argv, int count, const char* const* names, long* values,
                                    const char* usage) {
  for (int a = 1; a < argc; a += 2) {
    int known = 0;
    for (int i = 0; i < count && !known; i++) {
      if (strcmp(argv[a], names[i]) == 0 && a + 1 < argc) {
        values[i] = sbs_parse_size(argv[a + 1]);
        known = values[i] >= 0;
      }
    }
    if (!known) {
      int rank = 0;
      MPI_Comm_rank(MPI_COMM_WORLD, &rank);
      if (rank == 0) fprintf(stderr, "usage: %s %s\n", argv[0], usage);
      return 1;
    }
  }
  return 0;
}

/* Combines every rank's elapsed time and check into rank 0's result line; `fields` is the
 * program's own part of the line ("program=halo2d iterations=100 ..."). */
static inline void sbs_report(const char* fields, double elapsed, int ok) {
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  double slowest = 0;
  int all_ok = 0;
  MPI_Reduce(&elapsed, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  MPI_Reduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    printf("sbs %s ranks=%d time_s=%.9e check=%s\n", fields, size, slowest, all_ok ? "ok" : "FAILED");
    fflush(stdout);
  }
}

/* Writes `mark` (`n` ints: sender, iteration, ...) at both ends of a message of `bytes`; a
 * message too short for it is left as it is. */
static inline void sbs_stamp(unsigned char* block, long bytes, const int* mark, int n) {
  const size_t size = sizeof(int) * (size_t)n;
  if (bytes >= (long)size) {
    memcpy(block, mark, size);
    memcpy(block + bytes - size, mark, size);
  }
}

/* 1 if both ends of the message carry `mark` (or it is too short to carry it). */
static inline int sbs_stamped(const unsigned char* block, long bytes, const int* mark, int n) {
  const size_t size = sizeof(int) * (size_t)n;
  if (bytes < (long)size) return 1;
  return memcmp(block, mark, size) == 0 && memcmp(block + bytes - size, mark, size) == 0;
}

#endif /* SBS_H */
