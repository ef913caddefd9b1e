/* rma_atomics.c - one-sided atomics and accumulates.
 *
 * Checks: a shared counter incremented by MPI_Fetch_and_op from every rank (every old value
 * seen exactly once); a spin lock built on MPI_Compare_and_swap protecting a non-atomic
 * Get/Put increment; MPI_Get_accumulate with every predefined operation (incl. MPI_REPLACE
 * and MPI_NO_OP) on int, double, unsigned char and long long; accumulates from every rank
 * into one location (element-wise atomic: the values fetched by MPI_Get_accumulate form one
 * serial order; a chain of MPI_REPLACE swaps loses no value); derived target datatypes
 * (vector, contiguous of vector); MINLOC/MAXLOC on MPI_2INT; MPI_Compare_and_swap on int,
 * long, uint64 and byte; the request-based MPI_Rput/Rget/Raccumulate/Rget_accumulate with
 * Wait, Waitall and Test loops. Windows are sized in multiples of 64 bytes (see onesided.c:
 * MPICH 4.0.2's ch4:ucx misreads windows of other sizes).
 */
#include "check.h"

/* A window of `n` elements of `elem` bytes (rounded up to 64 bytes), zeroed under a lock. */
static void* make_window(size_t n, size_t elem, int rank, MPI_Win* win) {
  size_t bytes = (n * elem + 63) / 64 * 64;
  void* base = NULL;
  MPI_Win_allocate((MPI_Aint)bytes, (int)elem, MPI_INFO_NULL, MPI_COMM_WORLD, &base, win);
  MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, *win);
  memset(base, 0, bytes);
  MPI_Win_unlock(rank, *win);
  MPI_Barrier(MPI_COMM_WORLD);
  return base;
}

static int cmp_long(const void* a, const void* b) {
  long x = *(const long*)a, y = *(const long*)b;
  return (x > y) - (x < y);
}

/* Every rank adds 1 to rank 0's counter K times with MPI_Fetch_and_op. */
static void test_counter(ck_t* h, int rank, int size) {
  enum { K = 5 };
  MPI_Win win;
  long* base = make_window(1, sizeof(long), rank, &win);
  long got[K];
  MPI_Win_lock_all(0, win);
  for (int k = 0; k < K; k++) {
    long one = 1;
    MPI_Fetch_and_op(&one, &got[k], MPI_LONG, 0, 0, MPI_SUM, win);
    MPI_Win_flush(0, win);
    if (k > 0) CHECK(got[k] > got[k - 1], "counter went back: %ld after %ld", got[k], got[k - 1]);
  }
  MPI_Win_unlock_all(win);
  long* all = rank == 0 ? malloc(sizeof(long) * K * (size_t)size) : NULL;
  MPI_Gather(got, K, MPI_LONG, all, K, MPI_LONG, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    qsort(all, (size_t)K * (size_t)size, sizeof(long), cmp_long);
    for (int i = 0; i < K * size; i++)
      CHECK(all[i] == i, "old counter values are not 0..%d: %ld at %d", K * size - 1, all[i], i);
    free(all); /* which rank saw which value depends on timing: not hashed */
  }
  MPI_Barrier(MPI_COMM_WORLD);
  long final = -1, unused = 0;
  MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
  MPI_Fetch_and_op(&unused, &final, MPI_LONG, 0, 0, MPI_NO_OP, win);
  MPI_Win_unlock(0, win);
  CHECK(final == (long)K * size, "final counter %ld", final);
  ck_i64(h, final);
  (void)base;
  MPI_Win_free(&win);
}

/* A spin lock on rank 0 made of MPI_Compare_and_swap; under it a Get/Put increment that
 * would lose updates without mutual exclusion. */
