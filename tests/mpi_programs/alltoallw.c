/* alltoallw.c - MPI_Alltoallw and MPI_Ialltoallw, MPI_Reduce_local, and reductions MPICH
 * computes that the other programs leave out.
 *
 * Checks: Alltoallw with a datatype per peer (contiguous ints one way, every other int the
 * other way, so sender and receiver layouts differ), byte displacements with gaps that must stay
 * untouched, zero counts to some peers; the MPI_IN_PLACE form; Ialltoallw; both on an
 * intercommunicator between the even and the odd ranks (uneven groups); MPI_Reduce_local with
 * predefined operations and with a non-commutative user operation, also on a non-contiguous
 * datatype (inoutbuf = inbuf op inoutbuf, in that order); MPI_LXOR on float, double and long
 * double (an MPICH extension: MPICH 4.0.2 computes it); a user operation on a non-contiguous
 * datatype through Reduce, Allreduce, Iallreduce and Ireduce_scatter (the function sees the
 * data laid out as the datatype says); MPI_Alltoallv_c (the MPI-4 large-count form, with small
 * counts). Results are checked against closed forms.
 */
#include "check.h"

enum { SLOT = 16 }; /* ints per peer block: room for 4 strided elements and gaps */

static int dv(int src, int dst, int k) {
  return src * 1009 + dst * 31 + k + 1;
}

/* How many ints `src` sends to `dst` (symmetric; zero for some pairs). */
static int cnt(int src, int dst) {
  return (src + dst) % 5 == 3 ? 0 : (src + dst) % 4 + 1;
}

/* Every other int: one int, extent two ints. */
static MPI_Datatype strided_int(void) {
  MPI_Datatype v, t;
  MPI_Type_vector(1, 1, 2, MPI_INT, &v);
  MPI_Type_create_resized(v, 0, 2 * (MPI_Aint)sizeof(int), &t);
  MPI_Type_free(&v);
  MPI_Type_commit(&t);
  return t;
}

/* The layout of block `peer` in a buffer: strided when `strided`, at an offset of one int. */
static void layout(int peer, int n, int strided, MPI_Datatype st, int* count, int* displ, MPI_Datatype* type) {
  *count = n;
  *displ = (peer * SLOT + 1) * (int)sizeof(int);
  *type = strided ? st : MPI_INT;
}

static int elem(int peer, int k, int strided) {
  return peer * SLOT + 1 + (strided ? 2 * k : k);
}

/* One exchange on `comm` (intra or inter; `npeers` = size or remote size), in place or not. */
static void exchange(ck_t* h, MPI_Comm comm, int me, int npeers, int in_place, int nonblocking) {
  MPI_Datatype st = strided_int();
  int *sc = malloc(sizeof(int) * (size_t)npeers), *sd = malloc(sizeof(int) * (size_t)npeers);
  int *rc = malloc(sizeof(int) * (size_t)npeers), *rd = malloc(sizeof(int) * (size_t)npeers);
  MPI_Datatype *stp = malloc(sizeof(MPI_Datatype) * (size_t)npeers),
               *rtp = malloc(sizeof(MPI_Datatype) * (size_t)npeers);
  int* sbuf = malloc(sizeof(int) * (size_t)(npeers * SLOT));
  int* rbuf = malloc(sizeof(int) * (size_t)(npeers * SLOT));
  for (int i = 0; i < npeers * SLOT; i++) {
    sbuf[i] = -7;
    rbuf[i] = -9;
  }
  for (int p = 0; p < npeers; p++) {
    /* Sending: strided to odd peers; receiving: strided from even peers (in place: the
     * receive layout serves both ways). */
    layout(p, cnt(me, p), p % 2 == 1, st, &sc[p], &sd[p], &stp[p]);
    layout(p, cnt(p, me), p % 2 == 0, st, &rc[p], &rd[p], &rtp[p]);
    for (int k = 0; k < sc[p]; k++)
      sbuf[elem(p, k, p % 2 == 1)] = dv(me, p, k);
    if (in_place) {
      for (int k = 0; k < rc[p]; k++)
        rbuf[elem(p, k, p % 2 == 0)] = dv(me, p, k);
    }
  }
  const void* s = in_place ? MPI_IN_PLACE : sbuf;
  if (nonblocking) {
    MPI_Request rq;
    CHECK_MPI(MPI_Ialltoallw(s, sc, sd, stp, rbuf, rc, rd, rtp, comm, &rq));
    CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
  } else {
    CHECK_MPI(MPI_Alltoallw(s, sc, sd, stp, rbuf, rc, rd, rtp, comm));
  }
  /* Every int outside the blocks keeps its value. */
  for (int p = 0; p < npeers; p++) {
    for (int i = 0; i < SLOT; i++) {
      const int* at = &rbuf[p * SLOT + i];
      int want = -9;
      for (int k = 0; k < rc[p]; k++) {
        if (elem(p, k, p % 2 == 0) == p * SLOT + i) want = dv(p, me, k);
      }
      CHECK(*at == want, "alltoallw (in place %d, nb %d) from %d int %d: %d, expected %d", in_place, nonblocking, p,
            i, *at, want);
    }
  }
  ck_ints(h, rbuf, npeers * SLOT);
  MPI_Type_free(&st);
  free(sc), free(sd), free(rc), free(rd), free(stp), free(rtp), free(sbuf), free(rbuf);
}

