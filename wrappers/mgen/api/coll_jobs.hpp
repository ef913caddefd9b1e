// Collectives as jobs: checked, their arguments built and their algorithm chosen (by the
// selection in force when prepared), ready to run on a channel. MGEN_X runs its job at once on
// the calling rank; the MPI bindings' non-blocking forms hand the same job to a helper context
// (World::start_helper), so MPI_Ix + MPI_Wait runs exactly what MPI_X runs. Buffers stay the
// caller's; a job owns whatever copies it made (alltoall's in-place snapshot).
#pragma once

#include <functional>

#include "api/facade.hpp"
#include "colls/colls.hpp"

namespace mgen::mpi::api {

using CollJob = std::function<void(colls::Channel&)>;

CollJob barrier_job(Scope& s, Comm& c);
CollJob bcast_job(Scope& s, Comm& c, void* buf, int count, MGEN_Datatype type, int root);
CollJob reduce_job(Scope& s, Comm& c, const void* sendbuf, void* recvbuf, int count, MGEN_Datatype type, MGEN_Op op,
                   int root);
CollJob allreduce_job(Scope& s, Comm& c, const void* sendbuf, void* recvbuf, int count, MGEN_Datatype type, MGEN_Op op);
CollJob scan_job(Scope& s, Comm& c, const void* sendbuf, void* recvbuf, int count, MGEN_Datatype type, MGEN_Op op);
CollJob exscan_job(Scope& s, Comm& c, const void* sendbuf, void* recvbuf, int count, MGEN_Datatype type, MGEN_Op op);
CollJob reduce_scatter_block_job(Scope& s, Comm& c, const void* sendbuf, void* recvbuf, int recvcount,
                                 MGEN_Datatype type, MGEN_Op op);
CollJob reduce_scatter_job(Scope& s, Comm& c, const void* sendbuf, void* recvbuf, const int recvcounts[],
                           MGEN_Datatype type, MGEN_Op op);
CollJob gather_job(Scope& s, Comm& c, const void* sendbuf, int sendcount, MGEN_Datatype sendtype, void* recvbuf,
                   int recvcount, MGEN_Datatype recvtype, int root);
CollJob scatter_job(Scope& s, Comm& c, const void* sendbuf, int sendcount, MGEN_Datatype sendtype, void* recvbuf,
                    int recvcount, MGEN_Datatype recvtype, int root);
CollJob allgather_job(Scope& s, Comm& c, const void* sendbuf, int sendcount, MGEN_Datatype sendtype, void* recvbuf,
                      int recvcount, MGEN_Datatype recvtype);
CollJob alltoall_job(Scope& s, Comm& c, const void* sendbuf, int sendcount, MGEN_Datatype sendtype, void* recvbuf,
                     int recvcount, MGEN_Datatype recvtype);
CollJob gatherv_job(Scope& s, Comm& c, const void* sendbuf, int sendcount, MGEN_Datatype sendtype, void* recvbuf,
                    const int recvcounts[], const int displs[], MGEN_Datatype recvtype, int root);
CollJob scatterv_job(Scope& s, Comm& c, const void* sendbuf, const int sendcounts[], const int displs[],
                     MGEN_Datatype sendtype, void* recvbuf, int recvcount, MGEN_Datatype recvtype, int root);
CollJob allgatherv_job(Scope& s, Comm& c, const void* sendbuf, int sendcount, MGEN_Datatype sendtype, void* recvbuf,
                       const int recvcounts[], const int displs[], MGEN_Datatype recvtype);
CollJob alltoallv_job(Scope& s, Comm& c, const void* sendbuf, const int sendcounts[], const int sdispls[],
                      MGEN_Datatype sendtype, void* recvbuf, const int recvcounts[], const int rdispls[],
                      MGEN_Datatype recvtype);

// Opens the Scope of MGEN call `name`, builds its job on communicator `comm` and runs it on the
// calling rank.
template <class Build>
int run_collective(const char* name, int peer, MGEN_Comm comm, Build&& build) {
  Scope s(name, peer, kAnyTag, comm);
  if (!s) return outside(name);
  Comm& c = s.comm(comm);
  const CollJob job = build(s, c);
  colls::Channel ch(s.world(), s.rank(), c);
  job(ch);
  return MGEN_SUCCESS;
}

}  // namespace mgen::mpi::api
