/* rma_windows.c - window flavors, queries and one-sided errors.
 *
 * Checks: MPI_Win_create_dynamic with MPI_Win_attach/detach (target displacements are
 * addresses from MPI_Get_address; two regions; a region detached and another attached);
 * MPI_Win_allocate_shared on the node's communicator (MPI_Comm_split_type), contiguous by
 * default (MPI_Win_shared_query of every member and of MPI_PROC_NULL), load/store into a
 * neighbour's part with MPI_Win_sync, a Put read back by a load, and the
 * alloc_shared_noncontig hint; the predefined attributes (MPI_WIN_BASE, SIZE, DISP_UNIT,
 * CREATE_FLAVOR, MODEL) of every flavor; Win_get_group, Win_set_name/get_name,
 * Win_get_info; window error handlers (MPI_Win_create_errhandler, set/get, call) and the
 * error classes MPICH returns for misuse: a Put outside an epoch, a target rank out of range,
 * a negative displacement, MPI_NO_OP in MPI_Accumulate, MPI_Compare_and_swap on a double, a
 * flush or unlock without a lock, MPI_Win_shared_query on other flavors, a bad lock type.
 *
 * Run it with all ranks on one node (as MPICH's mpiexec does on one machine; `mgen run
 * --ppn N`): the shared-window part depends on which ranks share a node.
 */
#include "check.h"

static void test_dynamic(ck_t* h, int rank, int size) {
  int next = (rank + 1) % size, prev = (rank - 1 + size) % size;
  MPI_Win win;
  MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  void* v = NULL;
  int flag = 0;
  MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &v, &flag);
  CHECK(flag && *(int*)v == MPI_WIN_FLAVOR_DYNAMIC, "dynamic flavor");
  ck_int(h, *(int*)v);
  MPI_Win_get_attr(win, MPI_WIN_SIZE, &v, &flag);
  CHECK(flag && *(MPI_Aint*)v == 0, "dynamic size");
  int* a = calloc(4, sizeof(int));
  double* b = calloc(8, sizeof(double));
  MPI_Win_attach(win, a, 4 * sizeof(int));
  MPI_Win_attach(win, b, 8 * sizeof(double));
  MPI_Aint mine[2], *all = malloc(sizeof(MPI_Aint) * 2 * (size_t)size);
  MPI_Get_address(a, &mine[0]);
  MPI_Get_address(b, &mine[1]);
  MPI_Allgather(mine, 2, MPI_AINT, all, 2, MPI_AINT, MPI_COMM_WORLD);
  MPI_Win_fence(0, win);
  int iv = rank * 11 + 1;
  double dv[2] = {rank + 0.5, -rank - 0.25};
  MPI_Put(&iv, 1, MPI_INT, next, MPI_Aint_add(all[2 * next], sizeof(int)), 1, MPI_INT, win);
  MPI_Accumulate(dv, 2, MPI_DOUBLE, 0, MPI_Aint_add(all[1], 2 * sizeof(double)), 2, MPI_DOUBLE, MPI_SUM, win);
  MPI_Win_fence(0, win);
  CHECK(a[1] == prev * 11 + 1, "dynamic put: %d", a[1]);
  ck_int(h, a[1]);
  if (rank == 0) {
    CHECK(b[2] == size * size / 2.0 && b[3] == -(size * (size - 1) / 2.0) - 0.25 * size, "dynamic accumulate");
    ck_doubles(h, b, 8);
  }
  /* detach a, attach c: the neighbours now read c through its new address */
  MPI_Win_detach(win, a);
  int* c = malloc(2 * sizeof(int));
  c[0] = rank * 3;
  c[1] = rank * 3 + 1;
  MPI_Win_attach(win, c, 2 * sizeof(int));
  MPI_Get_address(c, &mine[0]);
  MPI_Allgather(mine, 2, MPI_AINT, all, 2, MPI_AINT, MPI_COMM_WORLD);
  int got[2] = {-1, -1};
  MPI_Win_lock(MPI_LOCK_SHARED, prev, 0, win);
  MPI_Get(got, 2, MPI_INT, prev, all[2 * prev], 2, MPI_INT, win);
  MPI_Win_unlock(prev, win);
  CHECK(got[0] == prev * 3 && got[1] == prev * 3 + 1, "dynamic get after attach");
  ck_ints(h, got, 2);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_detach(win, c);
  MPI_Win_detach(win, b);
  MPI_Win_free(&win);
  free(a);
  free(b);
  free(c);
  free(all);
}

