/* reductions.c - every predefined operation on every predefined datatype, through
 * MPI_Allreduce, MPI_Reduce and MPI_Iallreduce: the pairs MPICH 4.0.2 accepts compute what a
 * sequential loop computes, the others fail with MPI_ERR_OP (MPI_ERRORS_RETURN). Covers C and
 * Fortran integers, floating point (long double too), complex, logical, MPI_BYTE, the pair
 * types of MINLOC/MAXLOC (MPI's tie rule: the smaller index) and MPI_AINT/OFFSET/COUNT.
 * Which operation applies to which type is MPICH's table (MPI-4.0 §6.9.2, plus the logical
 * operations on floating point, which are not tested, and none on MPI_WCHAR, MPI_PACKED,
 * MPI_COMPLEX32). */
#include <complex.h>

#include "check.h"

enum { MAXO = 1, MINO = 2, SUMO = 4, PRODO = 8, LANDO = 16, BANDO = 32, LORO = 64, BORO = 128, LXORO = 256,
       BXORO = 512, MINLOCO = 1024, MAXLOCO = 2048 };
#define INTEGER_OPS (MAXO | MINO | SUMO | PRODO | LANDO | BANDO | LORO | BORO | LXORO | BXORO)
#define FLOATING_OPS (MAXO | MINO | SUMO | PRODO | LANDO | LORO | LXORO)
#define LOGICAL_OPS (LANDO | LORO | LXORO)
#define COMPLEX_OPS (SUMO | PRODO)
#define PAIR_OPS (MINLOCO | MAXLOCO)
#define BYTE_OPS (BANDO | BORO | BXORO)

static const MPI_Op kOps[12] = {MPI_MAX,  MPI_MIN, MPI_SUM,  MPI_PROD, MPI_LAND,   MPI_BAND,
                                MPI_LOR,  MPI_BOR, MPI_LXOR, MPI_BXOR, MPI_MINLOC, MPI_MAXLOC};
static const char* const kOpNames[12] = {"MAX", "MIN", "SUM",  "PROD", "LAND",   "BAND",
                                         "LOR", "BOR", "LXOR", "BXOR", "MINLOC", "MAXLOC"};

enum { N = 6 };

/* The input of rank r, element k, for operation o (an int every type can hold). */
static int input(int o, int r, int k, int size) {
  switch (o) {
    case 0:
    case 1:
      return (r * 5 + k) % 7 + 1;
    case 2:
      return (r + k) % 4;
    case 3:
      return r == k % size ? 2 : r == (k + 1) % size ? 3 : 1;
    case 5:
    case 7:
    case 9:
      return (r * 37 + k * 11) & 0x7f;
    default: /* logical */
      return (k % 3 == 0) ? 1 : (k % 3 == 1) ? (r != k % size) : (r == k % size);
  }
}

static long long times(long long a, long long b) { return a * b; }

/* Sequential reduction of the inputs in rank order, in type T, via a long long accumulator
 * converted to T at each step (the same wrap-around a C loop in T gives). */
#define SEQ(T, o, k, size, out)                                                         \
  do {                                                                                  \
    T acc_ = (T)input(o, 0, k, size);                                                   \
    for (int r_ = 1; r_ < size; r_++) {                                                 \
      T x_ = (T)input(o, r_, k, size);                                                  \
      switch (o) {                                                                      \
        case 0: acc_ = x_ > acc_ ? x_ : acc_; break;                                    \
        case 1: acc_ = x_ < acc_ ? x_ : acc_; break;                                    \
        case 2: acc_ = (T)(acc_ + x_); break;                                           \
        case 3: acc_ = (T)times(acc_, x_); break;                                       \
        case 4: acc_ = (T)(acc_ && x_); break;                                          \
        case 6: acc_ = (T)(acc_ || x_); break;                                          \
        case 8: acc_ = (T)(!acc_ != !x_); break;                                        \
        default: break;                                                                 \
      }                                                                                 \
    }                                                                                   \
    out = acc_;                                                                         \
  } while (0)
#define SEQ_BITS(T, o, k, size, out)                                                    \
  do {                                                                                  \
    T acc_ = (T)input(o, 0, k, size);                                                   \
    for (int r_ = 1; r_ < size; r_++) {                                                 \
      T x_ = (T)input(o, r_, k, size);                                                  \
      acc_ = (T)(o == 5 ? (acc_ & x_) : o == 7 ? (acc_ | x_) : (acc_ ^ x_));            \
    }                                                                                   \
    out = acc_;                                                                         \
  } while (0)

/* Runs op o on `t` three ways: MPI_Allreduce into got[0], MPI_Reduce (root 0; elsewhere a copy
 * of got[0]) into got[1], MPI_Iallreduce into got[2]. Returns 1 if MPI accepted the op. */
