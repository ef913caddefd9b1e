/* datatypes.c - derived datatypes.
 *
 * Checks: Type_contiguous, Type_vector, Type_create_hvector, Type_indexed,
 * Type_create_hindexed, Type_create_indexed_block, Type_create_struct, Type_create_resized,
 * Type_commit / Type_free (also freeing a type that another type was built from), Type_size,
 * Type_get_extent, Type_get_true_extent against closed forms; a matrix column (vector) sent with
 * Send/Recv and received as contiguous doubles and the reverse; an array of resized structs
 * through Isend/Irecv and Bcast; columns through Gather; a transpose through Alltoall with a
 * resized vector; Allreduce on a contiguous type of doubles (user-defined sum: predefined ops
 * are defined on predefined types only); count > 1 of a resized type;
 * Get_count / Get_elements on derived types (including a partial last element); MPI_Pack,
 * MPI_Unpack, MPI_Pack_size with an MPI_PACKED message.
 */
#include <stddef.h>
#include "check.h"

struct rec {
  char c;
  double d[2];
  int i;
};

static void check_type(MPI_Datatype t, int size, MPI_Aint lb, MPI_Aint extent, MPI_Aint tlb, MPI_Aint textent,
                       const char* what, ck_t* h) {
  int s;
  MPI_Aint l, e, tl, te;
  MPI_Type_size(t, &s);
  MPI_Type_get_extent(t, &l, &e);
  MPI_Type_get_true_extent(t, &tl, &te);
  CHECK(s == size, "%s: size %d want %d", what, s, size);
  CHECK(l == lb && e == extent, "%s: lb %ld extent %ld want %ld %ld", what, (long)l, (long)e, (long)lb, (long)extent);
  CHECK(tl == tlb && te == textent, "%s: true lb %ld extent %ld want %ld %ld", what, (long)tl, (long)te, (long)tlb,
        (long)textent);
  ck_int(h, s);
  ck_i64(h, (long long)l);
  ck_i64(h, (long long)e);
  ck_i64(h, (long long)tl);
  ck_i64(h, (long long)te);
}

static void test_constructors(ck_t* h) {
  MPI_Datatype t;
  const MPI_Aint D = sizeof(double), I = sizeof(int);

  MPI_Type_contiguous(5, MPI_INT, &t);
  MPI_Type_commit(&t);
  check_type(t, 5 * I, 0, 5 * I, 0, 5 * I, "contiguous", h);
  MPI_Type_free(&t);
  CHECK(t == MPI_DATATYPE_NULL, "Type_free did not null the handle");

  MPI_Type_vector(4, 2, 5, MPI_DOUBLE, &t); /* 4 blocks of 2, stride 5 elements */
  MPI_Type_commit(&t);
  check_type(t, 8 * D, 0, 17 * D, 0, 17 * D, "vector", h);
  MPI_Type_free(&t);

  MPI_Type_create_hvector(3, 2, 40, MPI_INT, &t); /* stride in bytes */
  MPI_Type_commit(&t);
  check_type(t, 6 * I, 0, 80 + 2 * I, 0, 80 + 2 * I, "hvector", h);
  MPI_Type_free(&t);

  {
    int bl[3] = {3, 1, 2}, dp[3] = {4, 1, 9}; /* unsorted: lb comes from the second block */
    MPI_Type_indexed(3, bl, dp, MPI_INT, &t);
    MPI_Type_commit(&t);
    check_type(t, 6 * I, 1 * I, 10 * I, 1 * I, 10 * I, "indexed", h);
    MPI_Type_free(&t);
  }
  {
    int bl[2] = {2, 1};
    MPI_Aint dp[2] = {2 * D, 0};
    MPI_Type_create_hindexed(2, bl, dp, MPI_DOUBLE, &t);
    MPI_Type_commit(&t);
    check_type(t, 3 * D, 0, 4 * D, 0, 4 * D, "hindexed", h);
    MPI_Type_free(&t);
  }
  {
    int dp[3] = {0, 3, 7};
    MPI_Type_create_indexed_block(3, 2, dp, MPI_INT, &t);
    MPI_Type_commit(&t);
    check_type(t, 6 * I, 0, 9 * I, 0, 9 * I, "indexed_block", h);
    MPI_Type_free(&t);
  }
  {
    /* struct: the extent of the raw struct type includes implementation-defined alignment
     * padding, so only its size and true extent are checked; the resized one is exact. */
    int bl[3] = {1, 2, 1};
    MPI_Aint dp[3] = {offsetof(struct rec, c), offsetof(struct rec, d), offsetof(struct rec, i)};
    MPI_Datatype ty[3] = {MPI_CHAR, MPI_DOUBLE, MPI_INT}, r;
    MPI_Type_create_struct(3, bl, dp, ty, &t);
    int s;
    MPI_Aint l, e, tl, te;
    MPI_Type_size(t, &s);
    MPI_Type_get_extent(t, &l, &e);
    MPI_Type_get_true_extent(t, &tl, &te);
    CHECK(s == 1 + 2 * D + I, "struct size %d", s);
    CHECK(l == 0 && tl == 0 && te == (MPI_Aint)offsetof(struct rec, i) + I, "struct true extent");
    CHECK(e >= te, "struct extent %ld", (long)e);
    MPI_Type_create_resized(t, 0, sizeof(struct rec), &r);
    MPI_Type_commit(&r);
    check_type(r, 1 + 2 * D + I, 0, sizeof(struct rec), 0, te, "resized struct", h);
    MPI_Type_free(&r);
    MPI_Type_free(&t);
  }
  {
    MPI_Type_create_resized(MPI_INT, -4, 12, &t);
    MPI_Type_commit(&t);
    check_type(t, I, -4, 12, 0, I, "resized int", h);
    MPI_Type_free(&t);
  }
  {
    /* a type stays usable after the type it was built from is freed */
    MPI_Datatype c, v;
    MPI_Type_contiguous(2, MPI_INT, &c);
    MPI_Type_vector(3, 1, 2, c, &v);
    MPI_Type_free(&c);
    MPI_Type_commit(&v);
    check_type(v, 6 * I, 0, 10 * I, 0, 10 * I, "vector of contiguous", h);
    int a[10], b[6];
    for (int k = 0; k < 10; k++)
      a[k] = k * k;
    MPI_Sendrecv(a, 1, v, 0, 1, b, 6, MPI_INT, 0, 1, MPI_COMM_SELF, MPI_STATUS_IGNORE);
    int want[6] = {0, 1, 16, 25, 64, 81};
    for (int k = 0; k < 6; k++)
      CHECK(b[k] == want[k], "vector of contiguous data %d", k);
    ck_ints(h, b, 6);
    MPI_Type_free(&v);
  }
}