static void test_cas_lock(ck_t* h, int rank, int size) {
  enum { ITERS = 3, LOCK = 0, COUNT = 1 };
  MPI_Win win;
  int* base = make_window(2, sizeof(int), rank, &win);
  const int free_word = 0, mine = rank + 1;
  MPI_Win_lock_all(0, win);
  for (int it = 0; it < ITERS; it++) {
    int old = -1;
    do {
      MPI_Compare_and_swap(&mine, &free_word, &old, MPI_INT, 0, LOCK, win);
      MPI_Win_flush(0, win);
    } while (old != free_word);
    int c = -1;
    MPI_Get(&c, 1, MPI_INT, 0, COUNT, 1, MPI_INT, win);
    MPI_Win_flush(0, win);
    c++;
    MPI_Put(&c, 1, MPI_INT, 0, COUNT, 1, MPI_INT, win);
    MPI_Win_flush(0, win);
    MPI_Fetch_and_op(&free_word, &old, MPI_INT, 0, LOCK, MPI_REPLACE, win);
    MPI_Win_flush(0, win);
    CHECK(old == mine, "lock word was %d while rank %d held it", old, rank);
  }
  MPI_Win_unlock_all(win);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
    CHECK(base[COUNT] == ITERS * size, "counter under the CAS lock: %d", base[COUNT]);
    CHECK(base[LOCK] == 0, "lock word left %d", base[LOCK]);
    ck_int(h, base[COUNT]);
    MPI_Win_unlock(0, win);
  }
  MPI_Win_free(&win);
}

/* --- MPI_Get_accumulate with every operation, each slot touched by one origin per epoch --- */

enum { NOPS = 12 };
static MPI_Op op_at(int i) {
  const MPI_Op ops[NOPS] = {MPI_SUM,  MPI_PROD, MPI_MAX, MPI_MIN,  MPI_LAND,    MPI_LOR,
                            MPI_LXOR, MPI_BAND, MPI_BOR, MPI_BXOR, MPI_REPLACE, MPI_NO_OP};
  return ops[i];
}
static long long apply_ll(int i, long long o, long long t) {
  switch (i) {
    case 0: return o + t;
    case 1: return o * t;
    case 2: return o > t ? o : t;
    case 3: return o < t ? o : t;
    case 4: return (o && t) ? 1 : 0;
    case 5: return (o || t) ? 1 : 0;
    case 6: return ((!o) != (!t)) ? 1 : 0;
    case 7: return o & t;
    case 8: return o | t;
    case 9: return o ^ t;
    case 10: return o;
    default: return t;
  }
}

static void test_every_op_int(ck_t* h, int rank, int size) {
  int next = (rank + 1) % size, prev = (rank - 1 + size) % size;
  MPI_Win win;
  int* base = make_window(NOPS, sizeof(int), rank, &win);
  MPI_Win_fence(0, win);
  for (int i = 0; i < NOPS; i++)
    base[i] = (rank * 7 + i * 3) % 11 - 2; /* targets in -2..8, some zero */
  MPI_Win_fence(0, win);
  int origin[NOPS], result[NOPS];
  for (int i = 0; i < NOPS; i++) {
    origin[i] = (rank + i) % 4 - 1; /* -1..2 */
    result[i] = 12345;
    MPI_Get_accumulate(&origin[i], 1, MPI_INT, &result[i], 1, MPI_INT, next, i, 1, MPI_INT, op_at(i), win);
  }
  MPI_Win_fence(0, win);
  for (int i = 0; i < NOPS; i++) {
    int before = (next * 7 + i * 3) % 11 - 2;
    CHECK(result[i] == before, "op %d: fetched %d, target held %d", i, result[i], before);
    int mine_before = (rank * 7 + i * 3) % 11 - 2, o = (prev + i) % 4 - 1;
    long long want = apply_ll(i, o, mine_before);
    CHECK(base[i] == want, "op %d: %d op %d gave %d, want %lld", i, o, mine_before, base[i], want);
  }
  ck_ints(h, base, NOPS);
  ck_ints(h, result, NOPS);
  MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
  MPI_Win_free(&win);
}

