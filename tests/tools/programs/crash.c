/* A rank that fails the way real programs do, for the fault reports (rank_faults_test.sh).
 *   crash MODE RANK: rank RANK (the others wait in a barrier) does MODE after an MPI_Send:
 *   segv (store through NULL), fpe (integer division by zero), abort, assert, double_free,
 *   stack (a local array of 4 MiB), recursion (1 GiB of frames), ill (__builtin_trap), op (a
 *   user reduction that stores through NULL, run by MPI_Iallreduce), spin (loops for ever in its
 *   own code, for SIGINT), run (runs for ever through MPI calls, for SIGINT), hog (every rank
 *   keeps 1 MiB, for the memory limit). */
#include <assert.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static volatile int zero = 0;

int deep(int n);
int big_array(void);
void bad_op(void* in, void* inout, int* len, MPI_Datatype* type);

/* Not static, so that a report can name them. */
int deep(int n) {
  volatile char frame[1024];
  frame[0] = (char)n;
  return n == 0 ? frame[0] : deep(n - 1) + frame[0];
}

int big_array(void) {
  volatile char a[4 << 20];
  for (size_t i = 0; i < sizeof a; i += 4096)
    a[i] = (char)i;
  return a[4096];
}

void bad_op(void* in, void* inout, int* len, MPI_Datatype* type) {
  (void)in;
  (void)inout;
  (void)len;
  (void)type;
  *(volatile int*)(size_t)zero = 1;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size, token = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char* mode = argc > 1 ? argv[1] : "none";
  const int victim = argc > 2 ? atoi(argv[2]) : 0;
  if (strcmp(mode, "hog") == 0) { /* every rank holds 1 MiB more than it should */
    /* Held by a global, as a program's caches are: reachable to the end (LeakSanitizer). */
    static char* held;
    held = malloc(1 << 20);
    memset(held, rank, 1 << 20);
    token = held[rank];
  }
  if (strcmp(mode, "run") == 0) {
    /* The test sends its signal once this line is out: the ranks run, so the handlers are in. */
    if (rank == 0) {
      printf("rank 0: running\n");
      fflush(stdout);
    }
    for (;;)
      MPI_Barrier(MPI_COMM_WORLD);
  }
  if (strcmp(mode, "op") == 0) {
    MPI_Op op;
    MPI_Request req;
    int in = rank, out = 0;
    MPI_Op_create(bad_op, 1, &op);
    MPI_Iallreduce(&in, &out, 1, MPI_INT, op, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
  }
  if (rank == victim) {
    MPI_Send(&token, 1, MPI_INT, (rank + 1) % size, 0, MPI_COMM_WORLD);
    if (strcmp(mode, "segv") == 0) *(volatile int*)(size_t)zero = 1;
    if (strcmp(mode, "fpe") == 0) token = 7 / zero;
    if (strcmp(mode, "abort") == 0) abort();
    if (strcmp(mode, "assert") == 0) assert(zero == 1);
    if (strcmp(mode, "double_free") == 0) {
      char* volatile p = malloc(64);
      free(p);
      free(p);
    }
    if (strcmp(mode, "stack") == 0) token = big_array();
    if (strcmp(mode, "recursion") == 0) token = deep(1 << 20);
    if (strcmp(mode, "ill") == 0) __builtin_trap();
    if (strcmp(mode, "spin") == 0)
      for (volatile long i = 0;; ++i) {
      }
  } else if (rank == (victim + 1) % size) {
    MPI_Recv(&token, 1, MPI_INT, victim, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  printf("rank %d: done %d\n", rank, token);
  MPI_Finalize();
  return 0;
}
