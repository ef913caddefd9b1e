/* types2.c - datatype layout as MPICH computes it: sizes, extents, lower bounds and true
 * extents of the pair types and of struct types (padded to their most aligned member unless
 * every member is of one type, MPI_LB/MPI_UB markers, resized members), MPI_Get_elements on
 * partial pair and struct types, the names of predefined types, and arrays of padded structs
 * sent between ranks. The expected numbers are MPICH 4.0.2's on x86-64 Linux. */
#include <stddef.h>

#include "check.h"

static void layout(ck_t* h, const char* what, MPI_Datatype t, int size, long lb, long ext, long tlb, long text) {
  int s;
  MPI_Aint l, e, tl, te;
  MPI_Type_size(t, &s);
  MPI_Type_get_extent(t, &l, &e);
  MPI_Type_get_true_extent(t, &tl, &te);
  CHECK(s == size && l == lb && e == ext && tl == tlb && te == text,
        "%s: size %d lb %ld extent %ld true lb %ld true extent %ld, MPICH: %d %ld %ld %ld %ld", what, s, (long)l,
        (long)e, (long)tl, (long)te, size, lb, ext, tlb, text);
  MPI_Count sx, lx, ex;
  MPI_Type_size_x(t, &sx);
  MPI_Type_get_extent_x(t, &lx, &ex);
  CHECK(sx == size && lx == lb && ex == ext, "%s: the _x queries disagree", what);
  ck_int(h, s);
  ck_i64(h, l);
  ck_i64(h, e);
  ck_i64(h, tl);
  ck_i64(h, te);
}

/* A struct of n single members. */
static MPI_Datatype st(int n, const MPI_Datatype* types, const MPI_Aint* displs) {
  int lens[8] = {1, 1, 1, 1, 1, 1, 1, 1};
  MPI_Datatype t;
  MPI_Type_create_struct(n, lens, displs, types, &t);
  MPI_Type_commit(&t);
  return t;
}
#define ST(...) st(sizeof((MPI_Datatype[]){__VA_ARGS__}) / sizeof(MPI_Datatype), (MPI_Datatype[]){__VA_ARGS__}
#define AT(...) (MPI_Aint[]){__VA_ARGS__})

static void pair_types(ck_t* h) {
  layout(h, "MPI_FLOAT_INT", MPI_FLOAT_INT, 8, 0, 8, 0, 8);
  layout(h, "MPI_DOUBLE_INT", MPI_DOUBLE_INT, 12, 0, 16, 0, 12);
  layout(h, "MPI_LONG_INT", MPI_LONG_INT, 12, 0, 16, 0, 12);
  layout(h, "MPI_2INT", MPI_2INT, 8, 0, 8, 0, 8);
  layout(h, "MPI_SHORT_INT", MPI_SHORT_INT, 6, 0, 8, 0, 8);
  layout(h, "MPI_LONG_DOUBLE_INT", MPI_LONG_DOUBLE_INT, 20, 0, 32, 0, 20);
  layout(h, "MPI_2REAL", MPI_2REAL, 8, 0, 8, 0, 8);
  layout(h, "MPI_2DOUBLE_PRECISION", MPI_2DOUBLE_PRECISION, 16, 0, 16, 0, 16);
  layout(h, "MPI_2INTEGER", MPI_2INTEGER, 8, 0, 8, 0, 8);
  layout(h, "MPI_C_LONG_DOUBLE_COMPLEX", MPI_C_LONG_DOUBLE_COMPLEX, 32, 0, 32, 0, 32);
}

