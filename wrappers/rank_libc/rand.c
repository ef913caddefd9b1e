/* rand/srand and random/srandom, one generator per rank (see getopt.c for how each rank gets
 * its own copy).
 *
 * They reproduce glibc's generator exactly, so a program draws the same numbers as when it runs
 * under MPICH: glibc's default (TYPE_3) additive feedback generator, as documented in glibc's
 * random(3) and analysed by P. Selinger ("The GLIBC pseudo-random number generator", 2007):
 * r[0] = seed, r[i] = 16807 r[i-1] mod (2^31 - 1) for i < 31, r[i] = r[i-31] for i < 34, then
 * r[i] = r[i-3] + r[i-31] mod 2^32; output k is r[k+344] >> 1. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>

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
