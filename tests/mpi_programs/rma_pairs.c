/* rma_pairs.c - one-sided atomics on the MINLOC/MAXLOC pair types.
 *
 * The pair types are laid out as C lays out struct { T value; int index; }: MPI_SHORT_INT
 * has its int at offset 4 (two bytes of padding after the short), MPI_LONG_DOUBLE_INT at 16,
 * the others right after the value. For every pair type (MPI_SHORT_INT, MPI_2INT,
 * MPI_LONG_INT, MPI_FLOAT_INT, MPI_DOUBLE_INT, MPI_LONG_DOUBLE_INT) each rank, on its right
 * neighbour's window:
 *   MPI_Fetch_and_op with MPI_NO_OP (with a null origin too), MPI_REPLACE, MPI_MAXLOC and
 *   MPI_MINLOC: the value fetched and the value left, both halves;
 *   MPI_Get_accumulate of three elements with MPI_NO_OP, MPI_REPLACE and MPI_MAXLOC, the
 *   result landing in a buffer of the same struct type;
 *   MPI_Accumulate with MPI_MINLOC from every rank into rank 0 (ties keep the lower index).
 * Windows are multiples of 64 bytes (see onesided.c: MPICH 4.0.2's ch4:ucx misreads others).
 */
#include "check.h"

enum { NELEM = 8 };

/* v(i, r): the value part of element i of rank r's window, small enough for every type;
 * x(i, r): its index part. */
static int v_of(int i, int r) {
  return (r * 5 + i * 3) % 13 - 4;
}
static int x_of(int i, int r) {
  return 100 * r + i;
}

