// The data symbols MPICH's mpi.h declares (MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY: topo.cpp;
// MPIR_Dup_fn: attr.cpp). A program that names one of them, even only in a branch it never
// takes, cannot be loaded unless the library defines it. The values are sentinels: MPI compares
// the addresses, never reads them.
#include <mpi.h>

extern "C" {

MPI_F08_status MPIR_F08_MPI_STATUS_IGNORE_OBJ{};
MPI_F08_status MPIR_F08_MPI_STATUSES_IGNORE_OBJ[1]{};
int MPIR_F08_MPI_IN_PLACE = 0;
int MPIR_F08_MPI_BOTTOM = 0;
MPI_F08_status* MPI_F08_STATUS_IGNORE = &MPIR_F08_MPI_STATUS_IGNORE_OBJ;
MPI_F08_status* MPI_F08_STATUSES_IGNORE = MPIR_F08_MPI_STATUSES_IGNORE_OBJ;

namespace {
MPI_Fint f_status_ignore[MPI_F_STATUS_SIZE]{}, f_statuses_ignore[MPI_F_STATUS_SIZE]{};
char pvar_all_handles = 0;
}  // namespace

MPI_Fint* MPI_F_STATUS_IGNORE = f_status_ignore;
MPI_Fint* MPI_F_STATUSES_IGNORE = f_statuses_ignore;
MPIR_T_pvar_handle_s* const MPI_T_PVAR_ALL_HANDLES = reinterpret_cast<MPIR_T_pvar_handle_s*>(&pvar_all_handles);

}  // extern "C"
