// Persistent collectives (MPI-4.0 §6.13): MPI_X_init keeps the arguments in an inactive
// persistent request; each MPI_Start issues the non-blocking collective MPI_IX with them
// (nbc.cpp, nbc_neighbor.cpp), so a started persistent collective runs and is timed exactly as
// MPI_IX would be. Completion (MPI_Wait, MPI_Test, ...) leaves the request inactive and
// restartable; MPI_Request_free releases it. The info argument carries only hints: ignored.
#include "mpi/shim.hpp"

using namespace mgen::mpi;
using namespace mgen::mpi::abi;
using XRequest = mgen::mpi::abi::Request;

namespace {

// An inactive persistent request whose MPI_Start runs `start_coll`.
int persistent(const char* name, MPI_Comm c, MPI_Request* req, std::function<int(MPI_Request*)> start_coll) {
  return call(name, c, [&] {
    if (req == nullptr) fail(MPI_ERR_ARG, "the request is null");
    comm(c);
    XRequest* q = nullptr;
    *req = new_request(&q);
    q->kind = XRequest::Kind::kDone;
    q->persistent = true;
    q->active = false;
    q->comm = c;
    q->start_coll = std::move(start_coll);
    // Its messages' context: numbered now, so starts in any order match (MPI-4.0 §6.13).
    q->coll_seq = state().nbc_seq[c]++;
    return MPI_SUCCESS;
  });
}

}  // namespace

namespace mgen::mpi::abi {

void start_persistent_collective(MPI_Request r) {
  // A copy: starting adds a request, which may move the request table.
  const std::function<int(MPI_Request*)> start_coll = request(r).start_coll;
  MPI_Request fresh = MPI_REQUEST_NULL;
  state().persistent_seq = request(r).coll_seq;
  const int rc = start_coll(&fresh);
  state().persistent_seq = -1;
  if (rc != MPI_SUCCESS) fail(rc, state().error_text.empty() ? "starting the collective failed" : state().error_text);
  XRequest& f = request(fresh);
  XRequest& q = request(r);
  q.kind = f.kind;
  q.inner = f.inner;
  q.done_status = f.done_status;
  q.active = true;
  f.inner = MGEN_REQUEST_NULL;
  free_request(&fresh);
}

}  // namespace mgen::mpi::abi

extern "C" {

int PMPI_Barrier_init(MPI_Comm c, MPI_Info, MPI_Request* req) {
  return persistent("MPI_Barrier_init", c, req, [=](MPI_Request* r) { return PMPI_Ibarrier(c, r); });
}
MGEN_MPI_ALIAS(Barrier_init)

int PMPI_Bcast_init(void* buf, int count, MPI_Datatype t, int root, MPI_Comm c, MPI_Info, MPI_Request* req) {
  return persistent("MPI_Bcast_init", c, req, [=](MPI_Request* r) { return PMPI_Ibcast(buf, count, t, root, c, r); });
}
MGEN_MPI_ALIAS(Bcast_init)

int PMPI_Reduce_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype t, MPI_Op op, int root, MPI_Comm c,
                     MPI_Info, MPI_Request* req) {
  return persistent("MPI_Reduce_init", c, req,
                    [=](MPI_Request* r) { return PMPI_Ireduce(sendbuf, recvbuf, count, t, op, root, c, r); });
}
MGEN_MPI_ALIAS(Reduce_init)

int PMPI_Allreduce_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype t, MPI_Op op, MPI_Comm c, MPI_Info,
                        MPI_Request* req) {
  return persistent("MPI_Allreduce_init", c, req,
                    [=](MPI_Request* r) { return PMPI_Iallreduce(sendbuf, recvbuf, count, t, op, c, r); });
}
MGEN_MPI_ALIAS(Allreduce_init)

int PMPI_Scan_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype t, MPI_Op op, MPI_Comm c, MPI_Info,
                   MPI_Request* req) {
  return persistent("MPI_Scan_init", c, req,
                    [=](MPI_Request* r) { return PMPI_Iscan(sendbuf, recvbuf, count, t, op, c, r); });
}
MGEN_MPI_ALIAS(Scan_init)

int PMPI_Exscan_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype t, MPI_Op op, MPI_Comm c, MPI_Info,
                     MPI_Request* req) {
  return persistent("MPI_Exscan_init", c, req,
                    [=](MPI_Request* r) { return PMPI_Iexscan(sendbuf, recvbuf, count, t, op, c, r); });
}
MGEN_MPI_ALIAS(Exscan_init)

int PMPI_Reduce_scatter_init(const void* sendbuf, void* recvbuf, const int recvcounts[], MPI_Datatype t, MPI_Op op,
                             MPI_Comm c, MPI_Info, MPI_Request* req) {
  return persistent("MPI_Reduce_scatter_init", c, req,
                    [=](MPI_Request* r) { return PMPI_Ireduce_scatter(sendbuf, recvbuf, recvcounts, t, op, c, r); });
}
MGEN_MPI_ALIAS(Reduce_scatter_init)

int PMPI_Reduce_scatter_block_init(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype t, MPI_Op op,
                                   MPI_Comm c, MPI_Info, MPI_Request* req) {
  return persistent("MPI_Reduce_scatter_block_init", c, req, [=](MPI_Request* r) {
    return PMPI_Ireduce_scatter_block(sendbuf, recvbuf, recvcount, t, op, c, r);
  });
}
MGEN_MPI_ALIAS(Reduce_scatter_block_init)