static void structs(ck_t* h) {
  MPI_Datatype t;
  t = ST(MPI_DOUBLE, MPI_INT), AT(0, 8);
  layout(h, "{double, int}", t, 12, 0, 16, 0, 12);
  MPI_Datatype di = t;
  t = ST(MPI_INT, MPI_DOUBLE), AT(0, 4);
  layout(h, "{int, double@4}", t, 12, 0, 16, 0, 12);
  t = ST(MPI_CHAR, MPI_SHORT), AT(0, 2);
  layout(h, "{char, short}", t, 3, 0, 4, 0, 4);
  t = ST(MPI_SHORT, MPI_CHAR), AT(0, 2);
  layout(h, "{short, char}", t, 3, 0, 4, 0, 3);
  t = ST(MPI_LONG, MPI_CHAR), AT(0, 8);
  layout(h, "{long, char}", t, 9, 0, 16, 0, 9);
  t = ST(MPI_LONG_DOUBLE, MPI_CHAR), AT(0, 16);
  layout(h, "{long double, char}", t, 17, 0, 32, 0, 17);
  t = ST(MPI_C_DOUBLE_COMPLEX, MPI_CHAR), AT(0, 16);
  layout(h, "{double complex, char}", t, 17, 0, 24, 0, 17);
  t = ST(MPI_C_LONG_DOUBLE_COMPLEX, MPI_CHAR), AT(0, 32);
  layout(h, "{long double complex, char}", t, 33, 0, 48, 0, 33);
  t = ST(MPI_COMPLEX, MPI_CHAR), AT(0, 8);
  layout(h, "{COMPLEX, char}", t, 9, 0, 12, 0, 9);
  t = ST(MPI_DOUBLE_INT, MPI_CHAR), AT(0, 16);
  layout(h, "{DOUBLE_INT, char}", t, 13, 0, 24, 0, 17);
  t = ST(MPI_SHORT_INT, MPI_CHAR), AT(0, 8);
  layout(h, "{SHORT_INT, char}", t, 7, 0, 12, 0, 9);
  t = ST(MPI_FLOAT, MPI_CHAR), AT(0, 4);
  layout(h, "{float, char}", t, 5, 0, 8, 0, 5);
  t = ST(MPI_CHAR), AT(3);
  layout(h, "{char@3}", t, 1, 3, 1, 3, 1);
  t = ST(MPI_DOUBLE, MPI_CHAR), AT(-8, 0);
  layout(h, "{double@-8, char}", t, 9, -8, 16, -8, 9);
  t = ST(MPI_CHAR, MPI_DOUBLE), AT(20, 0);
  layout(h, "{char@20, double}", t, 9, 0, 24, 0, 21);
  /* every member of one type: not padded */
  t = ST(MPI_DOUBLE, MPI_DOUBLE), AT(0, 12);
  layout(h, "{double, double@12}", t, 16, 0, 20, 0, 20);
  t = ST(MPI_SHORT, MPI_SHORT), AT(0, 3);
  layout(h, "{short, short@3}", t, 4, 0, 5, 0, 5);
  /* nested */
  t = ST(MPI_CHAR, di), AT(0, 8);
  layout(h, "{char, {double, int}@8}", t, 13, 0, 24, 0, 20);
  MPI_Datatype two;
  MPI_Type_contiguous(2, di, &two);
  MPI_Type_commit(&two);
  layout(h, "2 x {double, int}", two, 24, 0, 32, 0, 28);
  t = ST(two, MPI_CHAR), AT(0, 32);
  layout(h, "{2 x {double, int}, char}", t, 25, 0, 40, 0, 33);
  /* resized members keep their alignment, a lone one is not padded */
  MPI_Datatype r12;
  MPI_Type_create_resized(MPI_DOUBLE, 0, 12, &r12);
  MPI_Type_commit(&r12);
  layout(h, "resized double 12", r12, 8, 0, 12, 0, 8);
  t = ST(r12), AT(0);
  layout(h, "{resized 12}", t, 8, 0, 12, 0, 8);
  t = ST(r12, MPI_CHAR), AT(0, 12);
  layout(h, "{resized 12, char}", t, 9, 0, 16, 0, 13);
  t = ST(r12, MPI_DOUBLE), AT(0, 12);
  layout(h, "{resized 12, double@12}", t, 16, 0, 24, 0, 20);
  MPI_Datatype hv;
  MPI_Type_create_hvector(2, 1, 12, MPI_DOUBLE, &hv);
  MPI_Type_commit(&hv);
  layout(h, "hvector 2 doubles stride 12", hv, 16, 0, 20, 0, 20);
  t = ST(hv), AT(0);
  layout(h, "{hvector}", t, 16, 0, 20, 0, 20);
  t = ST(MPI_CHAR, hv), AT(0, 8);
  layout(h, "{char, hvector@8}", t, 17, 0, 32, 0, 28);
  /* MPI_LB / MPI_UB markers decide the bounds (MPI-1, still in MPICH) */
  t = ST(MPI_DOUBLE, MPI_INT, MPI_UB), AT(0, 8, 12);
  layout(h, "{double, int, UB@12}", t, 12, 0, 12, 0, 12);
  t = ST(MPI_LB, MPI_DOUBLE, MPI_INT), AT(-3, 0, 8);
  layout(h, "{LB@-3, double, int}", t, 12, -3, 19, 0, 12);
  /* empty blocks take no part */
  {
    int lens[2] = {0, 1};
    MPI_Datatype ts[2] = {MPI_DOUBLE, MPI_CHAR};
    MPI_Aint ds[2] = {0, 8};
    MPI_Type_create_struct(2, lens, ds, ts, &t);
    MPI_Type_commit(&t);
    layout(h, "{0 x double, char@8}", t, 1, 8, 1, 8, 1);
  }
  /* the deprecated constructor computes the same */
  {
    int lens[2] = {1, 1};
    MPI_Datatype ts[2] = {MPI_DOUBLE, MPI_INT};
    MPI_Aint ds[2] = {0, 8};
    MPI_Type_struct(2, lens, ds, ts, &t);
    MPI_Type_commit(&t);
    layout(h, "MPI_Type_struct {double, int}", t, 12, 0, 16, 0, 12);
  }
}