/* The same for double (arithmetic ops), unsigned char (bitwise and arithmetic, wrapping) and
 * long long (all but logical and PROD). The unsigned chars stay below 128: MPICH 4.0.2 orders
 * MPI_UNSIGNED_CHAR as signed in MPI_MAX/MPI_MIN (MPI_Reduce_local too: max(65, 146) = 65). */
static void test_every_op_types(ck_t* h, int rank, int size) {
  int next = (rank + 1) % size, prev = (rank - 1 + size) % size;
  const int dops[] = {0, 1, 2, 3, 10, 11};            /* SUM PROD MAX MIN REPLACE NO_OP */
  const int uops[] = {0, 1, 2, 3, 7, 8, 9, 10, 11};   /* + BAND BOR BXOR */
  const int lops[] = {0, 2, 3, 7, 8, 9, 10, 11};    /* no PROD: it would overflow */
  enum { ND = 6, NU = 9, NL = 8 };
  MPI_Win dwin, uwin, lwin;
  double* d = make_window(ND, sizeof(double), rank, &dwin);
  unsigned char* u = make_window(NU, 1, rank, &uwin);
  long long* l = make_window(NL, sizeof(long long), rank, &lwin);
  MPI_Win_fence(0, dwin);
  MPI_Win_fence(0, uwin);
  MPI_Win_fence(0, lwin);
  for (int i = 0; i < ND; i++)
    d[i] = 0.5 * (rank % 5) - 1.0 + i;
  for (int i = 0; i < NU; i++)
    u[i] = (unsigned char)((rank * 37 + i * 101 + 200) & 0x7f);
  for (int i = 0; i < NL; i++)
    l[i] = (long long)(rank + 1) * 1000000007LL * (i + 1) - 3;
  MPI_Win_fence(0, dwin);
  MPI_Win_fence(0, uwin);
  MPI_Win_fence(0, lwin);
  double dor[ND], dres[ND];
  unsigned char uor[NU], ures[NU];
  long long lor[NL], lres[NL];
  for (int i = 0; i < ND; i++) {
    dor[i] = 1.5 - 0.25 * ((rank + i) % 7);
    MPI_Get_accumulate(&dor[i], 1, MPI_DOUBLE, &dres[i], 1, MPI_DOUBLE, next, i, 1, MPI_DOUBLE, op_at(dops[i]), dwin);
  }
  for (int i = 0; i < NU; i++) {
    uor[i] = (unsigned char)((rank * 53 + i * 29 + 7) & 0x7f);
    MPI_Get_accumulate(&uor[i], 1, MPI_UNSIGNED_CHAR, &ures[i], 1, MPI_UNSIGNED_CHAR, next, i, 1, MPI_UNSIGNED_CHAR,
                       op_at(uops[i]), uwin);
  }
  for (int i = 0; i < NL; i++) {
    lor[i] = (long long)(rank - 2) * 99991LL + i;
    MPI_Get_accumulate(&lor[i], 1, MPI_LONG_LONG, &lres[i], 1, MPI_LONG_LONG, next, i, 1, MPI_LONG_LONG,
                       op_at(lops[i]), lwin);
  }
  MPI_Win_fence(0, dwin);
  MPI_Win_fence(0, uwin);
  MPI_Win_fence(0, lwin);
  for (int i = 0; i < ND; i++) {
    double t = 0.5 * (rank % 5) - 1.0 + i, o = 1.5 - 0.25 * ((prev + i) % 7), want;
    switch (dops[i]) {
      case 0: want = o + t; break;
      case 1: want = o * t; break;
      case 2: want = o > t ? o : t; break;
      case 3: want = o < t ? o : t; break;
      case 10: want = o; break;
      default: want = t;
    }
    CHECK(d[i] == want, "double op %d: %g", dops[i], d[i]);
    CHECK(dres[i] == 0.5 * (next % 5) - 1.0 + i, "double fetch %d: %g", i, dres[i]);
  }
  for (int i = 0; i < NU; i++) {
    unsigned char t = (unsigned char)((rank * 37 + i * 101 + 200) & 0x7f), o = (unsigned char)((prev * 53 + i * 29 + 7) & 0x7f);
    unsigned char want = (unsigned char)apply_ll(uops[i], o, t);
    CHECK(u[i] == want, "uchar op %d: %u, want %u", uops[i], u[i], want);
    CHECK(ures[i] == (unsigned char)((next * 37 + i * 101 + 200) & 0x7f), "uchar fetch %d", i);
  }
  for (int i = 0; i < NL; i++) {
    long long t = (long long)(rank + 1) * 1000000007LL * (i + 1) - 3, o = (long long)(prev - 2) * 99991LL + i;
    long long want = apply_ll(lops[i], o, t);
    CHECK(l[i] == want, "long long op %d: %lld, want %lld", lops[i], l[i], want);
    CHECK(lres[i] == (long long)(next + 1) * 1000000007LL * (i + 1) - 3, "long long fetch %d", i);
  }
  ck_doubles(h, d, ND);
  ck_doubles(h, dres, ND);
  for (int i = 0; i < NU; i++) {
    ck_int(h, u[i]);
    ck_int(h, ures[i]);
  }
  for (int i = 0; i < NL; i++) {
    ck_i64(h, l[i]);
    ck_i64(h, lres[i]);
  }
  MPI_Win_fence(MPI_MODE_NOSUCCEED, dwin);
  MPI_Win_fence(MPI_MODE_NOSUCCEED, uwin);
  MPI_Win_fence(MPI_MODE_NOSUCCEED, lwin);
  MPI_Win_free(&dwin);
  MPI_Win_free(&uwin);
  MPI_Win_free(&lwin);
}