int PMPI_Gather_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                     MPI_Datatype recvtype, int root, MPI_Comm c, MPI_Info, MPI_Request* req) {
  return persistent("MPI_Gather_init", c, req, [=](MPI_Request* r) {
    return PMPI_Igather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, c, r);
  });
}
MGEN_MPI_ALIAS(Gather_init)

int PMPI_Gatherv_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                      const int displs[], MPI_Datatype recvtype, int root, MPI_Comm c, MPI_Info, MPI_Request* req) {
  return persistent("MPI_Gatherv_init", c, req, [=](MPI_Request* r) {
    return PMPI_Igatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, c, r);
  });
}
MGEN_MPI_ALIAS(Gatherv_init)

int PMPI_Scatter_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                      MPI_Datatype recvtype, int root, MPI_Comm c, MPI_Info, MPI_Request* req) {
  return persistent("MPI_Scatter_init", c, req, [=](MPI_Request* r) {
    return PMPI_Iscatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, c, r);
  });
}
MGEN_MPI_ALIAS(Scatter_init)

int PMPI_Scatterv_init(const void* sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                       void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm c, MPI_Info,
                       MPI_Request* req) {
  return persistent("MPI_Scatterv_init", c, req, [=](MPI_Request* r) {
    return PMPI_Iscatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, c, r);
  });
}
MGEN_MPI_ALIAS(Scatterv_init)

int PMPI_Allgather_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                        MPI_Datatype recvtype, MPI_Comm c, MPI_Info, MPI_Request* req) {
  return persistent("MPI_Allgather_init", c, req, [=](MPI_Request* r) {
    return PMPI_Iallgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, c, r);
  });
}
MGEN_MPI_ALIAS(Allgather_init)

int PMPI_Allgatherv_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                         const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm c, MPI_Info,
                         MPI_Request* req) {
  return persistent("MPI_Allgatherv_init", c, req, [=](MPI_Request* r) {
    return PMPI_Iallgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, c, r);
  });
}
MGEN_MPI_ALIAS(Allgatherv_init)

int PMPI_Alltoall_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                       MPI_Datatype recvtype, MPI_Comm c, MPI_Info, MPI_Request* req) {
  return persistent("MPI_Alltoall_init", c, req, [=](MPI_Request* r) {
    return PMPI_Ialltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, c, r);
  });
}
MGEN_MPI_ALIAS(Alltoall_init)

int PMPI_Alltoallv_init(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                        void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm c,
                        MPI_Info, MPI_Request* req) {
  return persistent("MPI_Alltoallv_init", c, req, [=](MPI_Request* r) {
    return PMPI_Ialltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, c, r);
  });
}
MGEN_MPI_ALIAS(Alltoallv_init)

int PMPI_Alltoallw_init(const void* sendbuf, const int sendcounts[], const int sdispls[],
                        const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[], const int rdispls[],
                        const MPI_Datatype recvtypes[], MPI_Comm c, MPI_Info, MPI_Request* req) {
  return persistent("MPI_Alltoallw_init", c, req, [=](MPI_Request* r) {
    return PMPI_Ialltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, c, r);
  });
}
MGEN_MPI_ALIAS(Alltoallw_init)

int PMPI_Neighbor_allgather_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                 int recvcount, MPI_Datatype recvtype, MPI_Comm c, MPI_Info, MPI_Request* req) {
  return persistent("MPI_Neighbor_allgather_init", c, req, [=](MPI_Request* r) {
    return PMPI_Ineighbor_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, c, r);
  });
}
MGEN_MPI_ALIAS(Neighbor_allgather_init)

int PMPI_Neighbor_allgatherv_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                  const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm c,
                                  MPI_Info, MPI_Request* req) {
  return persistent("MPI_Neighbor_allgatherv_init", c, req, [=](MPI_Request* r) {
    return PMPI_Ineighbor_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, c, r);
  });
}
MGEN_MPI_ALIAS(Neighbor_allgatherv_init)

int PMPI_Neighbor_alltoall_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                                MPI_Datatype recvtype, MPI_Comm c, MPI_Info, MPI_Request* req) {
  return persistent("MPI_Neighbor_alltoall_init", c, req, [=](MPI_Request* r) {
    return PMPI_Ineighbor_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, c, r);
  });
}
MGEN_MPI_ALIAS(Neighbor_alltoall_init)

int PMPI_Neighbor_alltoallv_init(const void* sendbuf, const int sendcounts[], const int sdispls[],
                                 MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int rdispls[],
                                 MPI_Datatype recvtype, MPI_Comm c, MPI_Info, MPI_Request* req) {
  return persistent("MPI_Neighbor_alltoallv_init", c, req, [=](MPI_Request* r) {
    return PMPI_Ineighbor_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, c,
                                    r);
  });
}
MGEN_MPI_ALIAS(Neighbor_alltoallv_init)

int PMPI_Neighbor_alltoallw_init(const void* sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                                 const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                                 const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm c, MPI_Info,
                                 MPI_Request* req) {
  return persistent("MPI_Neighbor_alltoallw_init", c, req, [=](MPI_Request* r) {
    return PMPI_Ineighbor_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, c,
                                    r);
  });
}
MGEN_MPI_ALIAS(Neighbor_alltoallw_init)

}  // extern "C"
