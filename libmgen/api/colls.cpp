// Collective operations: validate, convert to bytes and in-place flags, pick the algorithm
// (configured or by the default selection), run it on the communicator's collective context.
#include <vector>

#include "api/facade.hpp"
#include "colls/colls.hpp"

using namespace mgen::mpi;
using mgen::mpi::api::Scope;

extern "C" {

int MGEN_Barrier(MGEN_Comm comm) {
  Scope s("MGEN_Barrier", static_cast<int>(kNone), kAnyTag, comm);
  if (!s) return api::outside("MGEN_Barrier");
  Comm& c = s.comm(comm);
  colls::Channel ch(s.world(), s.rank(), c);
  colls::select_barrier(c.size(), s.world().collectives()).fn(ch);
  return MGEN_SUCCESS;
}

int MGEN_Bcast(void* buf, int count, MGEN_Datatype type, int root, MGEN_Comm comm) {
  Scope s("MGEN_Bcast", root, kAnyTag, comm);
  if (!s) return api::outside("MGEN_Bcast");
  Comm& c = s.comm(comm);
  const uint64_t bytes = s.bytes(count, type);
  s.check_root(c, root);
  colls::Channel ch(s.world(), s.rank(), c);
  colls::select_bcast(c.size(), bytes, s.world().collectives()).fn(ch, buf, bytes, root);
  return MGEN_SUCCESS;
}

int MGEN_Allgather(const void* sendbuf, int sendcount, MGEN_Datatype sendtype, void* recvbuf, int recvcount,
                   MGEN_Datatype recvtype, MGEN_Comm comm) {
  Scope s("MGEN_Allgather", static_cast<int>(kNone), kAnyTag, comm);
  if (!s) return api::outside("MGEN_Allgather");
  Comm& c = s.comm(comm);
  const uint64_t block = s.bytes(recvcount, recvtype);
  colls::BlockArgs a;
  a.in_place = sendbuf == MGEN_IN_PLACE;
  if (!a.in_place && s.bytes(sendcount, sendtype) != block) {
    s.fail(MGEN_ERR_TRUNCATE,
           fmt::format("sends {} bytes per rank but receives {}", s.bytes(sendcount, sendtype), block));
  }
  a.send = a.in_place ? nullptr : sendbuf;
  a.recv = recvbuf;
  a.send_bytes = block;
  a.recv_counts.assign(static_cast<size_t>(c.size()), block);
  a.recv_displs.resize(a.recv_counts.size());
  for (size_t i = 0; i < a.recv_displs.size(); ++i)
    a.recv_displs[i] = block * i;
  colls::Channel ch(s.world(), s.rank(), c);
  colls::select_allgather(c.size(), block * static_cast<uint64_t>(c.size()), s.world().collectives()).fn(ch, a);
  return MGEN_SUCCESS;
}

}  // extern "C"
