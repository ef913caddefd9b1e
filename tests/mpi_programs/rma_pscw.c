/* rma_pscw.c - generalised active target synchronisation (post/start/complete/wait/test).
 *
 * Checks: a ring (each rank exposes its window to its left neighbour and accesses its right
 * one) over several epochs with Put and Accumulate; a star with uneven groups (rank 0 exposes
 * to everyone, everyone else accesses only rank 0; then rank 0 accesses everyone, which wait
 * with a MPI_Win_test loop); overlapping groups of different sizes (each origin accesses one
 * or two targets, each target exposes to the origins that chose it, itself included); empty
 * groups; MPI_MODE_NOCHECK with a barrier ordering the posts before the starts; Get inside an
 * access epoch; and the MPI_ERR_RMA_SYNC errors of Win_complete and Win_wait outside an epoch.
 */
#include "check.h"

static MPI_Group group_of(int n, const int* ranks) {
  MPI_Group world, g;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  MPI_Group_incl(world, n, ranks, &g);
  MPI_Group_free(&world);
  return g;
}

static int* make_window(int n, int rank, MPI_Win* win) {
  int* base = NULL;
  MPI_Aint bytes = (MPI_Aint)(((size_t)n * sizeof(int) + 63) / 64 * 64);
  MPI_Win_allocate(bytes, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, win);
  MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, *win);
  for (int k = 0; k < n; k++)
    base[k] = 0;
  MPI_Win_unlock(rank, *win);
  MPI_Barrier(MPI_COMM_WORLD);
  return base;
}

static void test_ring(ck_t* h, int rank, int size) {
  enum { ITERS = 4 };
  int next = (rank + 1) % size, prev = (rank - 1 + size) % size;
  MPI_Win win;
  int* base = make_window(2, rank, &win);
  MPI_Group left = group_of(1, &prev), right = group_of(1, &next);
  for (int it = 0; it < ITERS; it++) {
    MPI_Win_post(left, 0, win);
    MPI_Win_start(right, 0, win);
    int v = rank * 100 + it, a = rank + 1;
    MPI_Put(&v, 1, MPI_INT, next, 0, 1, MPI_INT, win);
    MPI_Accumulate(&a, 1, MPI_INT, next, 1, 1, MPI_INT, MPI_SUM, win);
    MPI_Win_complete(win);
    MPI_Win_wait(win);
    CHECK(base[0] == prev * 100 + it, "ring epoch %d: %d", it, base[0]);
    CHECK(base[1] == (prev + 1) * (it + 1), "ring accumulate epoch %d: %d", it, base[1]);
    ck_int(h, base[0]);
  }
  ck_int(h, base[1]);
  MPI_Group_free(&left);
  MPI_Group_free(&right);
  MPI_Win_free(&win);
}

static void test_star(ck_t* h, int rank, int size) {
  MPI_Win win;
  int* base = make_window(size + 1, rank, &win);
  int* others = malloc(sizeof(int) * (size_t)size);
  for (int q = 1; q < size; q++)
    others[q - 1] = q;
  int zero = 0;
  MPI_Group all_others = group_of(size - 1, others), root = group_of(1, &zero);
  /* phase 1: everyone puts into rank 0 */
  if (rank == 0) {
    MPI_Win_post(all_others, 0, win);
    MPI_Win_wait(win);
    for (int q = 1; q < size; q++)
      CHECK(base[q] == q * 3 + 1, "star slot %d: %d", q, base[q]);
    ck_ints(h, base, size);
  } else {
    MPI_Win_start(root, 0, win);
    int v = rank * 3 + 1;
    MPI_Put(&v, 1, MPI_INT, 0, rank, 1, MPI_INT, win);
    MPI_Win_complete(win);
  }
  /* phase 2: rank 0 puts into everyone, who end the exposure by testing */
  if (rank == 0) {
    MPI_Win_start(all_others, 0, win);
    for (int q = 1; q < size; q++) {
      int v = 1000 + q;
      MPI_Put(&v, 1, MPI_INT, q, size, 1, MPI_INT, win);
    }
    MPI_Win_complete(win);
  } else {
    MPI_Win_post(root, 0, win);
    int flag = 0, polls = 0;
    while (!flag) {
      MPI_Win_test(win, &flag);
      polls++;
    }
    CHECK(polls >= 1, "Win_test");
    CHECK(base[size] == 1000 + rank, "star phase 2: %d", base[size]);
    ck_int(h, base[size]);
  }
  MPI_Group_free(&all_others);
  MPI_Group_free(&root);
  free(others);
  MPI_Win_free(&win);
}