static void test_intercomm(ck_t* h, int rank, int size) {
  if (size < 2) return;
  MPI_Comm half, inter;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
  MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 == 0 ? 1 : 0, 7, &inter);
  int me, remote;
  MPI_Comm_rank(inter, &me);
  MPI_Comm_remote_size(inter, &remote);
  /* Both directions must agree on the counts: cnt(src, dst) with group ranks. */
  exchange(h, inter, me, remote, 0, 0);
  exchange(h, inter, me, remote, 0, 1);
  MPI_Comm_free(&inter);
  MPI_Comm_free(&half);
}

/* inout[i] = 2 * in[i] - inout[i]: not commutative, so the order of the operands shows. */
static void twice_minus(void* in, void* inout, int* len, MPI_Datatype* t) {
  MPI_Aint lb, extent;
  MPI_Type_get_extent(*t, &lb, &extent);
  const int stride = (int)(extent / (MPI_Aint)sizeof(int));
  const int* a = in;
  int* b = inout;
  for (int i = 0; i < *len; i++)
    b[i * stride] = 2 * a[i * stride] - b[i * stride];
}

/* Sum of every other int (the function sees the datatype's layout). */
static void strided_sum(void* in, void* inout, int* len, MPI_Datatype* t) {
  MPI_Aint lb, extent;
  MPI_Type_get_extent(*t, &lb, &extent);
  const int stride = (int)(extent / (MPI_Aint)sizeof(int));
  const int* a = in;
  int* b = inout;
  for (int i = 0; i < *len; i++)
    b[i * stride] += a[i * stride];
}

static void test_reduce_local(ck_t* h, int rank) {
  int a[4] = {1, 2, 3, rank}, b[4] = {10, 20, 30, 40};
  CHECK_MPI(MPI_Reduce_local(a, b, 4, MPI_INT, MPI_SUM));
  CHECK(b[0] == 11 && b[1] == 22 && b[2] == 33 && b[3] == 40 + rank, "Reduce_local SUM");
  ck_ints(h, b, 4);
  double x[2] = {1.5, -2}, y[2] = {0.5, 3};
  CHECK_MPI(MPI_Reduce_local(x, y, 2, MPI_DOUBLE, MPI_MAX));
  CHECK(y[0] == 1.5 && y[1] == 3, "Reduce_local MAX");
  ck_doubles(h, y, 2);

  /* (MPICH 4.0.2 refuses predefined operations on derived datatypes here: not tested.) */
  MPI_Datatype st = strided_int();

  MPI_Op op;
  MPI_Op_create(twice_minus, 0, &op);
  int e[3] = {4, 5, 6}, f[3] = {1, 1, 1};
  CHECK_MPI(MPI_Reduce_local(e, f, 3, MPI_INT, op));
  CHECK(f[0] == 7 && f[1] == 9 && f[2] == 11, "Reduce_local user op: inoutbuf = inbuf op inoutbuf");
  ck_ints(h, f, 3);
  int g[6] = {4, 0, 5, 0, 6, 0}, k[6] = {1, 9, 1, 9, 1, 9};
  CHECK_MPI(MPI_Reduce_local(g, k, 3, st, op));
  CHECK(k[0] == 7 && k[2] == 9 && k[4] == 11 && k[1] == 9 && k[5] == 9, "Reduce_local user op on a strided type");
  ck_ints(h, k, 6);
  MPI_Op_free(&op);
  MPI_Type_free(&st);
}