static int run(MPI_Datatype t, int o, const void* in, void* got, size_t bytes, int rank) {
  char* g = (char*)got;
  memset(g, 0, 3 * bytes);
  int rc = MPI_Allreduce(in, g, N, t, kOps[o], MPI_COMM_WORLD);
  if (rc != MPI_SUCCESS) {
    int cls;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_OP, "op %s: error class %d, not MPI_ERR_OP", kOpNames[o], cls);
    return 0;
  }
  CHECK_MPI(MPI_Reduce(in, g + bytes, N, t, kOps[o], 0, MPI_COMM_WORLD));
  if (rank != 0) memcpy(g + bytes, g, bytes);
  MPI_Request req;
  CHECK_MPI(MPI_Iallreduce(in, g + 2 * bytes, N, t, kOps[o], MPI_COMM_WORLD, &req));
  CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
  return 1;
}

/* A scalar type T, checked against SEQ for every op; `allowed` is MPICH's set for it. */
#define SCALAR_(h, T, mpit, allowed, rank, size, BITS, skip)                                                  \
  do {                                                                                               \
    for (int o = 0; o < 12; o++) {                                                                   \
      if (((skip) >> o) & 1) continue;                                                               \
      T in[N], all[3][N], want;                                                                      \
      for (int k = 0; k < N; k++)                                                                    \
        in[k] = (T)input(o, rank, k, size);                                                          \
      const int ok = run(mpit, o, in, all, sizeof all[0], rank);                                     \
      CHECK(ok == (((allowed) >> o) & 1), "%s %s: accepted %d, MPICH %d", #mpit, kOpNames[o], ok,    \
            (int)(((allowed) >> o) & 1));                                                            \
      ck_int(h, ok);                                                                                 \
      if (!ok) continue;                                                                             \
      for (int k = 0; k < N; k++) {                                                                  \
        if (o == 5 || o == 7 || o == 9) {                                                            \
          BITS(T, o, k, size, want);                                                                 \
        } else {                                                                                     \
          SEQ(T, o, k, size, want);                                                                  \
        }                                                                                            \
        for (int w = 0; w < 3; w++)                                                                  \
          CHECK(all[w][k] == want, "%s %s (way %d) element %d: %lld, expected %lld", #mpit,          \
                kOpNames[o], w, k, (long long)all[w][k], (long long)want);                           \
        ck_double(h, (double)all[0][k]);                                                             \
      }                                                                                              \
    }                                                                                                \
  } while (0)

#define NO_BITS(T, o, k, size, out) out = (T)0
#define SCALAR(h, T, mpit, allowed, rank, size) SCALAR_(h, T, mpit, allowed, rank, size, SEQ_BITS, 0)
/* MPI defines no logical operation on floating point; MPICH 4.0.2 accepts them but then
 * aborts in them (opland.c), so they are left out here (mgen refuses them). */
#define FSCALAR(h, T, mpit, allowed, rank, size) \
  SCALAR_(h, T, mpit, allowed, rank, size, NO_BITS, LANDO | LORO | LXORO)

/* Bitwise ops only (MPI_BYTE): SEQ_BITS, unsigned char. */
static void byte_type(ck_t* h, int rank, int size) {
  for (int o = 0; o < 12; o++) {
    unsigned char in[N], all[3][N], want;
    for (int k = 0; k < N; k++)
      in[k] = (unsigned char)input(o, rank, k, size);
    const int ok = run(MPI_BYTE, o, in, all, sizeof all[0], rank);
    CHECK(ok == ((BYTE_OPS >> o) & 1), "MPI_BYTE %s: accepted %d", kOpNames[o], ok);
    ck_int(h, ok);
    if (!ok) continue;
    for (int k = 0; k < N; k++) {
      SEQ_BITS(unsigned char, o, k, size, want);
      for (int w = 0; w < 3; w++)
        CHECK(all[w][k] == want, "MPI_BYTE %s element %d: %d, expected %d", kOpNames[o], k, all[w][k], want);
      ck_int(h, all[0][k]);
    }
  }
}

/* Types no predefined reduction applies to (under MPICH). */
static void refused(ck_t* h, MPI_Datatype t, const char* name, int rank) {
  for (int o = 0; o < 12; o++) {
    char in[N * 32] = {0}, all[3][N * 32];
    const int ok = run(t, o, in, all, sizeof all[0], rank);
    CHECK(!ok, "%s %s: accepted, MPICH refuses it", name, kOpNames[o]);
    ck_int(h, ok);
  }
}