/* Origin q accesses (q+1)%size and, if q is even, also (q+3)%size (which may be q itself or
 * the same as the first); each target exposes to exactly the origins that chose it. */
static int targets_of(int q, int size, int* t) {
  int n = 0;
  t[n++] = (q + 1) % size;
  if (q % 2 == 0 && (q + 3) % size != t[0]) t[n++] = (q + 3) % size;
  return n;
}

static void test_uneven(ck_t* h, int rank, int size) {
  MPI_Win win;
  int* base = make_window(1, rank, &win);
  int mine[2], n = targets_of(rank, size, mine);
  int* origins = malloc(sizeof(int) * (size_t)size);
  int no = 0;
  for (int q = 0; q < size; q++) {
    int t[2], k = targets_of(q, size, t);
    for (int i = 0; i < k; i++)
      if (t[i] == rank) origins[no++] = q;
  }
  MPI_Group exposure = group_of(no, origins), access = group_of(n, mine);
  for (int it = 0; it < 2; it++) {
    MPI_Win_post(exposure, 0, win);
    MPI_Win_start(access, 0, win);
    int v = rank + 1;
    for (int i = 0; i < n; i++)
      MPI_Accumulate(&v, 1, MPI_INT, mine[i], 0, 1, MPI_INT, MPI_SUM, win);
    MPI_Win_complete(win);
    MPI_Win_wait(win);
  }
  int want = 0;
  for (int i = 0; i < no; i++)
    want += 2 * (origins[i] + 1);
  CHECK(base[0] == want, "uneven groups: %d, want %d", base[0], want);
  ck_int(h, base[0]);
  ck_int(h, no);
  MPI_Group_free(&exposure);
  MPI_Group_free(&access);
  free(origins);
  MPI_Win_free(&win);
}

static void test_empty_nocheck_get(ck_t* h, int rank, int size) {
  int next = (rank + 1) % size, prev = (rank - 1 + size) % size;
  MPI_Win win;
  int* base = make_window(2, rank, &win);
  /* empty groups: nothing to wait for */
  MPI_Win_post(MPI_GROUP_EMPTY, 0, win);
  MPI_Win_start(MPI_GROUP_EMPTY, 0, win);
  MPI_Win_complete(win);
  MPI_Win_wait(win);
  /* NOCHECK: the barrier orders every post before every start */
  MPI_Group left = group_of(1, &prev), right = group_of(1, &next);
  MPI_Win_post(left, MPI_MODE_NOCHECK, win);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_start(right, MPI_MODE_NOCHECK, win);
  int v = 7 * rank + 5;
  MPI_Put(&v, 1, MPI_INT, next, 0, 1, MPI_INT, win);
  MPI_Win_complete(win);
  MPI_Win_wait(win);
  CHECK(base[0] == 7 * prev + 5, "nocheck put: %d", base[0]);
  ck_int(h, base[0]);
  /* a Get in an access epoch reads the exposed window */
  MPI_Win_post(left, MPI_MODE_NOPUT, win);
  MPI_Win_start(right, 0, win);
  int g = -1;
  MPI_Get(&g, 1, MPI_INT, next, 0, 1, MPI_INT, win);
  MPI_Win_complete(win);
  MPI_Win_wait(win);
  CHECK(g == 7 * rank + 5, "get: %d", g);
  ck_int(h, g);
  /* ending an epoch that was never started is an error */
  MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
  int cls = 0;
  MPI_Error_class(MPI_Win_complete(win), &cls);
  CHECK(cls == MPI_ERR_RMA_SYNC, "Win_complete without start: class %d", cls);
  ck_int(h, cls);
  MPI_Error_class(MPI_Win_wait(win), &cls);
  CHECK(cls == MPI_ERR_RMA_SYNC, "Win_wait without post: class %d", cls);
  ck_int(h, cls);
  MPI_Group_free(&left);
  MPI_Group_free(&right);
  MPI_Win_free(&win);
}

int main(int argc, char** argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  ck_t h = CK_INIT;
  test_ring(&h, rank, size);
  test_star(&h, rank, size);
  test_uneven(&h, rank, size);
  test_empty_nocheck_get(&h, rank, size);
  ck_finish(&h, "rma_pscw");
  MPI_Finalize();
  return 0;
}