/* Every rank accumulates into the same elements of rank 0 in one epoch. */
static void test_same_location(ck_t* h, int rank, int size) {
  enum { SUM = 0, MAX = 1, BXOR = 2, FETCHED = 3, SWAP = 4 };
  MPI_Win win;
  long* base = make_window(8, sizeof(long), rank, &win);
  MPI_Win_fence(0, win);
  if (rank == 0) base[SWAP] = -1;
  MPI_Win_fence(0, win);
  long v = rank + 1, x = (long)rank * 2654435761L % 1000003L, one = 1, fetched = -1, swapped = -2;
  MPI_Accumulate(&v, 1, MPI_LONG, 0, SUM, 1, MPI_LONG, MPI_SUM, win);
  MPI_Accumulate(&x, 1, MPI_LONG, 0, MAX, 1, MPI_LONG, MPI_MAX, win);
  MPI_Accumulate(&x, 1, MPI_LONG, 0, BXOR, 1, MPI_LONG, MPI_BXOR, win);
  MPI_Get_accumulate(&one, 1, MPI_LONG, &fetched, 1, MPI_LONG, 0, FETCHED, 1, MPI_LONG, MPI_SUM, win);
  long me = rank;
  MPI_Fetch_and_op(&me, &swapped, MPI_LONG, 0, SWAP, MPI_REPLACE, win);
  MPI_Win_fence(0, win);
  long results[2] = {fetched, swapped};
  long* all = rank == 0 ? malloc(sizeof(long) * 2 * (size_t)size) : NULL;
  MPI_Gather(results, 2, MPI_LONG, all, 2, MPI_LONG, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    long want_max = 0, want_xor = 0;
    for (int q = 0; q < size; q++) {
      long xq = (long)q * 2654435761L % 1000003L;
      if (xq > want_max) want_max = xq;
      want_xor ^= xq;
    }
    CHECK(base[SUM] == (long)size * (size + 1) / 2, "sum %ld", base[SUM]);
    CHECK(base[MAX] == want_max, "max %ld", base[MAX]);
    CHECK(base[BXOR] == want_xor, "bxor %ld", base[BXOR]);
    CHECK(base[FETCHED] == size, "fetch-add total %ld", base[FETCHED]);
    /* atomic per element: the fetched old values are 0..size-1, each once; the swaps hand
     * every value on exactly once (the old values and the final one are -1..size-1) */
    long* f = malloc(sizeof(long) * (size_t)size);
    long* s = malloc(sizeof(long) * ((size_t)size + 1));
    for (int q = 0; q < size; q++) {
      f[q] = all[2 * q];
      s[q] = all[2 * q + 1];
    }
    s[size] = base[SWAP];
    qsort(f, (size_t)size, sizeof(long), cmp_long);
    qsort(s, (size_t)size + 1, sizeof(long), cmp_long);
    for (int q = 0; q < size; q++)
      CHECK(f[q] == q, "fetched old values: %ld at %d", f[q], q);
    for (int q = 0; q <= size; q++)
      CHECK(s[q] == q - 1, "swap chain: %ld at %d", s[q], q);
    ck_i64(h, base[SUM]);
    ck_i64(h, base[MAX]);
    ck_i64(h, base[BXOR]);
    ck_i64(h, base[FETCHED]);
    free(f);
    free(s);
    free(all);
  }
  MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
  MPI_Win_free(&win);
}

