/* colls.c - blocking collectives.
 *
 * Checks: Barrier; Bcast from several roots (small and large); Gather, Gatherv, Scatter,
 * Scatterv, Allgather, Allgatherv, Alltoall, Alltoallv (also with MPI_IN_PLACE where MPI allows
 * it, with zero counts and with receive displacements in reverse rank order leaving gaps);
 * every predefined operation on every datatype it is defined on, each combination in one of
 * Allreduce, Reduce (rotating roots), Scan, Exscan, Reduce_scatter, Reduce_scatter_block (in
 * rotation, so each collective sees every operation, in place and not) and, for the common
 * types (int, unsigned, long, long long, float, double, C_BOOL, BYTE), also in Allreduce;
 * MINLOC/MAXLOC on all C pair types (ties resolved to the lowest index); user-defined
 * operations (a commutative one and a non-commutative 2x2 matrix product that checks rank
 * order) in Reduce, Allreduce, Scan, Exscan, Reduce_scatter_block; Op_commutative; Op_free.
 * Every value is a small integer so that all sums and products are exact, never overflow, and do
 * not depend on the order in which an implementation combines contributions.
 */
#include <stdbool.h>
#include "check.h"

enum { N = 8 }; /* elements per rank in each reduction */

/* ---------------------------------------------------------------- datatype descriptors ---- */
enum { K_INT, K_FLOAT, K_BOOL, K_BYTE };
typedef struct {
  const char* name;
  MPI_Datatype dt;
  size_t size;
  int kind;
  int is_signed;
  int bits;   /* value bits available (mantissa bits for floating point) */
  int common; /* also reduced with Allreduce for every operation */
  void (*st)(void*, int, long long);
  long long (*ld)(const void*, int);
} tdesc;

#define ACC(FN, CT)                                  \
  static void st_##FN(void* b, int i, long long v) { \
    ((CT*)b)[i] = (CT)v;                             \
  }                                                  \
  static long long ld_##FN(const void* b, int i) {   \
    return (long long)((const CT*)b)[i];             \
  }
ACC(schar, signed char)
ACC(uchar, unsigned char)
ACC(short, short)
ACC(ushort, unsigned short)
ACC(int, int)
ACC(uint, unsigned)
ACC(long, long)
ACC(ulong, unsigned long)
ACC(ll, long long)
ACC(ull, unsigned long long)
ACC(i8, int8_t)
ACC(i16, int16_t)
ACC(i32, int32_t)
ACC(i64, int64_t)
ACC(u8, uint8_t)
ACC(u16, uint16_t)
ACC(u32, uint32_t)
ACC(u64, uint64_t)
ACC(flt, float)
ACC(dbl, double)
ACC(ldbl, long double)
ACC(cbool, bool)

