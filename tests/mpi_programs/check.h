/* check.h - tiny helpers shared by the self-checking MPI test programs.
 *
 *   CHECK(cond, fmt, ...)   on failure prints "rank R: FAIL file:line: message" to stderr and
 *                           calls MPI_Abort(MPI_COMM_WORLD, 1).
 *   ck_t                    a 64-bit FNV-1a hash of computed values; every rank keeps its own
 *                           (a local variable, never a global: the helpers themselves must not
 *                           depend on per-rank global variables).
 *   ck_finish(&h, "prog")   gathers every rank's hash to rank 0, folds them in rank order
 *                           together with the rank count and prints
 *                               RESULT <prog> <16 hex digits>
 *                               OK
 *
 * Only hash values that depend on the computed data and on the rank count, never on timing,
 * message arrival order or implementation details (processor names, MPI_TAG_UB, ...).
 * Hash values through the typed helpers (not raw struct bytes: padding is undefined).
 * Plain C11 and standard MPI-3.1 only. */
#ifndef MPI_PROGRAMS_CHECK_H
#define MPI_PROGRAMS_CHECK_H

#include <inttypes.h>
#include <mpi.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void check_fail_(const char* file, int line, const char* cond, const char* fmt, ...) {
  int rank = -1, init = 0, fin = 0;
  MPI_Initialized(&init);
  MPI_Finalized(&fin);
  if (init && !fin) MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  fprintf(stderr, "rank %d: FAIL %s:%d: %s [%s]\n", rank, file, line, msg, cond);
  fflush(stderr);
  if (init && !fin) MPI_Abort(MPI_COMM_WORLD, 1);
  exit(1);
}

/* CHECK(cond, fmt, ...): the format string is the first variadic argument. */
#define CHECK(cond, ...)                                              \
  do {                                                                \
    if (!(cond)) check_fail_(__FILE__, __LINE__, #cond, __VA_ARGS__); \
  } while (0)

/* Checks that an MPI call returned MPI_SUCCESS (only meaningful with MPI_ERRORS_RETURN). */
#define CHECK_MPI(call)                                                  \
  do {                                                                   \
    int check_rc_ = (call);                                              \
    CHECK(check_rc_ == MPI_SUCCESS, "%s returned %d", #call, check_rc_); \
  } while (0)

typedef uint64_t ck_t;
#define CK_INIT ((ck_t)14695981039346656037ULL)

static inline void ck_bytes(ck_t* h, const void* p, size_t n) {
  const unsigned char* b = (const unsigned char*)p;
  for (size_t i = 0; i < n; i++) {
    *h ^= b[i];
    *h *= 1099511628211ULL;
  }
}
static inline void ck_u64(ck_t* h, uint64_t v) {
  unsigned char b[8];
  for (int i = 0; i < 8; i++)
    b[i] = (unsigned char)(v >> (8 * i)); /* endian-independent */
  ck_bytes(h, b, 8);
}
static inline void ck_i64(ck_t* h, long long v) {
  ck_u64(h, (uint64_t)v);
}
static inline void ck_int(ck_t* h, int v) {
  ck_u64(h, (uint64_t)(long long)v);
}
/* Doubles are hashed by their bit pattern (0.0 and -0.0 folded together): only hash values
 * that are computed exactly, independent of reduction order. */
static inline void ck_double(ck_t* h, double v) {
  uint64_t u;
  if (v == 0.0) v = 0.0;
  memcpy(&u, &v, sizeof u);
  ck_u64(h, u);
}
static inline void ck_ints(ck_t* h, const int* v, int n) {
  for (int i = 0; i < n; i++)
    ck_int(h, v[i]);
}
static inline void ck_doubles(ck_t* h, const double* v, int n) {
  for (int i = 0; i < n; i++)
    ck_double(h, v[i]);
}
static inline void ck_str(ck_t* h, const char* s) {
  ck_bytes(h, s, strlen(s) + 1);
}

/* Collective over MPI_COMM_WORLD: prints "RESULT <prog> <hash>" and "OK" from rank 0. */
static void ck_finish(const ck_t* h, const char* prog) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  uint64_t mine = *h;
  uint64_t* all = NULL;
  if (rank == 0) {
    all = (uint64_t*)malloc(sizeof(uint64_t) * (size_t)size);
    CHECK(all != NULL, "out of memory");
  }
  MPI_Gather(&mine, 1, MPI_UINT64_T, all, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    ck_t total = CK_INIT;
    ck_str(&total, prog);
    ck_int(&total, size);
    for (int r = 0; r < size; r++)
      ck_u64(&total, all[r]);
    free(all);
    printf("RESULT %s %016" PRIx64 "\n", prog, total);
    printf("OK\n");
    fflush(stdout);
  }
}

#endif /* MPI_PROGRAMS_CHECK_H */
