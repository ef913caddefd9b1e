// Intercommunicators in the MPI layer (MPI-4.0 §6.6 and the intercommunicator forms of the
// collectives, §6.2.2). Every intercommunicator gets two hidden companions, made on first use
// without communication: an intracommunicator over its local group and a copy of it on its own
// collective context. The collectives are written over them with the MPI layer's own calls, so
// datatypes, reductions and the local algorithms are those of the intracommunicator paths.
#pragma once

#include "mpi/shim.hpp"

namespace mgen::mpi::abi {

bool is_inter(MPI_Comm c);
// The hidden companions of intercommunicator `c`: an intracommunicator over the local group, and
// the intercommunicator itself on its collective context (made on first use).
void inter_companions(MPI_Comm c, MPI_Comm* local, MPI_Comm* coll);
// Frees the hidden companions of an intercommunicator being freed.
void forget_inter(MPI_Comm c);

// MPI_Comm_split and MPI_Comm_create on an intercommunicator: the result is an
// intercommunicator between the local and remote processes that chose the same color (are in
// the groups), or MPI_COMM_NULL when either side of it would be empty.
void inter_split(MPI_Comm c, int color, int key, MPI_Comm* out);
void inter_create(MPI_Comm c, MPI_Group g, MPI_Comm* out);
// MPI_Comm_create_group: collective over the members of `g` only.
void create_group(MPI_Comm c, MPI_Group g, int tag, MPI_Comm* out);
// MPI_Comm_compare when either communicator is an intercommunicator.
int inter_compare(MPI_Comm a, MPI_Comm b);

// MPI_Intercomm_create_from_groups (MPI-4.0): both groups are given, so no exchange is needed.
void intercomm_from_groups(MPI_Group local_group, int local_leader, MPI_Group remote_group, int remote_leader,
                           const char* stringtag, MPI_Comm* out);

// MPI_Comm_idup's duplicate, made at once without communication (the context agreement's cost
// is left to the caller).
MPI_Comm dup_now(MPI_Comm c);

// A request that is already complete (the non-blocking forms that finish before returning).
void completed_request(MPI_Request* req);

// The collectives on an intercommunicator (root: MPI_ROOT at the root, MPI_PROC_NULL at the
// rest of its group, the root's rank in the remote group on the other side).
void inter_barrier(MPI_Comm c);
void inter_bcast(void* buf, int count, MPI_Datatype t, int root, MPI_Comm c);
void inter_gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                   const int displs[], MPI_Datatype recvtype, int root, MPI_Comm c);
void inter_gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                  MPI_Datatype recvtype, int root, MPI_Comm c);
void inter_scatterv(const void* sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                    void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm c);
void inter_scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                   MPI_Datatype recvtype, int root, MPI_Comm c);
void inter_reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype t, MPI_Op op, int root, MPI_Comm c);
void inter_allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype t, MPI_Op op, MPI_Comm c);
void inter_reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[], MPI_Datatype t, MPI_Op op,
                          MPI_Comm c);
void inter_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                      const int displs[], MPI_Datatype recvtype, MPI_Comm c);
void inter_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                     MPI_Datatype recvtype, MPI_Comm c);
void inter_alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                     void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm c);
void inter_alltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[],
                     void* recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[],
                     MPI_Comm c);
void inter_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                    MPI_Datatype recvtype, MPI_Comm c);

}  // namespace mgen::mpi::abi