static void test_shared(ck_t* h, int rank) {
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
  int nr, ns;
  MPI_Comm_rank(node, &nr);
  MPI_Comm_size(node, &ns);
  /* parts of 0, 4, 8, 0, 4, ... ints: zero-sized parts included */
  int mine = (nr % 3) * 4;
  int* base = NULL;
  MPI_Win win;
  MPI_Win_allocate_shared((MPI_Aint)(mine * sizeof(int)), sizeof(int), MPI_INFO_NULL, node, &base, &win);
  void* v = NULL;
  int flag = 0;
  MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &v, &flag);
  CHECK(flag && *(int*)v == MPI_WIN_FLAVOR_SHARED, "shared flavor");
  ck_int(h, *(int*)v);
  MPI_Win_get_attr(win, MPI_WIN_MODEL, &v, &flag);
  CHECK(flag && *(int*)v == MPI_WIN_UNIFIED, "shared model");
  /* contiguous: each part follows the previous member's */
  int** parts = malloc(sizeof(int*) * (size_t)ns);
  int* sizes = malloc(sizeof(int) * (size_t)ns);
  int first = -1;
  for (int q = 0; q < ns; q++) {
    MPI_Aint sz;
    int du;
    MPI_Win_shared_query(win, q, &sz, &du, &parts[q]);
    sizes[q] = (int)sz;
    CHECK(du == (int)sizeof(int) && sz == (MPI_Aint)((q % 3) * 4 * sizeof(int)), "shared_query %d", q);
    if (sz > 0 && first < 0) first = q;
  }
  for (int q = 1; q < ns; q++) {
    if (sizes[q] > 0 && first >= 0 && q != first) {
      char* expect = (char*)parts[first];
      for (int p = first; p < q; p++)
        expect += sizes[p];
      CHECK((char*)parts[q] == expect, "shared part %d is not contiguous", q);
    }
  }
  if (first >= 0) {
    MPI_Aint sz;
    int du;
    int* p0 = NULL;
    MPI_Win_shared_query(win, MPI_PROC_NULL, &sz, &du, &p0);
    CHECK(p0 == parts[first] && sz == sizes[first], "shared_query(MPI_PROC_NULL)");
  }
  /* stores into the part of the next member that has one; loads by that member */
  MPI_Win_lock_all(0, win);
  for (int k = 0; k < mine; k++)
    base[k] = -1;
  MPI_Win_sync(win);
  MPI_Barrier(node);
  MPI_Win_sync(win);
  int to = -1;
  for (int d = 1; d <= ns && to < 0; d++)
    if (sizes[(nr + d) % ns] > 0) to = (nr + d) % ns;
  /* each member stores into its slot nr % (part length) of `to`; several may share `to`, so
   * the slot is by (sender index within the senders) */
  if (to >= 0) {
    int len = sizes[to] / (int)sizeof(int);
    parts[to][nr % len] = 0; /* cleared first, then accumulated below by RMA */
  }
  MPI_Win_sync(win);
  MPI_Barrier(node);
  MPI_Win_sync(win);
  if (to >= 0) {
    int one = nr + 1, len = sizes[to] / (int)sizeof(int);
    MPI_Accumulate(&one, 1, MPI_INT, to, nr % len, 1, MPI_INT, MPI_SUM, win);
    MPI_Win_flush(to, win);
  }
  MPI_Win_sync(win);
  MPI_Barrier(node);
  MPI_Win_sync(win);
  /* every member checks its own part by loads against a sequential computation */
  int* want = calloc((size_t)(mine > 0 ? mine : 1), sizeof(int));
  for (int k = 0; k < mine; k++)
    want[k] = -1;
  for (int q = 0; q < ns; q++) {
    int tq = -1;
    for (int d = 1; d <= ns && tq < 0; d++)
      if (sizes[(q + d) % ns] > 0) tq = (q + d) % ns;
    if (tq == nr) want[q % mine] = 0;
  }
  for (int q = 0; q < ns; q++) {
    int tq = -1;
    for (int d = 1; d <= ns && tq < 0; d++)
      if (sizes[(q + d) % ns] > 0) tq = (q + d) % ns;
    if (tq == nr) want[q % mine] += q + 1;
  }
  for (int k = 0; k < mine; k++)
    CHECK(base[k] == want[k], "shared part element %d: %d, want %d", k, base[k], want[k]);
  ck_ints(h, base, mine);
  MPI_Win_unlock_all(win);
  free(want);
  MPI_Win_free(&win);
  /* alloc_shared_noncontig: every part is still reachable and writable */
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "alloc_shared_noncontig", "true");
  MPI_Win_allocate_shared((MPI_Aint)(2 * sizeof(int)), sizeof(int), info, node, &base, &win);
  MPI_Info_free(&info);
  MPI_Win_lock_all(0, win);
  base[0] = nr;
  base[1] = nr * nr;
  MPI_Win_sync(win);
  MPI_Barrier(node);
  MPI_Win_sync(win);
  int* other = NULL;
  MPI_Aint sz;
  int du;
  MPI_Win_shared_query(win, (nr + 1) % ns, &sz, &du, &other);
  CHECK(sz == 2 * sizeof(int) && other[0] == (nr + 1) % ns && other[1] == other[0] * other[0], "noncontig part");
  ck_ints(h, other, 2);
  MPI_Win_unlock_all(win);
  MPI_Win_free(&win);
  free(parts);
  free(sizes);
  MPI_Comm_free(&node);
}

