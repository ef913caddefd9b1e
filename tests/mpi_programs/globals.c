/* globals.c - per-rank global and static variables.
 *
 * A real MPI implementation runs every rank in its own process, so globals are private to a
 * rank; a simulator that runs ranks as fibers in one process must give each rank its own copy.
 * Checks: initial values of zero-initialised and initialised globals (int, arrays, struct,
 * pointer), of a static local counter and of globals in a second file (globals_b.c, through
 * extern and through a function using a file-static); then each rank writes values derived from
 * its rank, synchronises (Barrier) and verifies they still hold its own values; repeated over
 * many iterations interleaved with Sendrecv / Isend / Irecv whose buffers are themselves globals
 * (sending from and receiving into global arrays), checking the neighbours' values too.
 */
#include "check.h"

/* defined in globals_b.c */
extern int gb_counter;
extern double gb_table[4];
int gb_bump(int by);

int g_int;       /* zero-initialised (bss) */
int g_init = 42; /* initialised (data) */
int g_arr[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
static long s_arr[64];       /* static, zero-initialised */
static double s_scale = 2.0; /* static, initialised */
struct state {
  int rank;
  double x;
  char name[16];
};
struct state g_state = {-1, -1.0, "none"};
int* g_ptr;    /* points to per-rank malloc'd memory */
int g_recv[4]; /* MPI receive buffer */

static int count_calls(void) {
  static int counter; /* static local */
  return ++counter;
}

static void set_all(int rank, int it) {
  g_int = rank * 3 + 1 + it;
  g_init = 42 + rank + it;
  for (int i = 0; i < 16; i++)
    g_arr[i] = i + 1 + rank * 100 + it;
  for (int i = 0; i < 64; i++)
    s_arr[i] = (long)rank * 1000 + i + it;
  s_scale = 2.0 + rank + it;
  g_state.rank = rank;
  g_state.x = rank * 0.5 + it;
  snprintf(g_state.name, sizeof g_state.name, "r%d-%d", rank, it);
  for (int i = 0; i < 8; i++)
    g_ptr[i] = rank * 7 + i + it;
  gb_counter = 7 + rank * 2 + it;
  for (int i = 0; i < 4; i++)
    gb_table[i] = rank + i * 0.25 + it;
}

static void check_all(int rank, int it, const char* when) {
  CHECK(g_int == rank * 3 + 1 + it, "%s it %d: g_int %d", when, it, g_int);
  CHECK(g_init == 42 + rank + it, "%s it %d: g_init %d", when, it, g_init);
  for (int i = 0; i < 16; i++)
    CHECK(g_arr[i] == i + 1 + rank * 100 + it, "%s: g_arr[%d]", when, i);
  for (int i = 0; i < 64; i++)
    CHECK(s_arr[i] == (long)rank * 1000 + i + it, "%s: s_arr[%d]", when, i);
  CHECK(s_scale == 2.0 + rank + it, "%s: s_scale %g", when, s_scale);
  char nm[16];
  snprintf(nm, sizeof nm, "r%d-%d", rank, it);
  CHECK(g_state.rank == rank && g_state.x == rank * 0.5 + it && strcmp(g_state.name, nm) == 0, "%s: g_state (%d %g %s)",
        when, g_state.rank, g_state.x, g_state.name);
  for (int i = 0; i < 8; i++)
    CHECK(g_ptr[i] == rank * 7 + i + it, "%s: g_ptr[%d]", when, i);
  CHECK(gb_counter == 7 + rank * 2 + it, "%s: gb_counter %d", when, gb_counter);
  for (int i = 0; i < 4; i++)
    CHECK(gb_table[i] == rank + i * 0.25 + it, "%s: gb_table[%d]", when, i);
}

int main(int argc, char** argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  ck_t h = CK_INIT;
  int next = (rank + 1) % size, prev = (rank - 1 + size) % size;

  /* initial values, before any rank writes anything */
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK(g_int == 0 && g_init == 42 && g_ptr == NULL, "initial scalars %d %d", g_int, g_init);
  for (int i = 0; i < 16; i++)
    CHECK(g_arr[i] == i + 1, "initial g_arr[%d]", i);
  for (int i = 0; i < 64; i++)
    CHECK(s_arr[i] == 0, "initial s_arr[%d]", i);
  CHECK(s_scale == 2.0, "initial s_scale");
  CHECK(g_state.rank == -1 && g_state.x == -1.0 && strcmp(g_state.name, "none") == 0, "g_state");
  CHECK(gb_counter == 7 && gb_table[3] == 3.5, "initial globals_b");
  CHECK(gb_bump(0) == 100, "initial file-static in globals_b.c");
  MPI_Barrier(MPI_COMM_WORLD);

  g_ptr = malloc(sizeof(int) * 8);
  set_all(rank, 0);
  CHECK(gb_bump(rank + 1) == 100 + rank + 1, "gb_bump");
  MPI_Barrier(MPI_COMM_WORLD);
  check_all(rank, 0, "after barrier");
  CHECK(gb_bump(0) == 100 + rank + 1, "file-static after barrier");

  enum { ITERS = 10 };
  for (int it = 1; it <= ITERS; it++) {
    int calls = count_calls();
    CHECK(calls == it, "static local counter %d at iteration %d", calls, it);
    set_all(rank, it);

    /* send from a global, receive into a local */
    int got = -1;
    MPI_Sendrecv(&g_int, 1, MPI_INT, next, 1, &got, 1, MPI_INT, prev, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(got == prev * 3 + 1 + it, "neighbour's g_int %d", got);
    check_all(rank, it, "after Sendrecv");

    /* nonblocking: receive into a global array, send from another global array */
    MPI_Request rq[2];
    for (int i = 0; i < 4; i++)
      g_recv[i] = -1;
    MPI_Irecv(g_recv, 4, MPI_INT, prev, 2, MPI_COMM_WORLD, &rq[0]);
    MPI_Isend(g_arr, 4, MPI_INT, next, 2, MPI_COMM_WORLD, &rq[1]);
    MPI_Barrier(MPI_COMM_WORLD); /* other ranks run while the requests are pending */
    MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
    for (int i = 0; i < 4; i++)
      CHECK(g_recv[i] == i + 1 + prev * 100 + it, "g_recv[%d] %d at iteration %d", i, g_recv[i], it);
    check_all(rank, it, "after Isend/Irecv");

    /* a collective writing into a global */
    MPI_Allreduce(MPI_IN_PLACE, &gb_counter, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(gb_counter == 7 * size + size * (size - 1) + size * it, "Allreduce into a global %d", gb_counter);
    ck_int(&h, gb_counter);
    gb_counter = 7 + rank * 2 + it;
    check_all(rank, it, "after Allreduce");
    ck_int(&h, got);
    ck_ints(&h, g_recv, 4);
  }
  CHECK(gb_bump(0) == 100 + rank + 1, "file-static at the end");

  /* everyone's final g_int, gathered into a global pointer's memory */
  int* all = malloc(sizeof(int) * (size_t)size);
  MPI_Allgather(&g_int, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD);
  for (int q = 0; q < size; q++)
    CHECK(all[q] == q * 3 + 1 + ITERS, "final g_int of %d", q);
  ck_ints(&h, all, size);
  free(all);
  free(g_ptr);
  ck_finish(&h, "globals");
  MPI_Finalize();
  return 0;
}