/* Complex: SUM and PROD only. C's complex types and Fortran's (two reals). */
#define COMPLEX(h, T, mpit, rank, size)                                                                \
  do {                                                                                                 \
    for (int o = 0; o < 12; o++) {                                                                     \
      T in[N], all[3][N];                                                                              \
      for (int k = 0; k < N; k++)                                                                      \
        in[k] = o == 3 ? (rank == k % size ? (T)(1 + 1 * I) : (T)1) : (T)((rank % 3) + (k % 2) * I);  \
      const int ok = run(mpit, o, in, all, sizeof all[0], rank);                                       \
      CHECK(ok == ((COMPLEX_OPS >> o) & 1), "%s %s: accepted %d", #mpit, kOpNames[o], ok);             \
      ck_int(h, ok);                                                                                   \
      if (!ok) continue;                                                                               \
      for (int k = 0; k < N; k++) {                                                                    \
        T want = o == 3 ? (T)(1 + 1 * I) : 0;                                                          \
        if (o == 2)                                                                                    \
          for (int r = 0; r < size; r++)                                                               \
            want += (T)((r % 3) + (k % 2) * I);                                                        \
        for (int w = 0; w < 3; w++)                                                                    \
          CHECK(all[w][k] == want, "%s %s element %d: %g%+gi", #mpit, kOpNames[o], k,                  \
                (double)creal(all[w][k]), (double)cimag(all[w][k]));                                   \
        ck_double(h, (double)creal(all[0][k]));                                                        \
        ck_double(h, (double)cimag(all[0][k]));                                                        \
      }                                                                                                \
    }                                                                                                  \
  } while (0)

/* MINLOC / MAXLOC on a pair type laid out as struct {V v; I i;}. */
#define PAIR(h, V, I, mpit, rank, size)                                                                \
  do {                                                                                                 \
    struct {                                                                                           \
      V v;                                                                                             \
      I i;                                                                                             \
    } in[N], all[3][N];                                                                                \
    for (int o = 0; o < 12; o++) {                                                                     \
      memset(in, 0, sizeof in);                                                                        \
      for (int k = 0; k < N; k++) {                                                                    \
        in[k].v = (V)((rank * 3 + k) % 5);                                                             \
        in[k].i = (I)(rank + 1);                                                                       \
      }                                                                                                \
      const int ok = run(mpit, o, in, all, sizeof all[0], rank);                                       \
      CHECK(ok == ((PAIR_OPS >> o) & 1), "%s %s: accepted %d", #mpit, kOpNames[o], ok);                \
      ck_int(h, ok);                                                                                   \
      if (!ok) continue;                                                                               \
      for (int k = 0; k < N; k++) {                                                                    \
        V bv = (V)(k % 5);                                                                             \
        I bi = (I)1;                                                                                   \
        for (int r = 1; r < size; r++) {                                                               \
          const V v = (V)((r * 3 + k) % 5);                                                            \
          if (o == 10 ? v < bv : v > bv) {                                                             \
            bv = v;                                                                                    \
            bi = (I)(r + 1);                                                                           \
          }                                                                                            \
        }                                                                                              \
        for (int w = 0; w < 3; w++)                                                                    \
          CHECK(all[w][k].v == bv && all[w][k].i == bi, "%s %s element %d: (%g, %g), expected (%g, %g)", \
                #mpit, kOpNames[o], k, (double)all[w][k].v, (double)all[w][k].i, (double)bv, (double)bi); \
        ck_double(h, (double)all[0][k].v);                                                             \
        ck_double(h, (double)all[0][k].i);                                                             \
      }                                                                                                \
    }                                                                                                  \
  } while (0)

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  ck_t h = CK_INIT;
  /* C integers, and the Fortran and fixed-size ones with the same C layout */
  SCALAR(&h, char, MPI_CHAR, INTEGER_OPS, rank, size);
  SCALAR(&h, signed char, MPI_SIGNED_CHAR, INTEGER_OPS, rank, size);
  SCALAR(&h, unsigned char, MPI_UNSIGNED_CHAR, INTEGER_OPS, rank, size);
  SCALAR(&h, short, MPI_SHORT, INTEGER_OPS, rank, size);
  SCALAR(&h, unsigned short, MPI_UNSIGNED_SHORT, INTEGER_OPS, rank, size);
  SCALAR(&h, int, MPI_INT, INTEGER_OPS, rank, size);
  SCALAR(&h, unsigned, MPI_UNSIGNED, INTEGER_OPS, rank, size);
  SCALAR(&h, long, MPI_LONG, INTEGER_OPS, rank, size);
  SCALAR(&h, unsigned long, MPI_UNSIGNED_LONG, INTEGER_OPS, rank, size);
  SCALAR(&h, long long, MPI_LONG_LONG_INT, INTEGER_OPS, rank, size);
  SCALAR(&h, unsigned long long, MPI_UNSIGNED_LONG_LONG, INTEGER_OPS, rank, size);
  SCALAR(&h, int8_t, MPI_INT8_T, INTEGER_OPS, rank, size);
  SCALAR(&h, int16_t, MPI_INT16_T, INTEGER_OPS, rank, size);
  SCALAR(&h, int32_t, MPI_INT32_T, INTEGER_OPS, rank, size);
  SCALAR(&h, int64_t, MPI_INT64_T, INTEGER_OPS, rank, size);
  SCALAR(&h, uint8_t, MPI_UINT8_T, INTEGER_OPS, rank, size);
  SCALAR(&h, uint16_t, MPI_UINT16_T, INTEGER_OPS, rank, size);
  SCALAR(&h, uint32_t, MPI_UINT32_T, INTEGER_OPS, rank, size);
  SCALAR(&h, uint64_t, MPI_UINT64_T, INTEGER_OPS, rank, size);
  SCALAR(&h, MPI_Aint, MPI_AINT, INTEGER_OPS, rank, size);
  SCALAR(&h, MPI_Offset, MPI_OFFSET, INTEGER_OPS, rank, size);
  SCALAR(&h, MPI_Count, MPI_COUNT, INTEGER_OPS, rank, size);
  SCALAR(&h, int, MPI_INTEGER, INTEGER_OPS, rank, size);
  SCALAR(&h, int8_t, MPI_INTEGER1, INTEGER_OPS, rank, size);
  SCALAR(&h, int16_t, MPI_INTEGER2, INTEGER_OPS, rank, size);
  SCALAR(&h, int32_t, MPI_INTEGER4, INTEGER_OPS, rank, size);
  SCALAR(&h, int64_t, MPI_INTEGER8, INTEGER_OPS, rank, size);
  SCALAR(&h, char, MPI_CHARACTER, INTEGER_OPS, rank, size);
  /* floating point */
  FSCALAR(&h, float, MPI_FLOAT, FLOATING_OPS, rank, size);
  FSCALAR(&h, double, MPI_DOUBLE, FLOATING_OPS, rank, size);
  FSCALAR(&h, long double, MPI_LONG_DOUBLE, FLOATING_OPS, rank, size);
  FSCALAR(&h, float, MPI_REAL, FLOATING_OPS, rank, size);
  FSCALAR(&h, double, MPI_DOUBLE_PRECISION, FLOATING_OPS, rank, size);
  FSCALAR(&h, float, MPI_REAL4, FLOATING_OPS, rank, size);
  FSCALAR(&h, double, MPI_REAL8, FLOATING_OPS, rank, size);
  /* logical */
  SCALAR(&h, _Bool, MPI_C_BOOL, LOGICAL_OPS, rank, size);
  SCALAR(&h, _Bool, MPI_CXX_BOOL, LOGICAL_OPS, rank, size);
  SCALAR(&h, int, MPI_LOGICAL, LOGICAL_OPS, rank, size);
  byte_type(&h, rank, size);
  /* complex */
  COMPLEX(&h, float _Complex, MPI_C_FLOAT_COMPLEX, rank, size);
  COMPLEX(&h, double _Complex, MPI_C_DOUBLE_COMPLEX, rank, size);
  COMPLEX(&h, long double _Complex, MPI_C_LONG_DOUBLE_COMPLEX, rank, size);
  COMPLEX(&h, float _Complex, MPI_CXX_FLOAT_COMPLEX, rank, size);
  COMPLEX(&h, double _Complex, MPI_CXX_DOUBLE_COMPLEX, rank, size);
  COMPLEX(&h, long double _Complex, MPI_CXX_LONG_DOUBLE_COMPLEX, rank, size);
  COMPLEX(&h, float _Complex, MPI_COMPLEX, rank, size);
  COMPLEX(&h, double _Complex, MPI_DOUBLE_COMPLEX, rank, size);
  COMPLEX(&h, float _Complex, MPI_COMPLEX8, rank, size);
  COMPLEX(&h, double _Complex, MPI_COMPLEX16, rank, size);
  /* pairs */
  PAIR(&h, float, int, MPI_FLOAT_INT, rank, size);
  PAIR(&h, double, int, MPI_DOUBLE_INT, rank, size);
  PAIR(&h, long, int, MPI_LONG_INT, rank, size);
  PAIR(&h, int, int, MPI_2INT, rank, size);
  PAIR(&h, short, int, MPI_SHORT_INT, rank, size);
  PAIR(&h, long double, int, MPI_LONG_DOUBLE_INT, rank, size);
  PAIR(&h, int, int, MPI_2INTEGER, rank, size);
  PAIR(&h, float, float, MPI_2REAL, rank, size);
  PAIR(&h, double, double, MPI_2DOUBLE_PRECISION, rank, size);
  /* none */
  refused(&h, MPI_WCHAR, "MPI_WCHAR", rank);
  refused(&h, MPI_PACKED, "MPI_PACKED", rank);
  refused(&h, MPI_COMPLEX32, "MPI_COMPLEX32", rank);
  ck_finish(&h, "reductions");
  MPI_Finalize();
  return 0;
}