/* Receives `bytes` bytes as up to 4 elements of `t`; checks Get_count and Get_elements. */
static void elements(ck_t* h, const char* what, MPI_Datatype t, int bytes, int count, int elems) {
  char out[256], in[256];
  memset(in, 0, sizeof in);
  MPI_Status s;
  MPI_Sendrecv(in, bytes, MPI_BYTE, 0, 7, out, 4, t, 0, 7, MPI_COMM_SELF, &s);
  int c, e;
  MPI_Count ex;
  MPI_Get_count(&s, t, &c);
  MPI_Get_elements(&s, t, &e);
  MPI_Get_elements_x(&s, t, &ex);
  CHECK(c == count && e == elems && ex == elems, "%s from %d bytes: count %d elements %d, MPICH: %d %d", what, bytes, c,
        e, count, elems);
  ck_int(h, c);
  ck_int(h, e);
}

static void get_elements(ck_t* h) {
  const int U = MPI_UNDEFINED;
  elements(h, "MPI_DOUBLE_INT", MPI_DOUBLE_INT, 0, 0, 0);
  elements(h, "MPI_DOUBLE_INT", MPI_DOUBLE_INT, 4, U, 0);
  elements(h, "MPI_DOUBLE_INT", MPI_DOUBLE_INT, 8, U, 1);
  elements(h, "MPI_DOUBLE_INT", MPI_DOUBLE_INT, 10, U, 1);
  elements(h, "MPI_DOUBLE_INT", MPI_DOUBLE_INT, 12, 1, 2);
  elements(h, "MPI_DOUBLE_INT", MPI_DOUBLE_INT, 13, U, 2);
  elements(h, "MPI_DOUBLE_INT", MPI_DOUBLE_INT, 20, U, 3);
  elements(h, "MPI_DOUBLE_INT", MPI_DOUBLE_INT, 24, 2, 4);
  elements(h, "MPI_SHORT_INT", MPI_SHORT_INT, 2, U, 1);
  elements(h, "MPI_SHORT_INT", MPI_SHORT_INT, 3, U, 1);
  elements(h, "MPI_SHORT_INT", MPI_SHORT_INT, 6, 1, 2);
  elements(h, "MPI_SHORT_INT", MPI_SHORT_INT, 8, U, 3);
  MPI_Datatype s;
  int lens[2] = {1, 2};
  MPI_Aint ds[2] = {0, 8};
  MPI_Datatype ts[2] = {MPI_DOUBLE, MPI_INT};
  MPI_Type_create_struct(2, lens, ds, ts, &s);
  MPI_Type_commit(&s);
  int bytes[7] = {8, 12, 14, 16, 20, 24, 28};
  int counts[7] = {U, U, U, 1, U, U, U};
  int elems[7] = {1, 2, 2, 3, 3, 4, 5};
  for (int i = 0; i < 7; i++)
    elements(h, "{double, 2 x int}", s, bytes[i], counts[i], elems[i]);
  MPI_Type_free(&s);
}