/* Derived target datatypes (built from MPI_INT) and MINLOC/MAXLOC on MPI_2INT. */
static void test_derived(ck_t* h, int rank, int size) {
  enum { N = 3, STRIDE = 2, W = 32 };
  MPI_Datatype vec, cvec;
  MPI_Type_vector(N, 1, STRIDE, MPI_INT, &vec);
  MPI_Type_commit(&vec);
  MPI_Type_contiguous(2, vec, &cvec); /* 2 vectors back to back (extent 5 ints each) */
  MPI_Type_commit(&cvec);
  MPI_Aint lb, ext;
  MPI_Type_get_extent(vec, &lb, &ext);
  MPI_Win win, pwin;
  int* base = make_window(W, sizeof(int), rank, &win);
  int* pairs = make_window(4, sizeof(int), rank, &pwin);
  MPI_Win_fence(0, win);
  MPI_Win_fence(0, pwin);
  for (int k = 0; k < W; k++)
    base[k] = k;
  pairs[0] = 100; /* MINLOC start: larger than every value */
  pairs[1] = 1000;
  pairs[2] = -100; /* MAXLOC start: smaller than every value */
  pairs[3] = 1000;
  MPI_Win_fence(0, win);
  MPI_Win_fence(0, pwin);
  /* every rank adds (rank+1)*(i+1) into rank 0's strided elements 0, 2, 4 */
  int add[N], add2[2 * N];
  for (int i = 0; i < N; i++)
    add[i] = (rank + 1) * (i + 1);
  for (int i = 0; i < 2 * N; i++)
    add2[i] = rank + i;
  MPI_Accumulate(add, N, MPI_INT, 0, 0, 1, vec, MPI_SUM, win);
  /* every rank also adds into rank 0's two vectors at 10: elements 10,12,14 and 15,17,19 */
  MPI_Accumulate(add2, 2 * N, MPI_INT, 0, 10, 1, cvec, MPI_SUM, win);
  /* MINLOC / MAXLOC pairs: equal values resolve to the lower index */
  int mn[2] = {(rank * 5 + 1) % 7, rank}, mx[2] = {(rank * 3) % 5, rank};
  MPI_Accumulate(mn, 1, MPI_2INT, 0, 0, 1, MPI_2INT, MPI_MINLOC, pwin);
  MPI_Accumulate(mx, 1, MPI_2INT, 0, 2, 1, MPI_2INT, MPI_MAXLOC, pwin);
  MPI_Win_fence(0, win);
  MPI_Win_fence(0, pwin);
  /* the neighbours fetch rank 0's strided values back through a derived result type */
  int got[2 * N * STRIDE];
  for (int i = 0; i < 2 * N * STRIDE; i++)
    got[i] = -7;
  int zero[2 * N] = {0};
  MPI_Get_accumulate(zero, 2 * N, MPI_INT, got, 2, vec, 0, 10, 1, cvec, MPI_SUM, win);
  MPI_Win_fence(0, win);
  int tri = size * (size + 1) / 2;
  for (int i = 0; i < N; i++) {
    int sum_i = 0;
    for (int q = 0; q < size; q++)
      sum_i += q + i;
    int sum_j = 0;
    for (int q = 0; q < size; q++)
      sum_j += q + N + i;
    int second = (int)(ext / (MPI_Aint)sizeof(int)); /* where the result's second vector starts */
    CHECK(got[STRIDE * i] == 10 + 2 * i + sum_i, "derived fetch %d: %d", i, got[STRIDE * i]);
    CHECK(got[second + STRIDE * i] == 15 + 2 * i + sum_j, "derived fetch b %d", i);
    if (rank == 0) {
      CHECK(base[STRIDE * i] == STRIDE * i + tri * (i + 1), "vector accumulate %d: %d", i, base[STRIDE * i]);
      CHECK(base[STRIDE * i + 1] == STRIDE * i + 1, "vector gap %d touched", i);
    }
  }
  ck_ints(h, got, 2 * N * STRIDE);
  if (rank == 0) {
    int want_mn = 1 << 30, want_mn_i = -1, want_mx = -1, want_mx_i = -1;
    for (int q = 0; q < size; q++) {
      int a = (q * 5 + 1) % 7, b = (q * 3) % 5;
      if (a < want_mn) want_mn = a, want_mn_i = q;
      if (b > want_mx) want_mx = b, want_mx_i = q;
    }
    CHECK(pairs[0] == want_mn && pairs[1] == want_mn_i, "minloc (%d, %d)", pairs[0], pairs[1]);
    CHECK(pairs[2] == want_mx && pairs[3] == want_mx_i, "maxloc (%d, %d)", pairs[2], pairs[3]);
    ck_ints(h, base, W);
    ck_ints(h, pairs, 4);
  }
  MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
  MPI_Win_fence(MPI_MODE_NOSUCCEED, pwin);
  MPI_Win_free(&win);
  MPI_Win_free(&pwin);
  MPI_Type_free(&vec);
  MPI_Type_free(&cvec);
}