static int handler_calls = 0, handler_last = 0;
static void win_handler(MPI_Win* win, int* code, ...) {
  (void)win;
  handler_calls++;
  handler_last = *code;
}

static void test_queries_and_errors(ck_t* h, int rank, int size) {
  int buf[16];
  MPI_Win win;
  MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  void* v = NULL;
  int flag = 0;
  MPI_Win_get_attr(win, MPI_WIN_BASE, &v, &flag);
  CHECK(flag && v == buf, "MPI_WIN_BASE");
  MPI_Win_get_attr(win, MPI_WIN_SIZE, &v, &flag);
  CHECK(flag && *(MPI_Aint*)v == (MPI_Aint)sizeof buf, "MPI_WIN_SIZE");
  MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &v, &flag);
  CHECK(flag && *(int*)v == (int)sizeof(int), "MPI_WIN_DISP_UNIT");
  MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &v, &flag);
  CHECK(flag && *(int*)v == MPI_WIN_FLAVOR_CREATE, "create flavor");
  ck_int(h, *(int*)v);
  MPI_Win_get_attr(win, MPI_WIN_MODEL, &v, &flag);
  CHECK(flag && *(int*)v == MPI_WIN_UNIFIED, "model %d", *(int*)v);
  ck_int(h, *(int*)v);
  /* group, name, info */
  MPI_Group wg, cg;
  int cmp = -1;
  MPI_Win_get_group(win, &wg);
  MPI_Comm_group(MPI_COMM_WORLD, &cg);
  MPI_Group_compare(wg, cg, &cmp);
  CHECK(cmp == MPI_IDENT, "Win_get_group: %d", cmp);
  MPI_Group_free(&wg);
  MPI_Group_free(&cg);
  char name[MPI_MAX_OBJECT_NAME];
  int len = -1;
  MPI_Win_get_name(win, name, &len);
  CHECK(len == 0 && name[0] == 0, "default window name '%s'", name);
  MPI_Win_set_name(win, "halo window");
  MPI_Win_get_name(win, name, &len);
  CHECK(len == 11 && strcmp(name, "halo window") == 0, "window name '%s'", name);
  ck_str(h, name);
  MPI_Info info = MPI_INFO_NULL;
  MPI_Win_get_info(win, &info);
  CHECK(info != MPI_INFO_NULL, "Win_get_info");
  MPI_Info_free(&info);
  /* a user error handler sees the error; MPI_Win_call_errhandler returns success after it */
  MPI_Errhandler eh, got;
  MPI_Win_create_errhandler(win_handler, &eh);
  MPI_Win_set_errhandler(win, eh);
  MPI_Win_get_errhandler(win, &got);
  CHECK(got == eh, "Win_get_errhandler");
  MPI_Errhandler_free(&got);
  int rc = MPI_Win_call_errhandler(win, MPI_ERR_OTHER);
  CHECK(rc == MPI_SUCCESS && handler_calls == 1 && handler_last == MPI_ERR_OTHER, "Win_call_errhandler");
  int one = 1, cls = 0;
  rc = MPI_Put(&one, 1, MPI_INT, 0, 0, 1, MPI_INT, win); /* no epoch */
  MPI_Error_class(handler_last, &cls);
  CHECK(rc != MPI_SUCCESS && handler_calls == 2 && cls == MPI_ERR_RMA_SYNC, "handler for Put outside an epoch");
  ck_int(h, cls);
  MPI_Errhandler_free(&eh);
  /* error classes with MPI_ERRORS_RETURN */
  MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
  int classes[10], n = 0;