#define TD(NAME, DT, CT, KIND, SGN, BITS, FN) \
  { NAME, DT, sizeof(CT), KIND, SGN, BITS, 0, st_##FN, ld_##FN }
#define TDI(DT, CT, SGN, FN) TD(#DT, DT, CT, K_INT, SGN, (int)(8 * sizeof(CT)), FN)

/* filled in main (MPI handles are not compile-time constants in every implementation) */
static int make_types(tdesc* t) {
  int n = 0;
  t[n++] = (tdesc)TDI(MPI_SIGNED_CHAR, signed char, 1, schar);
  t[n++] = (tdesc)TDI(MPI_UNSIGNED_CHAR, unsigned char, 0, uchar);
  t[n++] = (tdesc)TDI(MPI_SHORT, short, 1, short);
  t[n++] = (tdesc)TDI(MPI_UNSIGNED_SHORT, unsigned short, 0, ushort);
  t[n++] = (tdesc)TDI(MPI_INT, int, 1, int);
  t[n++] = (tdesc)TDI(MPI_UNSIGNED, unsigned, 0, uint);
  t[n++] = (tdesc)TDI(MPI_LONG, long, 1, long);
  t[n++] = (tdesc)TDI(MPI_UNSIGNED_LONG, unsigned long, 0, ulong);
  t[n++] = (tdesc)TDI(MPI_LONG_LONG, long long, 1, ll);
  t[n++] = (tdesc)TDI(MPI_UNSIGNED_LONG_LONG, unsigned long long, 0, ull);
  t[n++] = (tdesc)TDI(MPI_INT8_T, int8_t, 1, i8);
  t[n++] = (tdesc)TDI(MPI_INT16_T, int16_t, 1, i16);
  t[n++] = (tdesc)TDI(MPI_INT32_T, int32_t, 1, i32);
  t[n++] = (tdesc)TDI(MPI_INT64_T, int64_t, 1, i64);
  t[n++] = (tdesc)TDI(MPI_UINT8_T, uint8_t, 0, u8);
  t[n++] = (tdesc)TDI(MPI_UINT16_T, uint16_t, 0, u16);
  t[n++] = (tdesc)TDI(MPI_UINT32_T, uint32_t, 0, u32);
  t[n++] = (tdesc)TDI(MPI_UINT64_T, uint64_t, 0, u64);
  t[n++] = (tdesc)TD("MPI_FLOAT", MPI_FLOAT, float, K_FLOAT, 1, 24, flt);
  t[n++] = (tdesc)TD("MPI_DOUBLE", MPI_DOUBLE, double, K_FLOAT, 1, 53, dbl);
  t[n++] = (tdesc)TD("MPI_LONG_DOUBLE", MPI_LONG_DOUBLE, long double, K_FLOAT, 1, 53, ldbl);
  t[n++] = (tdesc)TD("MPI_C_BOOL", MPI_C_BOOL, bool, K_BOOL, 0, 1, cbool);
  t[n++] = (tdesc)TD("MPI_BYTE", MPI_BYTE, unsigned char, K_BYTE, 0, 8, uchar);
  for (int i = 0; i < n; i++) {
    MPI_Datatype d = t[i].dt;
    t[i].common = d == MPI_INT || d == MPI_UNSIGNED || d == MPI_LONG || d == MPI_LONG_LONG || d == MPI_FLOAT ||
                  d == MPI_DOUBLE || d == MPI_C_BOOL || d == MPI_BYTE;
  }
  return n;
}

/* ------------------------------------------------------------------------ operations ---- */
enum { O_MAX, O_MIN, O_SUM, O_PROD, O_LAND, O_BAND, O_LOR, O_BOR, O_LXOR, O_BXOR, NOPS };
static const char* op_name[NOPS] = {"MAX", "MIN", "SUM", "PROD", "LAND", "BAND", "LOR", "BOR", "LXOR", "BXOR"};
static MPI_Op op_handle(int o) {
  switch (o) {
    case O_MAX:
      return MPI_MAX;
    case O_MIN:
      return MPI_MIN;
    case O_SUM:
      return MPI_SUM;
    case O_PROD:
      return MPI_PROD;
    case O_LAND:
      return MPI_LAND;
    case O_BAND:
      return MPI_BAND;
    case O_LOR:
      return MPI_LOR;
    case O_BOR:
      return MPI_BOR;
    case O_LXOR:
      return MPI_LXOR;
    default:
      return MPI_BXOR;
  }
}
static int is_logical(int o) {
  return o == O_LAND || o == O_LOR || o == O_LXOR;
}
static int is_bitwise(int o) {
  return o == O_BAND || o == O_BOR || o == O_BXOR;
}

/* MPI-3.1 5.9.2: which (op, datatype class) pairs are defined */
static int op_defined(int o, const tdesc* t) {
  if (is_logical(o)) return t->kind == K_INT || t->kind == K_BOOL;
  if (is_bitwise(o)) return t->kind == K_INT || t->kind == K_BYTE;
  return t->kind == K_INT || t->kind == K_FLOAT; /* MAX MIN SUM PROD */
}

static uint64_t mix(uint64_t x) { /* splitmix64 finaliser */
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

/* Value of element i on rank r for operation o and type t: small enough for exact results. */
static long long gen(int o, const tdesc* t, int r, int i) {
  switch (o) {
    case O_SUM:
      if (t->bits <= 8) { /* |sum| <= 64 over 256 ranks */
        int m = (r + i) % 4;
        return t->is_signed ? (m == 0) - (m == 1) : (m == 0);
      } else {
        long long v = (r * 13 + i * 7) % 41; /* sum <= 40 * 256 */
        return t->is_signed ? v - 20 : v;
      }
    case O_PROD:                                   /* |product| <= 2^6 */
      if (r < 6 && ((i >> (r % 3)) & 1)) return 2; /* ranks 0..5, at most 6 factors 2 */
      if (t->is_signed && (r + 2 * i) % 7 == 3) return -1;
      return 1;
    case O_MAX:
    case O_MIN: {
      long long v = (r * 37 + i * 11 + 5) % 101;
      long long scale = t->bits >= 53 ? 1000000007LL : t->bits >= 32 ? 1000003LL : 1;
      if (t->is_signed) v -= 50;
      return v * scale;
    }
    case O_LAND:
    case O_LOR:
    case O_LXOR: {
      int c = i % 4, tr;
      if (c == 0)
        tr = 1; /* all true */
      else if (c == 1)
        tr = 0; /* all false */
      else if (c == 2)
        tr = (r + i) % 3 == 0; /* some */
      else
        tr = r % 2 == 1;
      if (t->kind == K_BOOL) return tr;
      return tr ? 1 + (r + i) % 3 : 0; /* any non-zero value is true */
    }
    default: { /* bitwise: never touch the sign bit */
      int b = t->bits >= 64 ? 62 : t->bits - 1;
      long long mask = (1LL << b) - 1;
      long long v = (long long)(mix((uint64_t)r * 131 + (uint64_t)i) & (uint64_t)mask);
      return v | (1LL << (i % b)); /* one bit set everywhere, so BAND is not always 0 */
    }
  }
}

static long long apply(int o, long long a, long long b) {
  switch (o) {
    case O_MAX:
      return a > b ? a : b;
    case O_MIN:
      return a < b ? a : b;
    case O_SUM:
      return a + b;
    case O_PROD:
      return a * b;
    case O_LAND:
      return (a != 0) && (b != 0);
    case O_LOR:
      return (a != 0) || (b != 0);
    case O_LXOR:
      return (a != 0) != (b != 0);
    case O_BAND:
      return a & b;
    case O_BOR:
      return a | b;
    default:
      return a ^ b;
  }
}

/* fold of ranks [lo, hi) for element i */
static long long fold(int o, const tdesc* t, int lo, int hi, int i) {
  long long acc = gen(o, t, lo, i);
  for (int r = lo + 1; r < hi; r++)
    acc = apply(o, acc, gen(o, t, r, i));
  if (is_logical(o)) acc = acc != 0;
  return acc;
}

static void fill(int o, const tdesc* t, void* buf, int rank, int first, int n) {
  for (int i = 0; i < n; i++)
    t->st(buf, i, gen(o, t, rank, first + i));
}

/* compare element i of buf (type t) with the expected value; hash the normalised value */
static void expect_elem(ck_t* h, int o, const tdesc* t, const void* buf, int i, long long want, const char* what) {
  long long got = t->ld(buf, i);
  if (is_logical(o)) got = got != 0;
  CHECK(got == want, "%s %s %s element %d: got %lld want %lld", what, op_name[o], t->name, i, got, want);
  ck_i64(h, got);
}

static void test_predefined(ck_t* h, int rank, int size) {
  tdesc types[32];
  int ntypes = make_types(types);
  size_t maxsz = sizeof(long double);
  /* buffers big enough for size*N elements of the largest type */
  char* sbuf = malloc(maxsz * (size_t)N * (size_t)size);
  char* rbuf = malloc(maxsz * (size_t)N * (size_t)size);
  int* counts = malloc(sizeof(int) * (size_t)size);
  int combo = 0;
  for (int o = 0; o < NOPS; o++) {
    for (int ti = 0; ti < ntypes; ti++) {
      const tdesc* t = &types[ti];
      if (!op_defined(o, t)) continue;
      MPI_Op op = op_handle(o);
      int root = combo % size;

      /* One reduction collective per combination, rotating through the six so that each sees
       * every operation, several types, both the in-place and the separate-buffer form.
       * (A real MPI oversubscribed on a small machine pays milliseconds per collective, so
       * running all six on all 198 combinations would be slow.) */
      int which = combo % 6, inplace = (combo / 6) % 2;
      /* ... and Allreduce, the most used reduction, also for every operation on the common
       * types */
      if (which != 5 && t->common) which = 5 + 100 * (which + 1);
      memset(rbuf, 0, maxsz * N);
      fill(o, t, sbuf, rank, 0, N);
      if (which > 5) { /* the extra Allreduce, then the rotating collective */
        MPI_Allreduce(sbuf, rbuf, N, t->dt, op, MPI_COMM_WORLD);
        for (int i = 0; i < N; i++)
          expect_elem(h, o, t, rbuf, i, fold(o, t, 0, size, i), "Allreduce (common type)");
        which = which / 100 - 1;
        memset(rbuf, 0, maxsz * N);
      }
      if (which == 5) { /* Allreduce */
        if (inplace) {
          fill(o, t, rbuf, rank, 0, N);
          MPI_Allreduce(MPI_IN_PLACE, rbuf, N, t->dt, op, MPI_COMM_WORLD);
        } else {
          MPI_Allreduce(sbuf, rbuf, N, t->dt, op, MPI_COMM_WORLD);
        }
        for (int i = 0; i < N; i++)
          expect_elem(h, o, t, rbuf, i, fold(o, t, 0, size, i), "Allreduce");
      } else if (which == 0) { /* Reduce to a rotating root */
        if (rank == root && inplace) {
          fill(o, t, rbuf, rank, 0, N);
          MPI_Reduce(MPI_IN_PLACE, rbuf, N, t->dt, op, root, MPI_COMM_WORLD);
        } else {
          MPI_Reduce(sbuf, rbuf, N, t->dt, op, root, MPI_COMM_WORLD);
        }
        if (rank == root)
          for (int i = 0; i < N; i++)
            expect_elem(h, o, t, rbuf, i, fold(o, t, 0, size, i), "Reduce");
      } else if (which == 1) { /* Scan (inclusive) */
        if (inplace) {
          fill(o, t, rbuf, rank, 0, N);
          MPI_Scan(MPI_IN_PLACE, rbuf, N, t->dt, op, MPI_COMM_WORLD);
        } else {
          MPI_Scan(sbuf, rbuf, N, t->dt, op, MPI_COMM_WORLD);
        }
        for (int i = 0; i < N; i++)
          expect_elem(h, o, t, rbuf, i, fold(o, t, 0, rank + 1, i), "Scan");
      } else if (which == 2) { /* Exscan (exclusive; undefined on rank 0) */
        if (inplace) {
          fill(o, t, rbuf, rank, 0, N);
          MPI_Exscan(MPI_IN_PLACE, rbuf, N, t->dt, op, MPI_COMM_WORLD);
        } else {
          MPI_Exscan(sbuf, rbuf, N, t->dt, op, MPI_COMM_WORLD);
        }
        if (rank > 0)
          for (int i = 0; i < N; i++)
            expect_elem(h, o, t, rbuf, i, fold(o, t, 0, rank, i), "Exscan");
      } else if (which == 3) { /* Reduce_scatter_block: rank j gets [j*B, (j+1)*B) */
        enum { B = 2 };
        int nb = B * size;
        fill(o, t, sbuf, rank, 0, nb);
        if (inplace) {
          fill(o, t, rbuf, rank, 0, nb);
          MPI_Reduce_scatter_block(MPI_IN_PLACE, rbuf, B, t->dt, op, MPI_COMM_WORLD);
        } else {
          MPI_Reduce_scatter_block(sbuf, rbuf, B, t->dt, op, MPI_COMM_WORLD);
        }
        for (int i = 0; i < B; i++)
          expect_elem(h, o, t, rbuf, i, fold(o, t, 0, size, rank * B + i), "Reduce_scatter_block");
      } else { /* Reduce_scatter with counts j%3 (zero for some ranks) */
        int total = 0, off = 0;
        for (int j = 0; j < size; j++) {
          counts[j] = j % 3;
          if (j < rank) off += counts[j];
          total += counts[j];
        }
        fill(o, t, sbuf, rank, 0, total);
        if (inplace) {
          fill(o, t, rbuf, rank, 0, total);
          MPI_Reduce_scatter(MPI_IN_PLACE, rbuf, counts, t->dt, op, MPI_COMM_WORLD);
        } else {
          MPI_Reduce_scatter(sbuf, rbuf, counts, t->dt, op, MPI_COMM_WORLD);
        }
        for (int i = 0; i < counts[rank]; i++)
          expect_elem(h, o, t, rbuf, i, fold(o, t, 0, size, off + i), "Reduce_scatter");
      }
      combo++;
    }
  }
  CHECK(combo == 4 * 21 + 3 * 19 + 3 * 19, "combination count %d", combo);
  free(sbuf);
  free(rbuf);
  free(counts);
}

/* --------------------------------------------------------------------- MINLOC / MAXLOC ---- */
#define PAIR_TEST(FN, VT)                                                                                  \
  static void pair_##FN(ck_t* h, MPI_Datatype dt, int rank, int size, int root) {                          \
    struct pr {                                                                                            \
      VT v;                                                                                                \
      int k;                                                                                               \
    } s[N], r[N], mn = {0, 0}, mx = {0, 0};                                                                \
    for (int i = 0; i < N; i++) {                                                                          \
      s[i].v = (VT)((rank * 7 + i * 3) % 5 - 2); /* many ties */                                           \
      s[i].k = 1000 - rank * (i % 2 ? 1 : -1);   /* index order differs from rank order */                 \
    }                                                                                                      \
    for (int pass = 0; pass < 3; pass++) {                                                                 \
      MPI_Op op = pass == 1 ? MPI_MAXLOC : MPI_MINLOC;                                                     \
      if (pass == 2) /* Scan with MINLOC */                                                                \
        MPI_Scan(s, r, N, dt, op, MPI_COMM_WORLD);                                                         \
      else if (pass == 0)                                                                                  \
        MPI_Allreduce(s, r, N, dt, op, MPI_COMM_WORLD);                                                    \
      else                                                                                                 \
        MPI_Reduce(s, r, N, dt, op, root, MPI_COMM_WORLD);                                                 \
      if (pass == 1 && rank != root) continue;                                                             \
      int hi = pass == 2 ? rank + 1 : size;                                                                \
      for (int i = 0; i < N; i++) {                                                                        \
        for (int q = 0; q < hi; q++) {                                                                     \
          VT v = (VT)((q * 7 + i * 3) % 5 - 2);                                                            \
          int k = 1000 - q * (i % 2 ? 1 : -1);                                                             \
          if (q == 0 || v < mn.v || (v == mn.v && k < mn.k)) mn.v = v, mn.k = k;                           \
          if (q == 0 || v > mx.v || (v == mx.v && k < mx.k)) mx.v = v, mx.k = k;                           \
        }                                                                                                  \
        struct pr w = pass == 1 ? mx : mn;                                                                 \
        CHECK(r[i].v == w.v && r[i].k == w.k, "%s pass %d element %d: (%g,%d) want (%g,%d)", #FN, pass, i, \
              (double)r[i].v, r[i].k, (double)w.v, w.k);                                                   \
        ck_double(h, (double)r[i].v);                                                                      \
        ck_int(h, r[i].k);                                                                                 \
      }                                                                                                    \
    }                                                                                                      \
  }
PAIR_TEST(float_int, float)
PAIR_TEST(double_int, double)
PAIR_TEST(long_int, long)
PAIR_TEST(two_int, int)
PAIR_TEST(short_int, short)
PAIR_TEST(long_double_int, long double)

static void test_minmaxloc(ck_t* h, int rank, int size) {
  pair_float_int(h, MPI_FLOAT_INT, rank, size, 0);
  pair_double_int(h, MPI_DOUBLE_INT, rank, size, size - 1);
  pair_long_int(h, MPI_LONG_INT, rank, size, size / 2);
  pair_two_int(h, MPI_2INT, rank, size, 1 % size);
  pair_short_int(h, MPI_SHORT_INT, rank, size, 0);
  pair_long_double_int(h, MPI_LONG_DOUBLE_INT, rank, size, size - 1);
}

/* ----------------------------------------------------------------- user-defined ops ---- */
#define P 1000003LL

static void op_modmul(void* in, void* inout, int* len, MPI_Datatype* dt) {
  (void)dt;
  const long long* a = in;
  long long* b = inout;
  for (int i = 0; i < *len; i++)
    b[i] = (a[i] * b[i]) % P;
}

/* 2x2 matrices mod P stored row-major as 4 long longs: inout = in * inout (in comes first
 * in rank order, so the result is M_0 * M_1 * ... * M_{n-1}) */
static void matmul(const long long* a, const long long* b, long long* c) {
  long long t[4];
  t[0] = (a[0] * b[0] + a[1] * b[2]) % P;
  t[1] = (a[0] * b[1] + a[1] * b[3]) % P;
  t[2] = (a[2] * b[0] + a[3] * b[2]) % P;
  t[3] = (a[2] * b[1] + a[3] * b[3]) % P;
  memcpy(c, t, sizeof t);
}
static void op_matmul(void* in, void* inout, int* len, MPI_Datatype* dt) {
  int tsize;
  MPI_Type_size(*dt, &tsize);
  CHECK(tsize == 4 * (int)sizeof(long long), "user op called with a type of size %d", tsize);
  const long long* a = in;
  long long* b = inout;
  for (int i = 0; i < *len; i++)
    matmul(a + 4 * i, b + 4 * i, b + 4 * i);
}
static void mat_of(int r, int i, long long* m) {
  m[0] = (r + i) % 5 + 1;
  m[1] = (r * 3 + i) % 4;
  m[2] = (r * 7 + 2 * i) % 3;
  m[3] = (r + 2) % 6 + 1;
}
static void mat_fold(int lo, int hi, int i, long long* m) {
  m[0] = 1, m[1] = 0, m[2] = 0, m[3] = 1;
  long long x[4];
  for (int r = lo; r < hi; r++) {
    mat_of(r, i, x);
    matmul(m, x, m);
  }
}

static void test_user_ops(ck_t* h, int rank, int size) {
  enum { M = 3 };
  MPI_Op comm_op, mat_op;
  MPI_Op_create(op_modmul, 1, &comm_op);
  MPI_Op_create(op_matmul, 0, &mat_op);
  int c1 = -1, c2 = -1, c3 = -1;
  MPI_Op_commutative(comm_op, &c1);
  MPI_Op_commutative(mat_op, &c2);
  MPI_Op_commutative(MPI_SUM, &c3);
  CHECK(c1 && !c2 && c3, "Op_commutative %d %d %d", c1, c2, c3);

  /* commutative: product mod P */
  long long s[M], r[M];
  for (int i = 0; i < M; i++)
    s[i] = (rank * 31 + i * 17) % (P - 1) + 1;
  for (int root = 0; root < size && root < 3; root++) {
    MPI_Reduce(s, r, M, MPI_LONG_LONG, comm_op, root, MPI_COMM_WORLD);
    if (rank == root)
      for (int i = 0; i < M; i++) {
        long long e = 1;
        for (int q = 0; q < size; q++)
          e = e * ((q * 31 + i * 17) % (P - 1) + 1) % P;
        CHECK(r[i] == e, "commutative user op Reduce root %d: %lld want %lld", root, r[i], e);
        ck_i64(h, r[i]);
      }
  }
  MPI_Allreduce(MPI_IN_PLACE, s, M, MPI_LONG_LONG, comm_op, MPI_COMM_WORLD);
  for (int i = 0; i < M; i++) {
    long long e = 1;
    for (int q = 0; q < size; q++)
      e = e * ((q * 31 + i * 17) % (P - 1) + 1) % P;
    CHECK(s[i] == e, "commutative user op Allreduce");
    ck_i64(h, s[i]);
  }

  /* non-commutative: ordered matrix product */
  MPI_Datatype mat;
  MPI_Type_contiguous(4, MPI_LONG_LONG, &mat);
  MPI_Type_commit(&mat);
  long long ms[4 * M], mr[4 * M], e[4];
  for (int i = 0; i < M; i++)
    mat_of(rank, i, ms + 4 * i);
  for (int k = 0; k < 4; k++) {
    int root = (k * (size / 2 + 1)) % size; /* several roots */
    MPI_Reduce(ms, mr, M, mat, mat_op, root, MPI_COMM_WORLD);
    if (rank == root)
      for (int i = 0; i < M; i++) {
        mat_fold(0, size, i, e);
        CHECK(memcmp(mr + 4 * i, e, sizeof e) == 0, "matrix Reduce root %d element %d", root, i);
        for (int q = 0; q < 4; q++)
          ck_i64(h, mr[4 * i + q]);
      }
  }
  MPI_Allreduce(ms, mr, M, mat, mat_op, MPI_COMM_WORLD);
  for (int i = 0; i < M; i++) {
    mat_fold(0, size, i, e);
    CHECK(memcmp(mr + 4 * i, e, sizeof e) == 0, "matrix Allreduce element %d", i);
    for (int q = 0; q < 4; q++)
      ck_i64(h, mr[4 * i + q]);
  }
  MPI_Scan(ms, mr, M, mat, mat_op, MPI_COMM_WORLD);
  for (int i = 0; i < M; i++) {
    mat_fold(0, rank + 1, i, e);
    CHECK(memcmp(mr + 4 * i, e, sizeof e) == 0, "matrix Scan element %d", i);
    for (int q = 0; q < 4; q++)
      ck_i64(h, mr[4 * i + q]);
  }
  MPI_Exscan(ms, mr, M, mat, mat_op, MPI_COMM_WORLD);
  if (rank > 0)
    for (int i = 0; i < M; i++) {
      mat_fold(0, rank, i, e);
      CHECK(memcmp(mr + 4 * i, e, sizeof e) == 0, "matrix Exscan element %d", i);
      for (int q = 0; q < 4; q++)
        ck_i64(h, mr[4 * i + q]);
    }
  /* Reduce_scatter_block with the non-commutative op: one matrix per rank */
  long long* big = malloc(sizeof(long long) * 4 * (size_t)size);
  for (int j = 0; j < size; j++)
    mat_of(rank, j, big + 4 * j);
  MPI_Reduce_scatter_block(big, mr, 1, mat, mat_op, MPI_COMM_WORLD);
  mat_fold(0, size, rank, e);
  CHECK(memcmp(mr, e, sizeof e) == 0, "matrix Reduce_scatter_block");
  for (int q = 0; q < 4; q++)
    ck_i64(h, mr[q]);
  free(big);

  MPI_Type_free(&mat);
  MPI_Op_free(&comm_op);
  MPI_Op_free(&mat_op);
  CHECK(comm_op == MPI_OP_NULL && mat_op == MPI_OP_NULL, "Op_free");
}

/* ---------------------------------------------------------------- data movement ---- */
static int dv(int src, int dst, int k) {
  return src * 10007 + dst * 101 + k;
}

static void test_bcast(ck_t* h, int rank, int size) {
  int roots[3] = {0, size - 1, size / 2};
  for (int ri = 0; ri < 3; ri++) {
    int root = roots[ri];
    int n = ri == 1 ? 20000 : 7; /* one large message */
    int* b = malloc(sizeof(int) * (size_t)n);
    for (int i = 0; i < n; i++)
      b[i] = rank == root ? dv(root, 0, i) : -1;
    MPI_Bcast(b, n, MPI_INT, root, MPI_COMM_WORLD);
    long long sum = 0;
    for (int i = 0; i < n; i++) {
      CHECK(b[i] == dv(root, 0, i), "Bcast root %d element %d", root, i);
      sum += b[i];
    }
    ck_i64(h, sum);
    free(b);
  }
  double d[3] = {rank + 0.5, 2.5, -1.0};
  MPI_Bcast(d, 3, MPI_DOUBLE, size - 1, MPI_COMM_WORLD);
  CHECK(d[0] == size - 0.5 && d[1] == 2.5 && d[2] == -1.0, "Bcast double");
  ck_doubles(h, d, 3);
}

static void test_gather_scatter(ck_t* h, int rank, int size) {
  enum { G = 3 };
  int* all = malloc(sizeof(int) * (size_t)(4 * size + 4) * G);
  int* counts = malloc(sizeof(int) * (size_t)size);
  int* displs = malloc(sizeof(int) * (size_t)size);
  int mine[G * 4];

  for (int pass = 0; pass < 2; pass++) {
    int root = pass ? size - 1 : 0;
    /* Gather (in place at the root on the second pass) */
    for (int k = 0; k < G; k++)
      mine[k] = dv(rank, root, k);
    for (int i = 0; i < G * size; i++)
      all[i] = -1;
    if (pass && rank == root) {
      memcpy(all + G * rank, mine, sizeof(int) * G);
      MPI_Gather(MPI_IN_PLACE, G, MPI_INT, all, G, MPI_INT, root, MPI_COMM_WORLD);
    } else {
      MPI_Gather(mine, G, MPI_INT, all, G, MPI_INT, root, MPI_COMM_WORLD);
    }
    if (rank == root) {
      for (int q = 0; q < size; q++)
        for (int k = 0; k < G; k++)
          CHECK(all[q * G + k] == dv(q, root, k), "Gather %d %d", q, k);
      ck_ints(h, all, G * size);
    }

    /* Gatherv: rank q sends q%4+1 ints, placed in reverse rank order with a one-int gap */
    int pos = 0;
    for (int q = size - 1; q >= 0; q--) {
      counts[q] = q % 4 + 1;
      displs[q] = pos;
      pos += counts[q] + 1;
    }
    for (int i = 0; i < pos; i++)
      all[i] = -1;
    for (int k = 0; k < counts[rank]; k++)
      mine[k] = dv(rank, 7, k);
    if (pass && rank == root) {
      memcpy(all + displs[rank], mine, sizeof(int) * (size_t)counts[rank]);
      MPI_Gatherv(MPI_IN_PLACE, 0, MPI_INT, all, counts, displs, MPI_INT, root, MPI_COMM_WORLD);
    } else {
      MPI_Gatherv(mine, counts[rank], MPI_INT, all, counts, displs, MPI_INT, root, MPI_COMM_WORLD);
    }
    if (rank == root) {
      for (int q = 0; q < size; q++) {
        for (int k = 0; k < counts[q]; k++)
          CHECK(all[displs[q] + k] == dv(q, 7, k), "Gatherv from %d element %d", q, k);
        CHECK(all[displs[q] + counts[q]] == -1, "Gatherv wrote into a gap");
      }
      ck_ints(h, all, pos);
    }

    /* Scatter (in place at the root on the second pass) */
    if (rank == root)
      for (int q = 0; q < size; q++)
        for (int k = 0; k < G; k++)
          all[q * G + k] = dv(root, q, k);
    for (int k = 0; k < G; k++)
      mine[k] = -1;
    if (pass && rank == root) {
      MPI_Scatter(all, G, MPI_INT, MPI_IN_PLACE, G, MPI_INT, root, MPI_COMM_WORLD);
      memcpy(mine, all + G * rank, sizeof(int) * G);
    } else {
      MPI_Scatter(all, G, MPI_INT, mine, G, MPI_INT, root, MPI_COMM_WORLD);
    }
    for (int k = 0; k < G; k++)
      CHECK(mine[k] == dv(root, rank, k), "Scatter element %d", k);
    ck_ints(h, mine, G);

    /* Scatterv with the reversed, gapped layout */
    if (rank == root)
      for (int q = 0; q < size; q++)
        for (int k = 0; k < counts[q]; k++)
          all[displs[q] + k] = dv(root, q, 50 + k);
    for (int k = 0; k < 4; k++)
      mine[k] = -1;
    if (pass && rank == root) {
      MPI_Scatterv(all, counts, displs, MPI_INT, MPI_IN_PLACE, 0, MPI_INT, root, MPI_COMM_WORLD);
      memcpy(mine, all + displs[rank], sizeof(int) * (size_t)counts[rank]);
    } else {
      MPI_Scatterv(all, counts, displs, MPI_INT, mine, counts[rank], MPI_INT, root, MPI_COMM_WORLD);
    }
    for (int k = 0; k < counts[rank]; k++)
      CHECK(mine[k] == dv(root, rank, 50 + k), "Scatterv");
    if (counts[rank] < 4) CHECK(mine[counts[rank]] == -1, "Scatterv wrote too much");
    ck_ints(h, mine, counts[rank]);
  }
  free(all);
  free(counts);
  free(displs);
}

static void test_allgather_alltoall(ck_t* h, int rank, int size) {
  int* counts = malloc(sizeof(int) * (size_t)size);
  int* displs = malloc(sizeof(int) * (size_t)size);
  int* scounts = malloc(sizeof(int) * (size_t)size);
  int* sdispls = malloc(sizeof(int) * (size_t)size);
  int* all = malloc(sizeof(int) * (size_t)size * 8 + 8);
  int* sb = malloc(sizeof(int) * (size_t)size * 8 + 8);

  for (int pass = 0; pass < 2; pass++) {
    /* Allgather, 2 ints per rank */
    int mine[4] = {dv(rank, 1, 0), dv(rank, 1, 1), 0, 0};
    for (int i = 0; i < 2 * size; i++)
      all[i] = -1;
    if (pass) {
      all[2 * rank] = mine[0];
      all[2 * rank + 1] = mine[1];
      MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, 2, MPI_INT, MPI_COMM_WORLD);
    } else {
      MPI_Allgather(mine, 2, MPI_INT, all, 2, MPI_INT, MPI_COMM_WORLD);
    }
    for (int q = 0; q < size; q++)
      CHECK(all[2 * q] == dv(q, 1, 0) && all[2 * q + 1] == dv(q, 1, 1), "Allgather from %d", q);
    ck_ints(h, all, 2 * size);

    /* Allgatherv: rank q contributes q%3 ints (zero for some), reversed layout */
    int pos = 0;
    for (int q = size - 1; q >= 0; q--) {
      counts[q] = q % 3;
      displs[q] = pos;
      pos += counts[q];
    }
    for (int i = 0; i < pos + 1; i++)
      all[i] = -1;
    for (int k = 0; k < counts[rank]; k++)
      mine[k] = dv(rank, 2, k);
    if (pass) {
      for (int k = 0; k < counts[rank]; k++)
        all[displs[rank] + k] = mine[k];
      MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, counts, displs, MPI_INT, MPI_COMM_WORLD);
    } else {
      MPI_Allgatherv(mine, counts[rank], MPI_INT, all, counts, displs, MPI_INT, MPI_COMM_WORLD);
    }
    for (int q = 0; q < size; q++)
      for (int k = 0; k < counts[q]; k++)
        CHECK(all[displs[q] + k] == dv(q, 2, k), "Allgatherv from %d element %d", q, k);
    CHECK(all[pos] == -1, "Allgatherv overran");
    ck_ints(h, all, pos);

    /* Alltoall: 2 ints to each rank */
    for (int q = 0; q < size; q++) {
      sb[2 * q] = dv(rank, q, 3);
      sb[2 * q + 1] = dv(rank, q, 4);
    }
    if (pass) {
      memcpy(all, sb, sizeof(int) * 2 * (size_t)size);
      MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, 2, MPI_INT, MPI_COMM_WORLD);
    } else {
      MPI_Alltoall(sb, 2, MPI_INT, all, 2, MPI_INT, MPI_COMM_WORLD);
    }
    for (int q = 0; q < size; q++)
      CHECK(all[2 * q] == dv(q, rank, 3) && all[2 * q + 1] == dv(q, rank, 4), "Alltoall from %d", q);
    ck_ints(h, all, 2 * size);

    /* Alltoallv: (i+j)%3 ints from i to j (symmetric, so in place works); receive side in
     * reverse order */
    int spos = 0, rpos = 0;
    for (int q = 0; q < size; q++) {
      scounts[q] = (rank + q) % 3;
      sdispls[q] = spos;
      spos += scounts[q];
    }
    for (int q = size - 1; q >= 0; q--) {
      counts[q] = (q + rank) % 3;
      displs[q] = rpos;
      rpos += counts[q];
    }
    for (int q = 0; q < size; q++)
      for (int k = 0; k < scounts[q]; k++)
        sb[sdispls[q] + k] = dv(rank, q, 10 + k);
    for (int i = 0; i < rpos + 1; i++)
      all[i] = -1;
    if (pass) {
      for (int q = 0; q < size; q++) /* in place: data to q sits where data from q will go */
        for (int k = 0; k < counts[q]; k++)
          all[displs[q] + k] = dv(rank, q, 10 + k);
      MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, all, counts, displs, MPI_INT, MPI_COMM_WORLD);
    } else {
      MPI_Alltoallv(sb, scounts, sdispls, MPI_INT, all, counts, displs, MPI_INT, MPI_COMM_WORLD);
    }
    for (int q = 0; q < size; q++)
      for (int k = 0; k < counts[q]; k++)
        CHECK(all[displs[q] + k] == dv(q, rank, 10 + k), "Alltoallv from %d element %d", q, k);
    CHECK(all[rpos] == -1, "Alltoallv overran");
    ck_ints(h, all, rpos);
  }
  free(counts);
  free(displs);
  free(scounts);
  free(sdispls);
  free(all);
  free(sb);
}

int main(int argc, char** argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  ck_t h = CK_INIT;
  MPI_Barrier(MPI_COMM_WORLD);
  test_bcast(&h, rank, size);
  MPI_Barrier(MPI_COMM_WORLD);
  test_gather_scatter(&h, rank, size);
  test_allgather_alltoall(&h, rank, size);
  MPI_Barrier(MPI_COMM_WORLD);
  test_predefined(&h, rank, size);
  test_minmaxloc(&h, rank, size);
  test_user_ops(&h, rank, size);
  MPI_Barrier(MPI_COMM_WORLD);
  ck_finish(&h, "colls");
  MPI_Finalize();
  return 0;
}
