/* mpi_counts.h — a program's own tally of the MPI calls it makes, so that a PMPI tracer's
 * record of the same run can be checked against it.
 *
 * COUNTED(fn, bytes, args...) adds one call and `bytes` to fn's entry, then calls fn(args...).
 * The caller states bytes as the README defines them: the primary count times the datatype size
 * (the send part for Sendrecv, Alltoall and Alltoallv), 0 for calls that move no data.
 * counted_finalize() counts MPI_Finalize, writes $MPI_COUNTS_DIR/counts.<rank> (plain stdio,
 * no MPI) with one "name calls bytes" line per function, sorted by name, then finalizes.
 *
 * Everything is static: each program is one translation unit and includes this once.
 */
#ifndef MPI_COUNTS_H
#define MPI_COUNTS_H

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define COUNTED(fn, bytes, ...) (count_call(#fn, (long long)(bytes)), fn(__VA_ARGS__))

enum { COUNT_MAX_NAMES = 64 };

typedef struct {
  const char* name; /* a string literal from COUNTED */
  long long calls, bytes;
} count_entry;

/* Kept sorted by name, so the file needs no sort. */
static count_entry count_table[COUNT_MAX_NAMES];
static int count_n;

static void count_call(const char* name, long long bytes) {
  int i = 0;
  while (i < count_n && strcmp(count_table[i].name, name) < 0)
    i++;
  if (i == count_n || strcmp(count_table[i].name, name) != 0) {
    if (count_n == COUNT_MAX_NAMES) {
      fprintf(stderr, "mpi_counts: more than %d MPI functions\n", COUNT_MAX_NAMES);
      abort();
    }
    memmove(&count_table[i + 1], &count_table[i], (size_t)(count_n - i) * sizeof count_table[0]);
    count_table[i] = (count_entry){name, 0, 0};
    count_n++;
  }
  count_table[i].calls++;
  count_table[i].bytes += bytes;
}

/* Byte size of a datatype; the MPI_Type_size call is counted like any other. */
static int counted_type_size(MPI_Datatype type) {
  int size = 0;
  COUNTED(MPI_Type_size, 0, type, &size);
  return size;
}

static int counted_finalize(int world_rank) {
  count_call("MPI_Finalize", 0);
  const char* dir = getenv("MPI_COUNTS_DIR");
  if (dir && *dir) {
    char path[4096];
    snprintf(path, sizeof path, "%s/counts.%d", dir, world_rank);
    FILE* f = fopen(path, "w");
    if (!f) {
      perror(path);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (int i = 0; i < count_n; i++)
      fprintf(f, "%s %lld %lld\n", count_table[i].name, count_table[i].calls, count_table[i].bytes);
    fclose(f);
  }
  return MPI_Finalize();
}

#endif
