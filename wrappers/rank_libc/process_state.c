/* strtok, rand/srand/random/srandom and atexit/on_exit, one copy per rank.
 *
 * libc keeps this state once per process; ranks are fibers of one process. Linked into each
 * recompiled program (see getopt.c for how each rank gets its own copy), these definitions make
 * the state per rank, as it is per process under a real MPI.
 *
 * rand() reproduces glibc's generator exactly, so a program draws the same numbers as when
 * it runs under MPICH: glibc's default (TYPE_3) additive feedback generator, as documented in
 * glibc's random(3) and analysed by P. Selinger ("The GLIBC pseudo-random number generator",
 * 2007): r[0] = seed, r[i] = 16807 r[i-1] mod (2^31 - 1) for i < 31, r[i] = r[i-31] for
 * i < 34, then r[i] = r[i-3] + r[i-31] mod 2^32; output k is r[k+344] >> 1. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ strtok */

char* strtok(char* s, const char* delim) {
  static char* rest;
  if (s == NULL) s = rest;
  if (s == NULL) return NULL;
  s += strspn(s, delim);
  if (*s == '\0') {
    rest = NULL;
    return NULL;
  }
  char* end = s + strcspn(s, delim);
  if (*end == '\0') {
    rest = NULL;
  } else {
    *end = '\0';
    rest = end + 1;
  }
  return s;
}

/* ------------------------------------------------------------------ rand */

enum { kDeg = 31, kSep = 3 };

static struct {
  int seeded;
  uint32_t r[kDeg];
  int front, rear; /* r[front] += r[rear], both moving round the ring */
} gen;

void srandom(unsigned int seed) {
  if (seed == 0) seed = 1;
  int32_t word = (int32_t)seed;
  gen.r[0] = (uint32_t)word;
  for (int i = 1; i < kDeg; ++i) {
    /* 16807 * word mod (2^31 - 1) without overflow (Schrage's method). */
    const int32_t hi = word / 127773, lo = word % 127773;
    word = 16807 * lo - 2836 * hi;
    if (word < 0) word += 2147483647;
    gen.r[i] = (uint32_t)word;
  }
  gen.front = kSep;
  gen.rear = 0;
  gen.seeded = 1;
  for (int i = 0; i < 10 * kDeg; ++i)
    (void)random();
}

long random(void) {
  if (!gen.seeded) srandom(1);
  gen.r[gen.front] += gen.r[gen.rear];
  const long out = (long)(gen.r[gen.front] >> 1);
  gen.front = (gen.front + 1) % kDeg;
  gen.rear = (gen.rear + 1) % kDeg;
  return out;
}

void srand(unsigned int seed) {
  srandom(seed);
}

int rand(void) {
  return (int)random();
}

/* ------------------------------------------------------------------ atexit, on_exit */

/* Handlers run when the rank's main returns or the rank calls exit(), in the reverse order of
 * their registration (mgen_rank_exit_handlers, called by `mgen run` on the rank). */
struct handler {
  void (*plain)(void);
  void (*with_status)(int, void*);
  void* arg;
};

static struct {
  struct handler* v;
  size_t n, cap;
} handlers;

static int add_handler(struct handler h) {
  if (handlers.n == handlers.cap) {
    const size_t cap = handlers.cap ? 2 * handlers.cap : 32;
    struct handler* v = (struct handler*)realloc(handlers.v, cap * sizeof *v);
    if (v == NULL) return -1;
    handlers.v = v;
    handlers.cap = cap;
  }
  handlers.v[handlers.n++] = h;
  return 0;
}

int atexit(void (*fn)(void)) {
  const struct handler h = {fn, NULL, NULL};
  return add_handler(h);
}

int on_exit(void (*fn)(int, void*), void* arg) {
  const struct handler h = {NULL, fn, arg};
  return add_handler(h);
}

/* Each handler is taken off the list before it runs, so one that registers more (they run
 * next) or ends the rank with exit() leaves the rest to the next call. */
void mgen_rank_exit_handlers(int status) {
  while (handlers.n > 0) {
    const struct handler h = handlers.v[--handlers.n];
    if (h.plain != NULL) {
      h.plain();
    } else {
      h.with_status(status, h.arg);
    }
  }
}