/* MPI_LXOR on floating point: the pattern of MPICH's oplxor test, on every rank count. */
static void test_lxor_floating(ck_t* h, int rank, int size) {
  float fi[3] = {1, 0, (float)(rank > 0)}, fo[3] = {0, 1, 1};
  double di[3] = {1, 0, (double)(rank > 0)}, dout[3] = {0, 1, 1};
  long double li[3] = {1, 0, (long double)(rank > 0)}, lo[3] = {0, 1, 1};
  CHECK_MPI(MPI_Allreduce(fi, fo, 3, MPI_FLOAT, MPI_LXOR, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Reduce(di, dout, 3, MPI_DOUBLE, MPI_LXOR, 0, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Allreduce(li, lo, 3, MPI_LONG_DOUBLE, MPI_LXOR, MPI_COMM_WORLD));
  const int odd = size % 2, others = (size - 1) % 2;
  CHECK(fo[0] == odd && fo[1] == 0 && fo[2] == others, "LXOR float: %g %g %g", fo[0], fo[1], fo[2]);
  CHECK(lo[0] == odd && lo[1] == 0 && lo[2] == others, "LXOR long double");
  if (rank == 0) CHECK(dout[0] == odd && dout[1] == 0 && dout[2] == others, "LXOR double");
  ck_int(h, (int)fo[0] + 2 * (int)fo[2] + 4 * (int)lo[2] + 8 * (rank == 0 ? (int)dout[2] : others));
}

/* A commutative user operation on a non-contiguous datatype, through the collectives. */
static void test_user_op_strided(ck_t* h, int rank, int size) {
  MPI_Datatype st = strided_int();
  MPI_Op op;
  MPI_Op_create(strided_sum, 1, &op);
  enum { C = 3 };
  int in[2 * C], out[2 * C];
  const int total = size * (size + 1) / 2;
  for (int way = 0; way < 3; way++) {
    for (int k = 0; k < 2 * C; k++) {
      in[k] = k % 2 == 0 ? (rank + 1) * (k / 2 + 1) : -5;
      out[k] = -3;
    }
    if (way == 0) {
      CHECK_MPI(MPI_Reduce(in, out, C, st, op, size - 1, MPI_COMM_WORLD));
    } else if (way == 1) {
      CHECK_MPI(MPI_Allreduce(in, out, C, st, op, MPI_COMM_WORLD));
    } else {
      MPI_Request rq;
      CHECK_MPI(MPI_Iallreduce(in, out, C, st, op, MPI_COMM_WORLD, &rq));
      CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    }
    if (way > 0 || rank == size - 1) {
      for (int k = 0; k < 2 * C; k++) {
        const int want = k % 2 == 0 ? total * (k / 2 + 1) : -3;
        CHECK(out[k] == want, "user op on a strided type (way %d) int %d: %d, expected %d", way, k, out[k], want);
      }
      ck_ints(h, out, 2 * C);
    }
  }
  /* Ireduce_scatter: C elements per rank. */
  int* big = malloc(sizeof(int) * (size_t)(2 * C * size));
  int* counts = malloc(sizeof(int) * (size_t)size);
  for (int i = 0; i < size; i++)
    counts[i] = C;
  for (int k = 0; k < 2 * C * size; k++)
    big[k] = k % 2 == 0 ? rank + k / 2 : -5;
  for (int k = 0; k < 2 * C; k++)
    out[k] = -3;
  MPI_Request rq;
  CHECK_MPI(MPI_Ireduce_scatter(big, out, counts, st, op, MPI_COMM_WORLD, &rq));
  CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
  for (int k = 0; k < 2 * C; k++) {
    const int j = rank * C + k / 2; /* element index in the full vector */
    const int want = k % 2 == 0 ? size * j + size * (size - 1) / 2 : -3;
    CHECK(out[k] == want, "Ireduce_scatter user op strided int %d: %d, expected %d", k, out[k], want);
  }
  ck_ints(h, out, 2 * C);
  free(big);
  free(counts);
  MPI_Op_free(&op);
  MPI_Type_free(&st);
}

/* The large-count form with MPI_Count counts and MPI_Aint displacements (3 ints apart). */
static void test_alltoallv_c(ck_t* h, int rank, int size) {
  MPI_Count* counts = malloc(sizeof(MPI_Count) * (size_t)size);
  MPI_Aint* displs = malloc(sizeof(MPI_Aint) * (size_t)size);
  int* s = malloc(sizeof(int) * (size_t)(3 * size));
  int* r = malloc(sizeof(int) * (size_t)(3 * size));
  for (int i = 0; i < size; i++) {
    counts[i] = 1 + (rank + i) % 2;
    displs[i] = 3 * i;
  }
  for (int i = 0; i < 3 * size; i++) {
    s[i] = dv(rank, i / 3, i % 3);
    r[i] = -1;
  }
  CHECK_MPI(MPI_Alltoallv_c(s, counts, displs, MPI_INT, r, counts, displs, MPI_INT, MPI_COMM_WORLD));
  for (int i = 0; i < 3 * size; i++) {
    const int want = i % 3 < counts[i / 3] ? dv(i / 3, rank, i % 3) : -1;
    CHECK(r[i] == want, "Alltoallv_c int %d: %d, expected %d", i, r[i], want);
  }
  ck_ints(h, r, 3 * size);
  free(counts), free(displs), free(s), free(r);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  ck_t h = CK_INIT;
  exchange(&h, MPI_COMM_WORLD, rank, size, 0, 0);
  exchange(&h, MPI_COMM_WORLD, rank, size, 1, 0);
  exchange(&h, MPI_COMM_WORLD, rank, size, 0, 1);
  exchange(&h, MPI_COMM_WORLD, rank, size, 1, 1);
  test_intercomm(&h, rank, size);
  test_reduce_local(&h, rank);
  test_lxor_floating(&h, rank, size);
  test_user_op_strided(&h, rank, size);
  test_alltoallv_c(&h, rank, size);
  ck_finish(&h, "alltoallw");
  MPI_Finalize();
  return 0;
}