enum { NM = 6 }; /* matrix dimension */
static double mval(int rank, int i, int j) {
  return rank * 100.0 + i * 10.0 + j + 0.5;
}

static void test_column_p2p(ck_t* h, int rank, int size) {
  int next = (rank + 1) % size, prev = (rank - 1 + size) % size;
  double a[NM][NM], col[NM];
  for (int i = 0; i < NM; i++)
    for (int j = 0; j < NM; j++)
      a[i][j] = mval(rank, i, j);
  MPI_Datatype column;
  MPI_Type_vector(NM, 1, NM, MPI_DOUBLE, &column);
  MPI_Type_commit(&column);

  /* send my column (rank % NM) as a vector, receive prev's as contiguous doubles (blocking
   * Send/Recv around the ring: rank 0 sends first, the others receive first) */
  MPI_Status st;
  int cnt, elems;
  if (size == 1) {
    MPI_Sendrecv(&a[0][0], 1, column, 0, 1, col, NM, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD, &st);
  } else if (rank == 0) {
    MPI_Send(&a[0][rank % NM], 1, column, next, 1, MPI_COMM_WORLD);
    MPI_Recv(col, NM, MPI_DOUBLE, prev, 1, MPI_COMM_WORLD, &st);
  } else {
    MPI_Recv(col, NM, MPI_DOUBLE, prev, 1, MPI_COMM_WORLD, &st);
    MPI_Send(&a[0][rank % NM], 1, column, next, 1, MPI_COMM_WORLD);
  }
  MPI_Get_count(&st, MPI_DOUBLE, &cnt);
  CHECK(cnt == NM, "column count %d", cnt);
  for (int i = 0; i < NM; i++)
    CHECK(col[i] == mval(prev, i, prev % NM), "column element %d", i);
  ck_doubles(h, col, NM);

  /* the reverse: send contiguous, receive into a column; the rest of the matrix is untouched */
  double b[NM][NM];
  for (int i = 0; i < NM; i++)
    for (int j = 0; j < NM; j++)
      b[i][j] = -1.0;
  for (int i = 0; i < NM; i++)
    col[i] = mval(rank, i, 99);
  int c = (rank + 2) % NM;
  MPI_Sendrecv(col, NM, MPI_DOUBLE, next, 2, &b[0][c], 1, column, prev, 2, MPI_COMM_WORLD, &st);
  MPI_Get_count(&st, column, &cnt);
  MPI_Get_elements(&st, column, &elems);
  CHECK(cnt == 1 && elems == NM, "receive into column: count %d elements %d", cnt, elems);
  for (int i = 0; i < NM; i++)
    for (int j = 0; j < NM; j++) {
      double want = j == c ? mval(prev, i, 99) : -1.0;
      CHECK(b[i][j] == want, "column receive [%d][%d]=%g", i, j, b[i][j]);
    }
  ck_doubles(h, &b[0][0], NM * NM);

  /* Gather one column from every rank; the root receives contiguous doubles */
  int root = size - 1;
  double* g = rank == root ? malloc(sizeof(double) * NM * (size_t)size) : NULL;
  MPI_Gather(&a[0][1], 1, column, g, NM, MPI_DOUBLE, root, MPI_COMM_WORLD);
  if (rank == root) {
    for (int q = 0; q < size; q++)
      for (int i = 0; i < NM; i++)
        CHECK(g[q * NM + i] == mval(q, i, 1), "Gather column");
    ck_doubles(h, g, NM * size);
    free(g);
  }
  MPI_Type_free(&column);
}

