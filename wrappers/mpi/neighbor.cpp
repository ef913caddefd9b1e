// Neighbourhood collectives (MPI-4 §8.6) over point-to-point on the topology's shadow
// communicator: block i of the receive buffer comes from in-neighbour i, block j of the send
// buffer (the whole buffer for the allgathers) goes to out-neighbour j. MPI_PROC_NULL
// neighbours keep their block, untouched. On a Cartesian grid, a message sent towards slot k
// (2d: the negative direction of dimension d, 2d + 1: the positive) lands in the peer's slot
// k ^ 1; the tag says which, so a periodic dimension of size 1 or 2, whose two neighbours are
// the same rank, still fills the right blocks.
#include <fmt/format.h>

#include <vector>

#include "mpi/shim.hpp"
#include "mpi/topo.hpp"

using namespace mgen::mpi;
using namespace mgen::mpi::abi;

namespace {

MPI_Aint extent_of(MPI_Datatype t) {
  MPI_Aint lb = 0, extent = 0;
  PMPI_Type_get_extent(t, &lb, &extent);
  return extent;
}

const char* at(const void* buf, MPI_Aint bytes) {
  return static_cast<const char*>(buf) + bytes;
}
char* at(void* buf, MPI_Aint bytes) {
  return static_cast<char*>(buf) + bytes;
}

// One exchange: what goes to out-neighbour j and comes from in-neighbour i.
struct SendBlock {
  const void* buf;
  int count;
  MPI_Datatype type;
};
struct RecvSlot {
  void* buf;
  int count;
  MPI_Datatype type;
};

int exchange(MPI_Comm c, const std::vector<SendBlock>& send, const std::vector<RecvSlot>& recv) {
  const Neighbors n = neighbors(c);
  if (send.size() != n.out.size() || recv.size() != n.in.size()) {
    fail(MPI_ERR_INTERN, "neighbour lists and buffers differ in length");
  }
  const MPI_Comm sh = shadow(c);
  std::vector<MPI_Request> reqs;
  reqs.reserve(send.size() + recv.size());
  for (size_t i = 0; i < recv.size(); ++i) {
    MPI_Request r = MPI_REQUEST_NULL;
    const int tag = n.cart ? static_cast<int>(i) : 0;
    PMPI_Irecv(recv[i].buf, recv[i].count, recv[i].type, n.in[i], tag, sh, &r);
    reqs.push_back(r);
  }
  for (size_t j = 0; j < send.size(); ++j) {
    MPI_Request r = MPI_REQUEST_NULL;
    const int tag = n.cart ? static_cast<int>(j ^ 1) : 0;
    PMPI_Isend(send[j].buf, send[j].count, send[j].type, n.out[j], tag, sh, &r);
    reqs.push_back(r);
  }
  return PMPI_Waitall(static_cast<int>(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE);
}

std::vector<SendBlock> same_block(const Neighbors& n, const void* buf, int count, MPI_Datatype t) {
  return std::vector<SendBlock>(n.out.size(), SendBlock{buf, count, t});
}

std::vector<RecvSlot> even_slots(size_t k, void* buf, int count, MPI_Datatype t) {
  std::vector<RecvSlot> s;
  const MPI_Aint step = extent_of(t) * count;
  for (size_t i = 0; i < k; ++i)
    s.push_back(RecvSlot{at(buf, step * static_cast<MPI_Aint>(i)), count, t});
  return s;
}

void no_in_place(const void* sendbuf) {
  if (sendbuf == MPI_IN_PLACE) fail(MPI_ERR_ARG, "MPI_IN_PLACE is not allowed in a neighbourhood collective");
}

}  // namespace

extern "C" {

int PMPI_Neighbor_allgather(const void* sendbuf, int scount, MPI_Datatype stype, void* recvbuf, int rcount,
                            MPI_Datatype rtype, MPI_Comm c) {
  return call("MPI_Neighbor_allgather", c, [&] {
    no_in_place(sendbuf);
    const Neighbors n = neighbors(c);
    return exchange(c, same_block(n, sendbuf, scount, stype), even_slots(n.in.size(), recvbuf, rcount, rtype));
  });
}
MGEN_MPI_ALIAS(Neighbor_allgather)

int PMPI_Neighbor_allgatherv(const void* sendbuf, int scount, MPI_Datatype stype, void* recvbuf, const int rcounts[],
                             const int displs[], MPI_Datatype rtype, MPI_Comm c) {
  return call("MPI_Neighbor_allgatherv", c, [&] {
    no_in_place(sendbuf);
    const Neighbors n = neighbors(c);
    const MPI_Aint ext = extent_of(rtype);
    std::vector<RecvSlot> slots;
    for (size_t i = 0; i < n.in.size(); ++i)
      slots.push_back(RecvSlot{at(recvbuf, ext * displs[i]), rcounts[i], rtype});
    return exchange(c, same_block(n, sendbuf, scount, stype), slots);
  });
}
MGEN_MPI_ALIAS(Neighbor_allgatherv)

int PMPI_Neighbor_alltoall(const void* sendbuf, int scount, MPI_Datatype stype, void* recvbuf, int rcount,
                           MPI_Datatype rtype, MPI_Comm c) {
  return call("MPI_Neighbor_alltoall", c, [&] {
    no_in_place(sendbuf);
    const Neighbors n = neighbors(c);
    const MPI_Aint step = extent_of(stype) * scount;
    std::vector<SendBlock> blocks;
    for (size_t j = 0; j < n.out.size(); ++j)
      blocks.push_back(SendBlock{at(sendbuf, step * static_cast<MPI_Aint>(j)), scount, stype});
    return exchange(c, blocks, even_slots(n.in.size(), recvbuf, rcount, rtype));
  });
}
MGEN_MPI_ALIAS(Neighbor_alltoall)

int PMPI_Neighbor_alltoallv(const void* sendbuf, const int scounts[], const int sdispls[], MPI_Datatype stype,
                            void* recvbuf, const int rcounts[], const int rdispls[], MPI_Datatype rtype, MPI_Comm c) {
  return call("MPI_Neighbor_alltoallv", c, [&] {
    no_in_place(sendbuf);
    const Neighbors n = neighbors(c);
    const MPI_Aint sext = extent_of(stype), rext = extent_of(rtype);
    std::vector<SendBlock> blocks;
    for (size_t j = 0; j < n.out.size(); ++j)
      blocks.push_back(SendBlock{at(sendbuf, sext * sdispls[j]), scounts[j], stype});
    std::vector<RecvSlot> slots;
    for (size_t i = 0; i < n.in.size(); ++i)
      slots.push_back(RecvSlot{at(recvbuf, rext * rdispls[i]), rcounts[i], rtype});
    return exchange(c, blocks, slots);
  });
}
MGEN_MPI_ALIAS(Neighbor_alltoallv)

int PMPI_Neighbor_alltoallw(const void* sendbuf, const int scounts[], const MPI_Aint sdispls[],
                            const MPI_Datatype stypes[], void* recvbuf, const int rcounts[], const MPI_Aint rdispls[],
                            const MPI_Datatype rtypes[], MPI_Comm c) {
  return call("MPI_Neighbor_alltoallw", c, [&] {
    no_in_place(sendbuf);
    const Neighbors n = neighbors(c);
    std::vector<SendBlock> blocks;
    for (size_t j = 0; j < n.out.size(); ++j)
      blocks.push_back(SendBlock{at(sendbuf, sdispls[j]), scounts[j], stypes[j]});
    std::vector<RecvSlot> slots;
    for (size_t i = 0; i < n.in.size(); ++i)
      slots.push_back(RecvSlot{at(recvbuf, rdispls[i]), rcounts[i], rtypes[i]});
    return exchange(c, blocks, slots);
  });
}
MGEN_MPI_ALIAS(Neighbor_alltoallw)

}  // extern "C"