/* MPI_Compare_and_swap on several types, matching and not matching. */
static void test_cas_types(ck_t* h, int rank, int size) {
  int next = (rank + 1) % size;
  MPI_Win win;
  unsigned char* base = make_window(64, 1, rank, &win);
  MPI_Win_fence(0, win);
  int* i32 = (int*)base;
  long* i64 = (long*)(base + 8);
  uint64_t* u64 = (uint64_t*)(base + 16);
  unsigned char* b8 = base + 24;
  *i32 = rank;
  *i64 = -rank;
  *u64 = 0xfedcba9876543210ULL + (uint64_t)rank;
  b8[0] = (unsigned char)(rank & 0xff);
  MPI_Win_fence(0, win);
  int ni = 100 + rank, ci = next, ri = -1; /* matches */
  long nl = 200, cl = 12345, rl = -1;       /* does not match */
  uint64_t nu = 7, cu = 0xfedcba9876543210ULL + (uint64_t)next, ru = 0;
  unsigned char nb = 0x5a, cb = (unsigned char)((next & 0xff) ^ 1), rb = 0;
  MPI_Compare_and_swap(&ni, &ci, &ri, MPI_INT, next, 0, win);
  MPI_Compare_and_swap(&nl, &cl, &rl, MPI_LONG, next, 8, win); /* displacements in bytes */
  MPI_Compare_and_swap(&nu, &cu, &ru, MPI_UINT64_T, next, 16, win);
  MPI_Win_fence(0, win);
  MPI_Compare_and_swap(&nb, &cb, &rb, MPI_BYTE, next, 24, win);
  MPI_Win_fence(0, win);
  CHECK(ri == next && rl == -next && ru == cu && rb == (unsigned char)(next & 0xff), "CAS fetched values");
  int prev = (rank - 1 + size) % size;
  CHECK(*i32 == 100 + prev, "CAS int swapped: %d", *i32);
  CHECK(*i64 == -rank, "CAS long must not swap: %ld", *i64);
  CHECK(*u64 == 7, "CAS uint64 swapped");
  CHECK(b8[0] == (unsigned char)(rank & 0xff), "CAS byte must not swap");
  ck_int(h, *i32);
  ck_i64(h, *i64);
  ck_u64(h, *u64);
  ck_int(h, b8[0]);
  MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
  MPI_Win_free(&win);
}