/* Alltoall transpose: S is M x size (row-major); column j goes to rank j as M doubles. */
static void test_alltoall_transpose(ck_t* h, int rank, int size) {
  enum { M = 3 };
  double* s = malloc(sizeof(double) * M * (size_t)size);
  double* r = malloc(sizeof(double) * M * (size_t)size);
  for (int m = 0; m < M; m++)
    for (int j = 0; j < size; j++)
      s[m * size + j] = rank * 1000.0 + m * 100.0 + j;
  MPI_Datatype col, colr;
  MPI_Type_vector(M, 1, size, MPI_DOUBLE, &col);
  MPI_Type_create_resized(col, 0, sizeof(double), &colr); /* next column starts one double on */
  MPI_Type_commit(&colr);
  MPI_Alltoall(s, 1, colr, r, M, MPI_DOUBLE, MPI_COMM_WORLD);
  for (int i = 0; i < size; i++)
    for (int m = 0; m < M; m++)
      CHECK(r[i * M + m] == i * 1000.0 + m * 100.0 + rank, "transpose from %d row %d", i, m);
  ck_doubles(h, r, M * size);
  MPI_Type_free(&col);
  MPI_Type_free(&colr);
  free(s);
  free(r);
}

static MPI_Datatype make_rec_type(void) {
  int bl[3] = {1, 2, 1};
  MPI_Aint dp[3] = {offsetof(struct rec, c), offsetof(struct rec, d), offsetof(struct rec, i)};
  MPI_Datatype ty[3] = {MPI_CHAR, MPI_DOUBLE, MPI_INT}, t, r;
  MPI_Type_create_struct(3, bl, dp, ty, &t);
  MPI_Type_create_resized(t, 0, sizeof(struct rec), &r);
  MPI_Type_commit(&r);
  MPI_Type_free(&t);
  return r;
}
static struct rec rec_of(int rank, int k) {
  struct rec x;
  memset(&x, 0, sizeof x);
  x.c = (char)('a' + (rank + k) % 26);
  x.d[0] = rank + k * 0.25;
  x.d[1] = -rank - k * 0.5;
  x.i = rank * 100 + k;
  return x;
}
static void check_rec(ck_t* h, const struct rec* got, struct rec want, const char* what) {
  CHECK(got->c == want.c && got->d[0] == want.d[0] && got->d[1] == want.d[1] && got->i == want.i,
        "%s: rec (%c %g %g %d)", what, got->c, got->d[0], got->d[1], got->i);
  ck_int(h, got->c);
  ck_double(h, got->d[0]);
  ck_double(h, got->d[1]);
  ck_int(h, got->i);
}

