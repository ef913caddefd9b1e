// Collective operations: validate, convert to bytes and in-place flags, pick the algorithm
// (configured or by the default selection), run it on the communicator's collective context.
// The "v" forms (per-rank counts) are in colls_v.cpp.
#include <cstring>
#include <vector>

#include "api/facade.hpp"
#include "colls/colls.hpp"
#include "core/datatype.hpp"

using namespace mgen::mpi;
using mgen::mpi::api::Scope;

namespace {

// The operation must apply to the type. Checked up front, by applying it to zero elements, so
// that size-only runs (which never reduce) report a bad combination too.
void check_reduction(Scope& s, MGEN_Op op, MGEN_Datatype type) {
  s.type_size(type);
  s.check_op(op);
  if (op == MGEN_REPLACE) s.fail(MGEN_ERR_OP, "MGEN_REPLACE is for one-sided accumulates, not reductions");
  alignas(16) unsigned char in[64] = {}, inout[64] = {};
  const std::string problem = reduce_apply(op, type, in, inout, 0);
  if (!problem.empty()) s.fail(MGEN_ERR_OP, problem);
}

colls::ReduceArgs reduce_args(Scope& s, const void* sendbuf, void* recvbuf, int count, MGEN_Datatype type, MGEN_Op op) {
  s.bytes(count, type);
  check_reduction(s, op, type);
  colls::ReduceArgs a;
  a.in_place = sendbuf == MGEN_IN_PLACE;
  a.send = a.in_place ? recvbuf : sendbuf;
  a.recv = recvbuf;
  a.count = static_cast<uint64_t>(count);
  a.type = type;
  a.type_size = s.type_size(type);
  a.op = op;
  return a;
}

void set_regular(colls::BlockArgs& a, uint64_t block) {
  a.regular = true;
  a.block = block;
}

using SelectReduce = const colls::Algorithm<colls::ReduceFn>& (*)(int, uint64_t, const CollectiveConfig&);

// Allreduce, scan and exscan: the same arguments, each with its own algorithm table.
int all_ranks_reduction(const char* name, SelectReduce select, const void* sendbuf, void* recvbuf, int count,
                        MGEN_Datatype type, MGEN_Op op, MGEN_Comm comm) {
  Scope s(name, static_cast<int>(kNone), kAnyTag, comm);
  if (!s) return api::outside(name);
  Comm& c = s.comm(comm);
  const colls::ReduceArgs a = reduce_args(s, sendbuf, recvbuf, count, type, op);
  colls::Channel ch(s.world(), s.rank(), c);
  select(c.size(), a.count * a.type_size, s.world().collectives()).fn(ch, a);
  return MGEN_SUCCESS;
}

// The reduce-scatter forms' arguments from a reduction's (counts are filled by the caller).
colls::ReduceScatterArgs scatter_args(const colls::ReduceArgs& r, MGEN_Datatype type, MGEN_Op op) {
  colls::ReduceScatterArgs a;
  a.send = r.send;
  a.recv = r.recv;
  a.in_place = r.in_place;
  a.type = type;
  a.type_size = r.type_size;
  a.op = op;
  return a;
}

}  // namespace

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

int MGEN_Reduce(const void* sendbuf, void* recvbuf, int count, MGEN_Datatype type, MGEN_Op op, int root,
                MGEN_Comm comm) {
  Scope s("MGEN_Reduce", root, kAnyTag, comm);
  if (!s) return api::outside("MGEN_Reduce");
  Comm& c = s.comm(comm);
  s.check_root(c, root);
  colls::ReduceArgs a = reduce_args(s, sendbuf, recvbuf, count, type, op);
  if (a.in_place && c.rank != root) s.fail(MGEN_ERR_BUFFER, "MGEN_IN_PLACE is only valid at the root");
  a.root = root;
  if (c.rank != root) a.recv = nullptr;  // significant at the root only
  colls::Channel ch(s.world(), s.rank(), c);
  colls::select_reduce(c.size(), a.count * a.type_size, s.world().collectives()).fn(ch, a);
  return MGEN_SUCCESS;
}

