/* mgen's additions to MPI for recompiled programs (mgen-cc defines MGEN_SIMULATED):
 *
 *   #ifdef MGEN_SIMULATED
 *   #include <mgen/mpix.h>
 *   #endif
 */
#ifndef MGEN_MPIX_H
#define MGEN_MPIX_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* `seconds` of modelled computation on the calling rank (as MGEN_Comp): for programs that model
 * their computation instead of, or besides, having it measured (mgen run --ignore-compute). */
int MPI_Comp(double seconds);

/* Reports' per-function tables (docs/report-format.md) for tools that make MPI calls on a
 * program's behalf, such as mgen's trace replay: the calls between MGEN_Call_begin(name) and
 * MGEN_Call_end() count as one call of `name`, with their bytes and their time; with a NULL
 * name they are not counted at all. Not nested: a begin inside a group, or an end outside one,
 * does nothing. */
void MGEN_Call_begin(const char* name);
void MGEN_Call_end(void);

/* ---- Scaling aids (after SimGrid SMPI's SMPI_SHARED_MALLOC and SMPI_SAMPLE_*; the caveats are
 * in docs/mpi-coverage.md, "Scaling aids"). */

/* One buffer shared by every rank that allocates it at the same place in the source with the
 * same size (MGEN_SHARED_MALLOC), or with the same key and size (MGEN_SHARED_MALLOC_KEY): the
 * memory of one rank for all of them. Its contents are undefined (all ranks write into it);
 * messages from or into it cost what they would on the network but move no bytes. Free with
 * MGEN_SHARED_FREE (once per allocation: the last free releases it). */
#define MGEN_SHARED_MALLOC(size) MGEN_Shared_malloc((size), __FILE__, __LINE__)
#define MGEN_SHARED_MALLOC_KEY(size, key) MGEN_Shared_malloc_key((size), (key))
#define MGEN_SHARED_FREE(ptr) MGEN_Shared_free(ptr)

/* Loop sampling. Put one of these in front of the body of a compute loop:
 *
 *   for (i = 0; i < n; i++) {
 *     MGEN_SAMPLE_LOCAL(10, 0.01) {
 *       ... computation only, no MPI ...
 *     }
 *   }
 *
 * The first `iters` times the block runs for real and its duration (its measured CPU time,
 * times node.cpu_scale, plus any MPI_Comp inside) is recorded; after that it is skipped and the
 * rank is charged the mean of the recorded durations. A positive `threshold` stops sampling
 * earlier, once at least 2 durations have a relative standard deviation below it. LOCAL: each
 * rank samples for itself; GLOBAL: the samples of all ranks count together (the first `iters`
 * runs of the block on any rank), for loops that cost the same everywhere.
 * MGEN_SAMPLE_DELAY(seconds) skips the block and charges `seconds`. */
#define MGEN_SAMPLE_LOCAL(iters, threshold) MGEN_SAMPLE_AT_(0, (iters), (threshold))
#define MGEN_SAMPLE_GLOBAL(iters, threshold) MGEN_SAMPLE_AT_(1, (iters), (threshold))
#define MGEN_SAMPLE_DELAY(seconds) for (int mgen_sample_run_ = (MPI_Comp(seconds), 0); mgen_sample_run_;)
#define MGEN_SAMPLE_AT_(global, iters, threshold)                                                                \
  for (int mgen_sample_run_ = MGEN_Sample_begin(__FILE__, __LINE__, global, iters, threshold); mgen_sample_run_; \
       mgen_sample_run_ = MGEN_Sample_end(__FILE__, __LINE__, global, iters, threshold))

void* MGEN_Shared_malloc(size_t size, const char* file, int line);
void* MGEN_Shared_malloc_key(size_t size, const char* key);
void MGEN_Shared_free(void* ptr);
/* 1 if `ptr` points into a shared buffer. */
int MGEN_Shared_contains(const void* ptr);
/* The sampling macros' entry points: 1 if the block is to run for real (then MGEN_Sample_end
 * records its duration and returns 0), 0 if it was charged and is to be skipped. */
int MGEN_Sample_begin(const char* file, int line, int global, int iters, double threshold);
int MGEN_Sample_end(const char* file, int line, int global, int iters, double threshold);

#ifdef __cplusplus
}
#endif

#endif /* MGEN_MPIX_H */