static void test_struct_comm(ck_t* h, int rank, int size) {
  enum { K = 3 };
  int next = (rank + 1) % size, prev = (rank - 1 + size) % size;
  MPI_Datatype rt = make_rec_type();
  struct rec s[K], r[K];
  for (int k = 0; k < K; k++)
    s[k] = rec_of(rank, k);
  memset(r, 0, sizeof r);
  MPI_Request rq[2];
  MPI_Irecv(r, K, rt, prev, 3, MPI_COMM_WORLD, &rq[0]);
  MPI_Isend(s, K, rt, next, 3, MPI_COMM_WORLD, &rq[1]);
  MPI_Status sts[2];
  MPI_Waitall(2, rq, sts);
  int cnt;
  MPI_Get_count(&sts[0], rt, &cnt);
  CHECK(cnt == K, "struct count %d", cnt);
  for (int k = 0; k < K; k++)
    check_rec(h, &r[k], rec_of(prev, k), "Isend/Irecv struct");

  /* Bcast of the struct array */
  int root = size / 2;
  for (int k = 0; k < K; k++)
    r[k] = rank == root ? rec_of(root, 10 + k) : s[k];
  MPI_Bcast(r, K, rt, root, MPI_COMM_WORLD);
  for (int k = 0; k < K; k++)
    check_rec(h, &r[k], rec_of(root, 10 + k), "Bcast struct");
  MPI_Type_free(&rt);
}

/* Predefined operations are defined on predefined datatypes only (MPICH rejects MPI_SUM on a
 * contiguous type), so reductions on a derived type use a user-defined operation; MPI passes
 * the derived type to it and len counts derived-type elements. */
static void op_sum_triples(void* in, void* inout, int* len, MPI_Datatype* dt) {
  int tsize;
  MPI_Type_size(*dt, &tsize);
  CHECK(tsize == 3 * (int)sizeof(double), "user op got a type of size %d", tsize);
  const double* a = in;
  double* b = inout;
  for (int i = 0; i < 3 * *len; i++)
    b[i] += a[i];
}

