/* mgen's additions to MPI for recompiled programs (mgen-cc defines MGEN_SIMULATED):
 *
 *   #ifdef MGEN_SIMULATED
 *   #include <mgen/mpix.h>
 *   #endif
 */
#ifndef MGEN_MPIX_H
#define MGEN_MPIX_H

#ifdef __cplusplus
extern "C" {
#endif

/* `seconds` of modelled computation on the calling rank (as MGEN_Comp): for programs that model
 * their computation instead of, or besides, having it measured (mgen run --ignore-compute). */
int MPI_Comp(double seconds);

#ifdef __cplusplus
}
#endif

#endif /* MGEN_MPIX_H */