/* Request-based operations inside MPI_Win_lock_all. */
static void test_requests(ck_t* h, int rank, int size) {
  enum { A = 0, B = 4, C = 8, D = 12, W = 16 }; /* B and D: the same read-only values */
  int next = (rank + 1) % size, prev = (rank - 1 + size) % size;
  MPI_Win win;
  int* base = make_window(W, sizeof(int), rank, &win);
  MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win);
  for (int k = 0; k < 4; k++)
    base[B + k] = base[D + k] = rank * 10 + k;
  MPI_Win_unlock(rank, win);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_lock_all(0, win);
  int out[4], in[4], one = rank + 1, fetched[4], dummy[4] = {0};
  for (int k = 0; k < 4; k++)
    out[k] = rank * 1000 + k;
  MPI_Request reqs[4];
  MPI_Rput(out, 4, MPI_INT, next, A, 4, MPI_INT, win, &reqs[0]);
  MPI_Rget(in, 4, MPI_INT, prev, B, 4, MPI_INT, win, &reqs[1]);
  MPI_Raccumulate(&one, 1, MPI_INT, 0, C, 1, MPI_INT, MPI_SUM, win, &reqs[2]);
  MPI_Rget_accumulate(dummy, 4, MPI_INT, fetched, 4, MPI_INT, next, D, 4, MPI_INT, MPI_NO_OP, win, &reqs[3]);
  MPI_Waitall(4, reqs, MPI_STATUSES_IGNORE);
  for (int k = 0; k < 4; k++) {
    CHECK(in[k] == prev * 10 + k, "Rget %d: %d", k, in[k]);
    CHECK(fetched[k] == next * 10 + k, "Rget_accumulate %d: %d", k, fetched[k]);
  }
  /* a Test loop and a plain Wait */
  int flag = 0, again = -1;
  MPI_Request r;
  MPI_Rget(&again, 1, MPI_INT, next, B + 3, 1, MPI_INT, win, &r);
  while (!flag)
    MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
  CHECK(r == MPI_REQUEST_NULL && again == next * 10 + 3, "Rget by Test: %d", again);
  MPI_Raccumulate(&one, 1, MPI_INT, 0, C + 1, 1, MPI_INT, MPI_SUM, win, &r);
  MPI_Win_flush_all(win); /* completes it; the request must still be waited for */
  MPI_Wait(&r, MPI_STATUS_IGNORE);
  MPI_Win_unlock_all(win);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win);
  for (int k = 0; k < 4; k++)
    CHECK(base[A + k] == prev * 1000 + k, "Rput %d: %d", k, base[A + k]);
  if (rank == 0) {
    CHECK(base[C] == size * (size + 1) / 2 && base[C + 1] == base[C], "Raccumulate %d %d", base[C], base[C + 1]);
    ck_int(h, base[C]);
  }
  ck_ints(h, base + A, 4);
  ck_ints(h, in, 4);
  ck_ints(h, fetched, 4);
  MPI_Win_unlock(rank, win);
  MPI_Win_free(&win);
}

int main(int argc, char** argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  ck_t h = CK_INIT;
  test_counter(&h, rank, size);
  test_cas_lock(&h, rank, size);
  test_every_op_int(&h, rank, size);
  test_every_op_types(&h, rank, size);
  test_same_location(&h, rank, size);
  test_derived(&h, rank, size);
  test_cas_types(&h, rank, size);
  test_requests(&h, rank, size);
  ck_finish(&h, "rma_atomics");
  MPI_Finalize();
  return 0;
}