static void test_allreduce_contig(ck_t* h, int rank, int size) {
  MPI_Datatype t3;
  MPI_Type_contiguous(3, MPI_DOUBLE, &t3);
  MPI_Type_commit(&t3);
  MPI_Op sum3;
  MPI_Op_create(op_sum_triples, 1, &sum3);
  double s[6], r[6];
  for (int k = 0; k < 6; k++)
    s[k] = rank * (k + 1) + 0.5;
  MPI_Allreduce(s, r, 2, t3, sum3, MPI_COMM_WORLD);
  for (int k = 0; k < 6; k++) {
    double want = (k + 1) * (double)size * (size - 1) / 2 + 0.5 * size;
    CHECK(r[k] == want, "Allreduce contiguous element %d: %g want %g", k, r[k], want);
  }
  ck_doubles(h, r, 6);
  /* the same sums with MPI_SUM on MPI_DOUBLE */
  double r2[6];
  MPI_Allreduce(s, r2, 6, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  for (int k = 0; k < 6; k++)
    CHECK(r2[k] == r[k], "MPI_SUM on doubles element %d", k);
  MPI_Op_free(&sum3);
  MPI_Type_free(&t3);
}

static void test_resized_count(ck_t* h, int rank, int size) {
  int next = (rank + 1) % size, prev = (rank - 1 + size) % size;
  MPI_Datatype every3;
  MPI_Type_create_resized(MPI_INT, 0, 3 * sizeof(int), &every3);
  MPI_Type_commit(&every3);
  int a[12], b[4], c[12];
  for (int k = 0; k < 12; k++)
    a[k] = rank * 50 + k;
  MPI_Sendrecv(a, 4, every3, next, 4, b, 4, MPI_INT, prev, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  for (int k = 0; k < 4; k++)
    CHECK(b[k] == prev * 50 + 3 * k, "resized count>1 element %d", k);
  ck_ints(h, b, 4);
  /* and receiving 4 of them scatters into every third int */
  for (int k = 0; k < 12; k++)
    c[k] = -1;
  MPI_Sendrecv(b, 4, MPI_INT, next, 5, c, 4, every3, prev, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  int pp = (prev - 1 + size) % size;
  for (int k = 0; k < 12; k++)
    CHECK(c[k] == (k % 3 ? -1 : pp * 50 + k), "resized receive element %d", k);
  ck_ints(h, c, 12);
  MPI_Type_free(&every3);
}

/* A message of 5 doubles received with a type of 2 doubles: count undefined, 5 elements. */
static void test_get_elements(ck_t* h, int rank, int size) {
  int next = (rank + 1) % size, prev = (rank - 1 + size) % size;
  MPI_Datatype pair;
  MPI_Type_contiguous(2, MPI_DOUBLE, &pair);
  MPI_Type_commit(&pair);
  double s[6] = {1, 2, 3, 4, 5, 6}, r[6] = {0, 0, 0, 0, 0, -1};
  MPI_Status st;
  int cnt, el;
  MPI_Sendrecv(s, 5, MPI_DOUBLE, next, 6, r, 3, pair, prev, 6, MPI_COMM_WORLD, &st);
  MPI_Get_count(&st, pair, &cnt);
  MPI_Get_elements(&st, pair, &el);
  CHECK(cnt == MPI_UNDEFINED, "Get_count of a partial pair gave %d", cnt);
  CHECK(el == 5, "Get_elements gave %d", el);
  CHECK(r[4] == 5 && r[5] == -1, "partial receive data");
  ck_int(h, el);
  MPI_Sendrecv(s, 4, MPI_DOUBLE, next, 7, r, 3, pair, prev, 7, MPI_COMM_WORLD, &st);
  MPI_Get_count(&st, pair, &cnt);
  MPI_Get_elements(&st, pair, &el);
  CHECK(cnt == 2 && el == 4, "Get_count %d Get_elements %d", cnt, el);
  ck_int(h, cnt);
  MPI_Type_free(&pair);
}

static void test_pack(ck_t* h, int rank, int size) {
  int next = (rank + 1) % size, prev = (rank - 1 + size) % size;
  int n = rank % 4 + 2;
  double v[10];
  for (int k = 0; k < 10; k++)
    v[k] = rank + k / 8.0;
  char name[16];
  snprintf(name, sizeof name, "rank%05d", rank); /* 9 chars + NUL */
  MPI_Datatype stride2;                          /* every other double */
  MPI_Type_vector(n, 1, 2, MPI_DOUBLE, &stride2);
  MPI_Type_commit(&stride2);

  int s1, s2, s3;
  MPI_Pack_size(1, MPI_INT, MPI_COMM_WORLD, &s1);
  MPI_Pack_size(1, stride2, MPI_COMM_WORLD, &s2);
  MPI_Pack_size(10, MPI_CHAR, MPI_COMM_WORLD, &s3);
  CHECK(s1 >= (int)sizeof(int) && s2 >= n * (int)sizeof(double) && s3 >= 10, "Pack_size");
  int cap = s1 + s2 + s3;
  char* buf = malloc((size_t)cap);
  int pos = 0;
  MPI_Pack(&n, 1, MPI_INT, buf, cap, &pos, MPI_COMM_WORLD);
  MPI_Pack(v, 1, stride2, buf, cap, &pos, MPI_COMM_WORLD);
  MPI_Pack(name, 10, MPI_CHAR, buf, cap, &pos, MPI_COMM_WORLD);
  CHECK(pos > 0 && pos <= cap, "pack position %d of %d", pos, cap);

  MPI_Request rq;
  MPI_Isend(buf, pos, MPI_PACKED, next, 8, MPI_COMM_WORLD, &rq);
  MPI_Status st;
  int bytes;
  MPI_Probe(prev, 8, MPI_COMM_WORLD, &st);
  MPI_Get_count(&st, MPI_PACKED, &bytes);
  char* in = malloc((size_t)bytes);
  MPI_Recv(in, bytes, MPI_PACKED, prev, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  int ipos = 0, pn;
  double pv[10];
  char pname[16];
  MPI_Unpack(in, bytes, &ipos, &pn, 1, MPI_INT, MPI_COMM_WORLD);
  CHECK(pn == prev % 4 + 2, "unpacked n %d", pn);
  MPI_Unpack(in, bytes, &ipos, pv, pn, MPI_DOUBLE, MPI_COMM_WORLD); /* densely */
  MPI_Unpack(in, bytes, &ipos, pname, 10, MPI_CHAR, MPI_COMM_WORLD);
  CHECK(ipos == bytes, "unpack consumed %d of %d", ipos, bytes);
  for (int k = 0; k < pn; k++)
    CHECK(pv[k] == prev + 2 * k / 8.0, "unpacked double %d", k);
  char want[16];
  snprintf(want, sizeof want, "rank%05d", prev);
  CHECK(strcmp(pname, want) == 0, "unpacked name '%s'", pname);
  ck_int(h, pn);
  ck_doubles(h, pv, pn);
  ck_str(h, pname);
  MPI_Wait(&rq, MPI_STATUS_IGNORE);
  free(buf);
  free(in);
  MPI_Type_free(&stride2);
}

int main(int argc, char** argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  ck_t h = CK_INIT;
  test_constructors(&h);
  test_column_p2p(&h, rank, size);
  test_alltoall_transpose(&h, rank, size);
  test_struct_comm(&h, rank, size);
  test_allreduce_contig(&h, rank, size);
  test_resized_count(&h, rank, size);
  test_get_elements(&h, rank, size);
  test_pack(&h, rank, size);
  ck_finish(&h, "datatypes");
  MPI_Finalize();
  return 0;
}