int MGEN_Allreduce(const void* sendbuf, void* recvbuf, int count, MGEN_Datatype type, MGEN_Op op, MGEN_Comm comm) {
  return all_ranks_reduction("MGEN_Allreduce", colls::select_allreduce, sendbuf, recvbuf, count, type, op, comm);
}

int MGEN_Scan(const void* sendbuf, void* recvbuf, int count, MGEN_Datatype type, MGEN_Op op, MGEN_Comm comm) {
  return all_ranks_reduction("MGEN_Scan", colls::select_scan, sendbuf, recvbuf, count, type, op, comm);
}

int MGEN_Exscan(const void* sendbuf, void* recvbuf, int count, MGEN_Datatype type, MGEN_Op op, MGEN_Comm comm) {
  return all_ranks_reduction("MGEN_Exscan", colls::select_exscan, sendbuf, recvbuf, count, type, op, comm);
}

int MGEN_Reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount, MGEN_Datatype type, MGEN_Op op,
                              MGEN_Comm comm) {
  Scope s("MGEN_Reduce_scatter_block", static_cast<int>(kNone), kAnyTag, comm);
  if (!s) return api::outside("MGEN_Reduce_scatter_block");
  Comm& c = s.comm(comm);
  const colls::ReduceArgs r = reduce_args(s, sendbuf, recvbuf, recvcount, type, op);
  colls::ReduceScatterArgs a = scatter_args(r, type, op);
  a.regular = true;
  a.block = r.count;
  const uint64_t total = r.count * r.type_size * static_cast<uint64_t>(c.size());
  colls::Channel ch(s.world(), s.rank(), c);
  colls::select_reduce_scatter(c.size(), total, s.world().collectives()).fn(ch, a);
  return MGEN_SUCCESS;
}

int MGEN_Reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[], MGEN_Datatype type, MGEN_Op op,
                        MGEN_Comm comm) {
  Scope s("MGEN_Reduce_scatter", static_cast<int>(kNone), kAnyTag, comm);
  if (!s) return api::outside("MGEN_Reduce_scatter");
  Comm& c = s.comm(comm);
  const colls::ReduceArgs r = reduce_args(s, sendbuf, recvbuf, 0, type, op);
  if (recvcounts == nullptr) s.fail(MGEN_ERR_COUNT, "recvcounts is null");
  colls::ReduceScatterArgs a = scatter_args(r, type, op);
  a.counts.resize(static_cast<size_t>(c.size()));
  uint64_t total = 0;
  for (int i = 0; i < c.size(); ++i) {
    s.check_count(recvcounts[i], "receive count");
    a.counts[i] = static_cast<uint64_t>(recvcounts[i]);
    total += a.counts[i];
  }
  colls::Channel ch(s.world(), s.rank(), c);
  colls::select_reduce_scatter(c.size(), total * a.type_size, s.world().collectives()).fn(ch, a);
  return MGEN_SUCCESS;
}

int MGEN_Gather(const void* sendbuf, int sendcount, MGEN_Datatype sendtype, void* recvbuf, int recvcount,
                MGEN_Datatype recvtype, int root, MGEN_Comm comm) {
  Scope s("MGEN_Gather", root, kAnyTag, comm);
  if (!s) return api::outside("MGEN_Gather");
  Comm& c = s.comm(comm);
  s.check_root(c, root);
  const bool at_root = c.rank == root;
  colls::BlockArgs a;
  a.root = root;
  a.in_place = sendbuf == MGEN_IN_PLACE;
  if (a.in_place && !at_root) s.fail(MGEN_ERR_BUFFER, "MGEN_IN_PLACE is only valid at the root");
  uint64_t block = a.in_place ? 0 : s.bytes(sendcount, sendtype);
  if (at_root) {
    const uint64_t recv_block = s.bytes(recvcount, recvtype);
    if (!a.in_place && block != recv_block) {
      s.fail(MGEN_ERR_TRUNCATE, fmt::format("the root sends {} bytes but receives {} per rank", block, recv_block));
    }
    block = recv_block;
  }
  a.send = a.in_place ? nullptr : sendbuf;
  a.recv = at_root ? recvbuf : nullptr;
  a.send_bytes = block;
  set_regular(a, block);
  colls::Channel ch(s.world(), s.rank(), c);
  colls::select_gather(c.size(), block, s.world().collectives()).fn(ch, a);
  return MGEN_SUCCESS;
}

