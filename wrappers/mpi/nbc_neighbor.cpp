// Non-blocking neighbourhood collectives (MPI-4 §8.7): the exchange of neighbor.cpp, run on a
// helper context of the rank (nbc.hpp) so the program goes on while it proceeds. Each block is
// packed to bytes (a Flat); block i of the receive buffer comes from in-neighbour i, block j of
// the send buffer goes to out-neighbour j, MPI_PROC_NULL neighbours are skipped and keep their
// block. On a Cartesian grid the tag names the slot (out slot k lands in the peer's in slot
// k ^ 1), as neighbor.cpp does, so a periodic dimension of size 1 or 2 fills the right blocks.
#include <vector>

#include "mpi/nbc.hpp"
#include "mpi/topo.hpp"

using namespace mgen::mpi;
using namespace mgen::mpi::abi;
using mgen::mpi::api::CollJob;
using mgen::mpi::api::Scope;

namespace {

struct NbrBlock {
  const void* buf;
  int count;
  MPI_Datatype type;
};

// The job exchanging `send` (one per out-neighbour) and `recv` (one per in-neighbour).
CollJob exchange_plan(NbcPending& p, const Neighbors& n, const std::vector<NbrBlock>& send,
                      const std::vector<NbrBlock>& recv) {
  if (send.size() != n.out.size() || recv.size() != n.in.size()) {
    fail(MPI_ERR_INTERN, "neighbour lists and buffers differ in length");
  }
  struct Leg {
    Flat* flat;
    int peer, tag;
  };
  std::vector<Leg> ins, outs;
  for (size_t i = 0; i < recv.size(); ++i) {
    Flat& f = p.flats.emplace_back(Flat::out(const_cast<void*>(recv[i].buf), recv[i].count, recv[i].type));
    if (n.in[i] != MPI_PROC_NULL) ins.push_back(Leg{&f, n.in[i], n.cart ? static_cast<int>(i) : 0});
  }
  for (size_t j = 0; j < send.size(); ++j) {
    Flat& f = p.flats.emplace_back(Flat::in(send[j].buf, send[j].count, send[j].type));
    if (n.out[j] != MPI_PROC_NULL) outs.push_back(Leg{&f, n.out[j], n.cart ? static_cast<int>(j ^ 1) : 0});
  }
  return [ins, outs](colls::Channel& ch) {
    std::vector<uint32_t> qs;
    qs.reserve(ins.size() + outs.size());
    for (const Leg& l : ins)
      qs.push_back(ch.irecv(l.flat->data(), l.flat->bytes(), l.peer, l.tag));
    for (const Leg& l : outs)
      qs.push_back(ch.isend(l.flat->data(), l.flat->bytes(), l.peer, l.tag));
    ch.waitall(qs);
    for (const Leg& l : ins)
      l.flat->finish();
  };
}

MPI_Aint extent_of(MPI_Datatype t) {
  return static_cast<MPI_Aint>(dtype(t).extent());
}

const char* at(const void* buf, MPI_Aint bytes) {
  return static_cast<const char*>(buf) + bytes;
}

void no_in_place(const void* sendbuf) {
  if (sendbuf == MPI_IN_PLACE) fail(MPI_ERR_ARG, "MPI_IN_PLACE is not allowed in a neighbourhood collective");
}

// Starts the exchange `blocks` describes for the neighbours of `c`.
template <class Blocks>
int start_exchange(MPI_Comm c, MPI_Request* req, Blocks&& blocks) {
  const Neighbors n = neighbors(c);
  std::vector<NbrBlock> send, recv;
  blocks(n, send, recv);
  return start_nbc(c, req, [&](Scope&, NbcPending& p) { return exchange_plan(p, n, send, recv); });
}

}  // namespace