#define CLASS_OF(call)                    \
  do {                                    \
    MPI_Error_class((call), &classes[n]); \
    n++;                                  \
  } while (0)
  CLASS_OF(MPI_Win_flush(0, win));     /* no lock */
  CLASS_OF(MPI_Win_unlock(0, win));    /* no lock */
  CLASS_OF(MPI_Win_lock(12345, 0, 0, win));
  MPI_Win_fence(0, win);
  double d = 1;
  CLASS_OF(MPI_Put(&one, 1, MPI_INT, size, 0, 1, MPI_INT, win));
  CLASS_OF(MPI_Get(&one, 1, MPI_INT, -3, 0, 1, MPI_INT, win));
  CLASS_OF(MPI_Put(&one, 1, MPI_INT, 0, -1, 1, MPI_INT, win));
  CLASS_OF(MPI_Accumulate(&one, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_NO_OP, win));
  CLASS_OF(MPI_Compare_and_swap(&d, &d, &d, MPI_DOUBLE, 0, 0, win));
  MPI_Aint sz;
  int du;
  void* p;
  CLASS_OF(MPI_Win_shared_query(win, 0, &sz, &du, &p));
  MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
  CLASS_OF(MPI_Accumulate(&one, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, win)); /* epoch ended */
  const int want[10] = {MPI_ERR_RMA_SYNC, MPI_ERR_RMA_SYNC, MPI_ERR_ARG, MPI_ERR_RANK, MPI_ERR_RANK,
                        MPI_ERR_DISP,     MPI_ERR_OP,       MPI_ERR_TYPE, MPI_ERR_RMA_FLAVOR, MPI_ERR_RMA_SYNC};
  for (int i = 0; i < n; i++)
    CHECK(classes[i] == want[i], "error case %d: class %d, want %d", i, classes[i], want[i]);
  ck_ints(h, classes, n);
  MPI_Win_free(&win);
  (void)rank;
}

int main(int argc, char** argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  ck_t h = CK_INIT;
  test_dynamic(&h, rank, size);
  test_shared(&h, rank);
  test_queries_and_errors(&h, rank, size);
  ck_finish(&h, "rma_windows");
  MPI_Finalize();
  return 0;
}