int MGEN_Scatter(const void* sendbuf, int sendcount, MGEN_Datatype sendtype, void* recvbuf, int recvcount,
                 MGEN_Datatype recvtype, int root, MGEN_Comm comm) {
  Scope s("MGEN_Scatter", root, kAnyTag, comm);
  if (!s) return api::outside("MGEN_Scatter");
  Comm& c = s.comm(comm);
  s.check_root(c, root);
  const bool at_root = c.rank == root;
  colls::BlockArgs a;
  a.root = root;
  a.in_place = recvbuf == MGEN_IN_PLACE;
  if (a.in_place && !at_root) s.fail(MGEN_ERR_BUFFER, "MGEN_IN_PLACE is only valid at the root");
  uint64_t block = a.in_place ? 0 : s.bytes(recvcount, recvtype);
  if (at_root) {
    const uint64_t send_block = s.bytes(sendcount, sendtype);
    if (!a.in_place && block != send_block) {
      s.fail(MGEN_ERR_TRUNCATE, fmt::format("the root sends {} bytes per rank but receives {}", send_block, block));
    }
    block = send_block;
  }
  a.send = at_root ? sendbuf : nullptr;
  a.recv = a.in_place ? nullptr : recvbuf;
  a.recv_bytes = block;
  set_regular(a, block);
  colls::Channel ch(s.world(), s.rank(), c);
  colls::select_scatter(c.size(), block, s.world().collectives()).fn(ch, a);
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
  set_regular(a, block);
  colls::Channel ch(s.world(), s.rank(), c);
  colls::select_allgather(c.size(), block * static_cast<uint64_t>(c.size()), s.world().collectives()).fn(ch, a);
  return MGEN_SUCCESS;
}

int MGEN_Alltoall(const void* sendbuf, int sendcount, MGEN_Datatype sendtype, void* recvbuf, int recvcount,
                  MGEN_Datatype recvtype, MGEN_Comm comm) {
  Scope s("MGEN_Alltoall", static_cast<int>(kNone), kAnyTag, comm);
  if (!s) return api::outside("MGEN_Alltoall");
  Comm& c = s.comm(comm);
  const uint64_t block = s.bytes(recvcount, recvtype);
  const bool in_place = sendbuf == MGEN_IN_PLACE;
  if (!in_place && s.bytes(sendcount, sendtype) != block) {
    s.fail(MGEN_ERR_TRUNCATE,
           fmt::format("sends {} bytes per rank but receives {}", s.bytes(sendcount, sendtype), block));
  }
  // In place, what goes out is the receive buffer's old content: keep a copy (as MPICH does)
  // and run the ordinary algorithm from it.
  std::vector<char> snapshot;
  if (in_place && recvbuf != nullptr) {
    snapshot.resize(block * static_cast<uint64_t>(c.size()));
    if (!snapshot.empty()) std::memcpy(snapshot.data(), recvbuf, snapshot.size());
  }
  colls::BlockArgs a;
  a.send = in_place ? (snapshot.empty() ? nullptr : snapshot.data()) : sendbuf;
  a.recv = recvbuf;
  set_regular(a, block);
  colls::Channel ch(s.world(), s.rank(), c);
  colls::select_alltoall(c.size(), block, s.world().collectives()).fn(ch, a);
  return MGEN_SUCCESS;
}

}  // extern "C"