static void names(ck_t* h) {
  struct {
    MPI_Datatype t;
    const char* name;
  } want[] = {
      {MPI_CHAR, "MPI_CHAR"},
      {MPI_LONG_LONG, "MPI_LONG_LONG_INT"},
      {MPI_LONG_LONG_INT, "MPI_LONG_LONG_INT"},
      {MPI_C_FLOAT_COMPLEX, "MPI_C_COMPLEX"},
      {MPI_C_COMPLEX, "MPI_C_COMPLEX"},
      {MPI_C_DOUBLE_COMPLEX, "MPI_C_DOUBLE_COMPLEX"},
      {MPI_DOUBLE_INT, "MPI_DOUBLE_INT"},
      {MPI_2DOUBLE_PRECISION, "MPI_2DOUBLE_PRECISION"},
      {MPI_LB, "MPI_LB"},
      {MPI_UB, "MPI_UB"},
      {MPI_PACKED, "MPI_PACKED"},
      {MPI_WCHAR, "MPI_WCHAR"},
      {MPI_CXX_BOOL, "MPI_CXX_BOOL"},
      {MPI_AINT, "MPI_AINT"},
      {MPI_INTEGER8, "MPI_INTEGER8"},
      {MPI_REAL16, "MPI_REAL16"},
  };
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    MPI_Type_get_name(want[i].t, name, &len);
    CHECK(strcmp(name, want[i].name) == 0 && len == (int)strlen(name), "name %s, MPICH %s", name, want[i].name);
    ck_str(h, name);
  }
}

/* An array of C structs {double, int} travels as MPI_Type_create_struct describes it: with the
 * extent padded to 16, every element lands where C put it. */
struct rec {
  double d;
  int i;
};

static void padded_arrays(ck_t* h, int rank, int size) {
  int lens[2] = {1, 1};
  MPI_Aint ds[2] = {offsetof(struct rec, d), offsetof(struct rec, i)};
  MPI_Datatype ts[2] = {MPI_DOUBLE, MPI_INT};
  MPI_Datatype t;
  MPI_Type_create_struct(2, lens, ds, ts, &t);
  MPI_Type_commit(&t);
  enum { N = 5 };
  struct rec out[N], in[N];
  for (int k = 0; k < N; k++) {
    out[k].d = rank * 10 + k + 0.5;
    out[k].i = rank * 100 + k;
    in[k].d = -1;
    in[k].i = -1;
  }
  const int to = (rank + 1) % size, from = (rank + size - 1) % size;
  MPI_Sendrecv(out, N, t, to, 1, in, N, t, from, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  for (int k = 0; k < N; k++) {
    CHECK(in[k].d == from * 10 + k + 0.5 && in[k].i == from * 100 + k, "element %d: %g %d", k, in[k].d, in[k].i);
    ck_double(h, in[k].d);
    ck_int(h, in[k].i);
  }
  /* ... and through a collective */
  struct rec all[N];
  if (rank == 0) memcpy(all, out, sizeof all);
  MPI_Bcast(all, N, t, 0, MPI_COMM_WORLD);
  for (int k = 0; k < N; k++)
    CHECK(all[k].d == k + 0.5 && all[k].i == k, "broadcast element %d: %g %d", k, all[k].d, all[k].i);
  MPI_Type_free(&t);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  ck_t h = CK_INIT;
  pair_types(&h);
  structs(&h);
  get_elements(&h);
  names(&h);
  padded_arrays(&h, rank, size);
  ck_finish(&h, "types2");
  MPI_Finalize();
  return 0;
}