extern "C" {

int PMPI_Ineighbor_allgather(const void* sendbuf, int scount, MPI_Datatype stype, void* recvbuf, int rcount,
                             MPI_Datatype rtype, MPI_Comm c, MPI_Request* req) {
  return call("MPI_Ineighbor_allgather", c, [&] {
    no_in_place(sendbuf);
    return start_exchange(c, req, [&](const Neighbors& n, std::vector<NbrBlock>& send, std::vector<NbrBlock>& recv) {
      send.assign(n.out.size(), NbrBlock{sendbuf, scount, stype});
      const MPI_Aint step = extent_of(rtype) * rcount;
      for (size_t i = 0; i < n.in.size(); ++i)
        recv.push_back(NbrBlock{at(recvbuf, step * static_cast<MPI_Aint>(i)), rcount, rtype});
    });
  });
}
MGEN_MPI_ALIAS(Ineighbor_allgather)

int PMPI_Ineighbor_allgatherv(const void* sendbuf, int scount, MPI_Datatype stype, void* recvbuf, const int rcounts[],
                              const int displs[], MPI_Datatype rtype, MPI_Comm c, MPI_Request* req) {
  return call("MPI_Ineighbor_allgatherv", c, [&] {
    no_in_place(sendbuf);
    return start_exchange(c, req, [&](const Neighbors& n, std::vector<NbrBlock>& send, std::vector<NbrBlock>& recv) {
      send.assign(n.out.size(), NbrBlock{sendbuf, scount, stype});
      const MPI_Aint ext = extent_of(rtype);
      for (size_t i = 0; i < n.in.size(); ++i)
        recv.push_back(NbrBlock{at(recvbuf, ext * displs[i]), rcounts[i], rtype});
    });
  });
}
MGEN_MPI_ALIAS(Ineighbor_allgatherv)

int PMPI_Ineighbor_alltoall(const void* sendbuf, int scount, MPI_Datatype stype, void* recvbuf, int rcount,
                            MPI_Datatype rtype, MPI_Comm c, MPI_Request* req) {
  return call("MPI_Ineighbor_alltoall", c, [&] {
    no_in_place(sendbuf);
    return start_exchange(c, req, [&](const Neighbors& n, std::vector<NbrBlock>& send, std::vector<NbrBlock>& recv) {
      const MPI_Aint sstep = extent_of(stype) * scount, rstep = extent_of(rtype) * rcount;
      for (size_t j = 0; j < n.out.size(); ++j)
        send.push_back(NbrBlock{at(sendbuf, sstep * static_cast<MPI_Aint>(j)), scount, stype});
      for (size_t i = 0; i < n.in.size(); ++i)
        recv.push_back(NbrBlock{at(recvbuf, rstep * static_cast<MPI_Aint>(i)), rcount, rtype});
    });
  });
}
MGEN_MPI_ALIAS(Ineighbor_alltoall)

int PMPI_Ineighbor_alltoallv(const void* sendbuf, const int scounts[], const int sdispls[], MPI_Datatype stype,
                             void* recvbuf, const int rcounts[], const int rdispls[], MPI_Datatype rtype, MPI_Comm c,
                             MPI_Request* req) {
  return call("MPI_Ineighbor_alltoallv", c, [&] {
    no_in_place(sendbuf);
    return start_exchange(c, req, [&](const Neighbors& n, std::vector<NbrBlock>& send, std::vector<NbrBlock>& recv) {
      const MPI_Aint sext = extent_of(stype), rext = extent_of(rtype);
      for (size_t j = 0; j < n.out.size(); ++j)
        send.push_back(NbrBlock{at(sendbuf, sext * sdispls[j]), scounts[j], stype});
      for (size_t i = 0; i < n.in.size(); ++i)
        recv.push_back(NbrBlock{at(recvbuf, rext * rdispls[i]), rcounts[i], rtype});
    });
  });
}
MGEN_MPI_ALIAS(Ineighbor_alltoallv)

int PMPI_Ineighbor_alltoallw(const void* sendbuf, const int scounts[], const MPI_Aint sdispls[],
                             const MPI_Datatype stypes[], void* recvbuf, const int rcounts[], const MPI_Aint rdispls[],
                             const MPI_Datatype rtypes[], MPI_Comm c, MPI_Request* req) {
  return call("MPI_Ineighbor_alltoallw", c, [&] {
    no_in_place(sendbuf);
    return start_exchange(c, req, [&](const Neighbors& n, std::vector<NbrBlock>& send, std::vector<NbrBlock>& recv) {
      for (size_t j = 0; j < n.out.size(); ++j)
        send.push_back(NbrBlock{at(sendbuf, sdispls[j]), scounts[j], stypes[j]});
      for (size_t i = 0; i < n.in.size(); ++i)
        recv.push_back(NbrBlock{at(recvbuf, rdispls[i]), rcounts[i], rtypes[i]});
    });
  });
}
MGEN_MPI_ALIAS(Ineighbor_alltoallw)

}  // extern "C"