#define DEFINE_PAIR_TEST(NAME, T, MPITYPE)                                                              \
  typedef struct {                                                                                      \
    T v;                                                                                                \
    int x;                                                                                              \
  } NAME##_pair;                                                                                        \
  static void NAME##_check(const NAME##_pair* p, int v, int x, const char* what, int i) {               \
    CHECK(p->v == (T)v && p->x == x, "%s %s[%d]: got (%g, %d), want (%d, %d)", #MPITYPE, what, i,       \
          (double)p->v, p->x, v, x);                                                                    \
  }                                                                                                     \
  static void NAME##_test(ck_t* h, int rank, int size) {                                                \
    const int next = (rank + 1) % size, prev = (rank - 1 + size) % size;                                \
    const MPI_Aint bytes = (MPI_Aint)((sizeof(NAME##_pair) * NELEM + 63) / 64 * 64);                    \
    NAME##_pair* base = NULL;                                                                           \
    MPI_Win win;                                                                                        \
    MPI_Win_allocate(bytes, (int)sizeof(NAME##_pair), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);      \
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win);                                                     \
    for (int i = 0; i < NELEM; i++) {                                                                   \
      base[i].v = (T)v_of(i, rank);                                                                     \
      base[i].x = x_of(i, rank);                                                                        \
    }                                                                                                   \
    MPI_Win_unlock(rank, win);                                                                          \
    MPI_Barrier(MPI_COMM_WORLD);                                                                        \
    NAME##_pair res[NELEM], org[NELEM];                                                                 \
    memset(res, 0, sizeof res);                                                                         \
    /* Fetch_and_op: NO_OP on element 0 (null origin too), REPLACE on 1, MAXLOC on 2, MINLOC on 3. */   \
    org[0].v = (T)50;                                                                                   \
    org[0].x = -1;                                                                                      \
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, next, 0, win);                                                     \
    MPI_Fetch_and_op(&org[0], &res[0], MPITYPE, next, 0, MPI_NO_OP, win);                               \
    MPI_Fetch_and_op(NULL, &res[4], MPITYPE, next, 0, MPI_NO_OP, win);                                  \
    org[1].v = (T)(-7 - rank);                                                                          \
    org[1].x = 7000 + rank;                                                                             \
    MPI_Fetch_and_op(&org[1], &res[1], MPITYPE, next, 1, MPI_REPLACE, win);                             \
    org[2].v = (T)2;                                                                                    \
    org[2].x = 8000 + rank;                                                                             \
    MPI_Fetch_and_op(&org[2], &res[2], MPITYPE, next, 2, MPI_MAXLOC, win);                              \
    org[3].v = (T)2;                                                                                    \
    org[3].x = 9000 + rank;                                                                             \
    MPI_Fetch_and_op(&org[3], &res[3], MPITYPE, next, 3, MPI_MINLOC, win);                              \
    MPI_Win_unlock(next, win);                                                                          \
    NAME##_check(&res[0], v_of(0, next), x_of(0, next), "NO_OP fetched", 0);                            \
    NAME##_check(&res[4], v_of(0, next), x_of(0, next), "NO_OP (null origin) fetched", 0);              \
    for (int i = 1; i < 4; i++)                                                                         \
      NAME##_check(&res[i], v_of(i, next), x_of(i, next), "fetched", i);                                \
    /* Get_accumulate of elements 4..6: NO_OP, then REPLACE, then MAXLOC. */                            \
    NAME##_pair got[3][3];                                                                              \
    memset(got, 0, sizeof got);                                                                         \
    for (int i = 0; i < 3; i++) {                                                                       \
      org[i].v = (T)(i - 1);                                                                            \
      org[i].x = 500 + 10 * rank + i;                                                                   \
    }                                                                                                   \
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, next, 0, win);                                                     \
    MPI_Get_accumulate(org, 3, MPITYPE, got[0], 3, MPITYPE, next, 4, 3, MPITYPE, MPI_NO_OP, win);       \
    MPI_Win_flush(next, win);                                                                           \
    MPI_Get_accumulate(org, 3, MPITYPE, got[1], 3, MPITYPE, next, 4, 3, MPITYPE, MPI_REPLACE, win);     \
    MPI_Win_flush(next, win);                                                                           \
    org[0].v = (T)40; /* a larger value wins; an equal one keeps the lower index */                     \
    org[1].v = (T)(-20);                                                                                \
    org[2].v = (T)1;                                                                                    \
    org[2].x = -5;                                                                                      \
    MPI_Get_accumulate(org, 3, MPITYPE, got[2], 3, MPITYPE, next, 4, 3, MPITYPE, MPI_MAXLOC, win);      \
    MPI_Win_unlock(next, win);                                                                          \
    for (int i = 0; i < 3; i++) {                                                                       \
      NAME##_check(&got[0][i], v_of(4 + i, next), x_of(4 + i, next), "Get_accumulate NO_OP", i);        \
      NAME##_check(&got[1][i], v_of(4 + i, next), x_of(4 + i, next), "Get_accumulate REPLACE", i);      \
      NAME##_check(&got[2][i], i - 1, 500 + 10 * rank + i, "Get_accumulate MAXLOC", i);                 \
    }                                                                                                   \
    MPI_Barrier(MPI_COMM_WORLD);                                                                        \
    /* What the left neighbour left in this rank's window. */                                           \
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win);                                                     \
    NAME##_check(&base[0], v_of(0, rank), x_of(0, rank), "after NO_OP", 0);                             \
    NAME##_check(&base[1], -7 - prev, 7000 + prev, "after REPLACE", 1);                                 \
    {                                                                                                   \
      int v = v_of(2, rank), x = x_of(2, rank);                                                         \
      if (2 > v || (2 == v && 8000 + prev < x)) v = 2, x = 8000 + prev;                                 \
      NAME##_check(&base[2], v, x, "after MAXLOC", 2);                                                  \
      v = v_of(3, rank), x = x_of(3, rank);                                                             \
      if (2 < v || (2 == v && 9000 + prev < x)) v = 2, x = 9000 + prev;                                 \
      NAME##_check(&base[3], v, x, "after MINLOC", 3);                                                  \
    }                                                                                                   \
    NAME##_check(&base[4], 40, 500 + 10 * prev, "after Get_accumulate MAXLOC", 4);                      \
    NAME##_check(&base[5], 0, 501 + 10 * prev, "after Get_accumulate MAXLOC", 5);                       \
    NAME##_check(&base[6], 1, -5, "after Get_accumulate MAXLOC", 6);                                    \
    for (int i = 0; i < 7; i++) {                                                                       \
      ck_double(h, (double)base[i].v);                                                                  \
      ck_int(h, base[i].x);                                                                             \
    }                                                                                                   \
    /* Every rank's MINLOC into rank 0's element 7: the least value, its lowest index. */               \
    base[7].v = (T)99;                                                                                  \
    base[7].x = 99;                                                                                     \
    MPI_Win_unlock(rank, win);                                                                          \
    MPI_Barrier(MPI_COMM_WORLD);                                                                        \
    NAME##_pair mine = {(T)((rank * 7) % 5), 1000 - rank};                                              \
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);                                                           \
    MPI_Accumulate(&mine, 1, MPITYPE, 0, 7, 1, MPITYPE, MPI_MINLOC, win);                               \
    MPI_Win_unlock(0, win);                                                                             \
    MPI_Barrier(MPI_COMM_WORLD);                                                                        \
    if (rank == 0) {                                                                                    \
      int v = 99, x = 99;                                                                               \
      for (int r = 0; r < size; r++) {                                                                  \
        int rv = (r * 7) % 5, rx = 1000 - r;                                                            \
        if (rv < v || (rv == v && rx < x)) v = rv, x = rx;                                              \
      }                                                                                                 \
      MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);                                                      \
      NAME##_check(&base[7], v, x, "MINLOC of every rank", 7);                                          \
      ck_double(h, (double)base[7].v);                                                                  \
      ck_int(h, base[7].x);                                                                             \
      MPI_Win_unlock(0, win);                                                                           \
    }                                                                                                   \
    MPI_Win_free(&win);                                                                                 \
  }

DEFINE_PAIR_TEST(short_int, short, MPI_SHORT_INT)
DEFINE_PAIR_TEST(two_int, int, MPI_2INT)
DEFINE_PAIR_TEST(long_int, long, MPI_LONG_INT)
DEFINE_PAIR_TEST(float_int, float, MPI_FLOAT_INT)
DEFINE_PAIR_TEST(double_int, double, MPI_DOUBLE_INT)
DEFINE_PAIR_TEST(long_double_int, long double, MPI_LONG_DOUBLE_INT)

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  ck_t h = CK_INIT;
  short_int_test(&h, rank, size);
  two_int_test(&h, rank, size);
  long_int_test(&h, rank, size);
  float_int_test(&h, rank, size);
  double_int_test(&h, rank, size);
  long_double_int_test(&h, rank, size);
  ck_finish(&h, "rma_pairs");
  MPI_Finalize();
  return 0;
}
