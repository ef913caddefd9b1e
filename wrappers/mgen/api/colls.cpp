// Collective operations: validate, convert to bytes and in-place flags, pick the algorithm
// (configured or by the default selection), run it on the communicator's collective context.
// Each is built as a job (coll_jobs.hpp) so that the non-blocking forms run the very same one.
// The "v" forms (per-rank counts) are in colls_v.cpp.
#include <cstring>
#include <memory>
#include <vector>

#include "api/coll_check.hpp"
#include "api/coll_jobs.hpp"
#include "colls/colls.hpp"
#include "core/datatype.hpp"

using namespace mgen::mpi;
using mgen::mpi::api::CollJob;
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

using SelectReduce = const colls::Algorithm<colls::ReduceFn>& (*)(const colls::Signature&, const CollectiveConfig&);

// What the selection sees of a reduction: its size, element count and whether the operation is
// a predefined one (MPICH picks by all three).
colls::Signature reduction_signature(const Comm& c, const colls::ReduceArgs& a) {
  return {.size = c.size(), .bytes = a.count * a.type_size, .count = a.count, .builtin_op = a.op < kExtraBase};
}

// The operation as the cross-rank check compares it: predefined ones by handle; user-defined
// ones are local handles, so only "user-defined" is compared.
int checked_op(MGEN_Op op) {
  return op < kExtraBase ? op : kExtraBase;
}

// Allreduce, scan and exscan: the same arguments, each with its own algorithm table.
api::CollJob all_ranks_reduction(Scope& s, Comm& c, const char* kind, SelectReduce select, const void* sendbuf,
                                 void* recvbuf, int count, MGEN_Datatype type, MGEN_Op op) {
  const colls::ReduceArgs a = reduce_args(s, sendbuf, recvbuf, count, type, op);
  api::check_collective(s, c, {.kind = kind, .op = checked_op(op), .bytes = a.count * a.type_size});
  const colls::ReduceFn fn = select(reduction_signature(c, a), s.world().collectives()).fn;
  return [fn, a](colls::Channel& ch) { fn(ch, a); };
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

namespace mgen::mpi::api {

CollJob barrier_job(Scope& s, Comm& c) {
  check_collective(s, c, {.kind = "barrier"});
  const colls::BarrierFn fn = colls::select_barrier({.size = c.size()}, s.world().collectives()).fn;
  return [fn](colls::Channel& ch) { fn(ch); };
}

CollJob bcast_job(Scope& s, Comm& c, void* buf, int count, MGEN_Datatype type, int root) {
  const uint64_t bytes = s.bytes(count, type);
  s.check_root(c, root);
  check_collective(s, c, {.kind = "bcast", .root = root, .bytes = bytes});
  const colls::BcastFn fn = colls::select_bcast({.size = c.size(), .bytes = bytes}, s.world().collectives()).fn;
  return [fn, buf, bytes, root](colls::Channel& ch) { fn(ch, buf, bytes, root); };
}

CollJob reduce_job(Scope& s, Comm& c, const void* sendbuf, void* recvbuf, int count, MGEN_Datatype type, MGEN_Op op,
                   int root) {
  s.check_root(c, root);
  colls::ReduceArgs a = reduce_args(s, sendbuf, recvbuf, count, type, op);
  if (a.in_place && c.rank != root) s.fail(MGEN_ERR_BUFFER, "MGEN_IN_PLACE is only valid at the root");
  a.root = root;
  if (c.rank != root) a.recv = nullptr;  // significant at the root only
  check_collective(s, c, {.kind = "reduce", .root = root, .op = checked_op(op), .bytes = a.count * a.type_size});
  const colls::ReduceFn fn = colls::select_reduce(reduction_signature(c, a), s.world().collectives()).fn;
  return [fn, a](colls::Channel& ch) { fn(ch, a); };
}

CollJob allreduce_job(Scope& s, Comm& c, const void* sendbuf, void* recvbuf, int count, MGEN_Datatype type,
                      MGEN_Op op) {
  return all_ranks_reduction(s, c, "allreduce", colls::select_allreduce, sendbuf, recvbuf, count, type, op);
}

CollJob scan_job(Scope& s, Comm& c, const void* sendbuf, void* recvbuf, int count, MGEN_Datatype type, MGEN_Op op) {
  return all_ranks_reduction(s, c, "scan", colls::select_scan, sendbuf, recvbuf, count, type, op);
}

CollJob exscan_job(Scope& s, Comm& c, const void* sendbuf, void* recvbuf, int count, MGEN_Datatype type, MGEN_Op op) {
  return all_ranks_reduction(s, c, "exscan", colls::select_exscan, sendbuf, recvbuf, count, type, op);
}

CollJob reduce_scatter_block_job(Scope& s, Comm& c, const void* sendbuf, void* recvbuf, int recvcount,
                                 MGEN_Datatype type, MGEN_Op op) {
  const colls::ReduceArgs r = reduce_args(s, sendbuf, recvbuf, recvcount, type, op);
  colls::ReduceScatterArgs a = scatter_args(r, type, op);
  a.regular = true;
  a.block = r.count;
  check_collective(s, c, {.kind = "reduce_scatter_block", .op = checked_op(op), .bytes = r.count * r.type_size});
  const uint64_t total = r.count * r.type_size * static_cast<uint64_t>(c.size());
  const colls::ReduceScatterFn fn =
      colls::select_reduce_scatter({.size = c.size(), .bytes = total}, s.world().collectives()).fn;
  return [fn, a](colls::Channel& ch) { fn(ch, a); };
}

CollJob reduce_scatter_job(Scope& s, Comm& c, const void* sendbuf, void* recvbuf, const int recvcounts[],
                           MGEN_Datatype type, MGEN_Op op) {
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
  std::vector<uint64_t> shares(a.counts);
  for (uint64_t& b : shares)
    b *= r.type_size;
  check_collective(s, c, {.kind = "reduce_scatter", .op = checked_op(op), .shares = &shares});
  const colls::ReduceScatterFn fn =
      colls::select_reduce_scatter({.size = c.size(), .bytes = total * a.type_size, .varied = true},
                                   s.world().collectives())
          .fn;
  return [fn, a](colls::Channel& ch) { fn(ch, a); };
}

CollJob gather_job(Scope& s, Comm& c, const void* sendbuf, int sendcount, MGEN_Datatype sendtype, void* recvbuf,
                   int recvcount, MGEN_Datatype recvtype, int root) {
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
  check_collective(s, c, {.kind = "gather", .root = root, .bytes = block});
  a.send = a.in_place ? nullptr : sendbuf;
  a.recv = at_root ? recvbuf : nullptr;
  a.send_bytes = block;
  set_regular(a, block);
  const colls::BlockFn fn = colls::select_gather({.size = c.size(), .bytes = block}, s.world().collectives()).fn;
  return [fn, a](colls::Channel& ch) { fn(ch, a); };
}

CollJob scatter_job(Scope& s, Comm& c, const void* sendbuf, int sendcount, MGEN_Datatype sendtype, void* recvbuf,
                    int recvcount, MGEN_Datatype recvtype, int root) {
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
  check_collective(s, c, {.kind = "scatter", .root = root, .bytes = block});
  a.send = at_root ? sendbuf : nullptr;
  a.recv = a.in_place ? nullptr : recvbuf;
  a.recv_bytes = block;
  set_regular(a, block);
  const colls::BlockFn fn = colls::select_scatter({.size = c.size(), .bytes = block}, s.world().collectives()).fn;
  return [fn, a](colls::Channel& ch) { fn(ch, a); };
}

CollJob allgather_job(Scope& s, Comm& c, const void* sendbuf, int sendcount, MGEN_Datatype sendtype, void* recvbuf,
                      int recvcount, MGEN_Datatype recvtype) {
  const uint64_t block = s.bytes(recvcount, recvtype);
  colls::BlockArgs a;
  a.in_place = sendbuf == MGEN_IN_PLACE;
  if (!a.in_place && s.bytes(sendcount, sendtype) != block) {
    s.fail(MGEN_ERR_TRUNCATE,
           fmt::format("sends {} bytes per rank but receives {}", s.bytes(sendcount, sendtype), block));
  }
  check_collective(s, c, {.kind = "allgather", .bytes = block});
  a.send = a.in_place ? nullptr : sendbuf;
  a.recv = recvbuf;
  a.send_bytes = block;
  set_regular(a, block);
  const colls::BlockFn fn =
      colls::select_allgather({.size = c.size(), .bytes = block * static_cast<uint64_t>(c.size())},
                              s.world().collectives())
          .fn;
  return [fn, a](colls::Channel& ch) { fn(ch, a); };
}

CollJob alltoall_job(Scope& s, Comm& c, const void* sendbuf, int sendcount, MGEN_Datatype sendtype, void* recvbuf,
                     int recvcount, MGEN_Datatype recvtype) {
  const uint64_t block = s.bytes(recvcount, recvtype);
  const bool in_place = sendbuf == MGEN_IN_PLACE;
  if (!in_place && s.bytes(sendcount, sendtype) != block) {
    s.fail(MGEN_ERR_TRUNCATE,
           fmt::format("sends {} bytes per rank but receives {}", s.bytes(sendcount, sendtype), block));
  }
  check_collective(s, c, {.kind = "alltoall", .bytes = block});
  // In place, what goes out is the receive buffer's old content: keep a copy (as MPICH does)
  // and run the ordinary algorithm from it.
  auto snapshot = std::make_shared<std::vector<char>>();
  if (in_place && recvbuf != nullptr) {
    snapshot->resize(block * static_cast<uint64_t>(c.size()));
    if (!snapshot->empty()) std::memcpy(snapshot->data(), recvbuf, snapshot->size());
  }
  colls::BlockArgs a;
  a.send = in_place ? (snapshot->empty() ? nullptr : snapshot->data()) : sendbuf;
  a.recv = recvbuf;
  set_regular(a, block);
  const colls::BlockFn fn =
      colls::select_alltoall({.size = c.size(), .bytes = block, .in_place = in_place}, s.world().collectives()).fn;
  return [fn, a, snapshot](colls::Channel& ch) { fn(ch, a); };
}

}  // namespace mgen::mpi::api

extern "C" {

int MGEN_Barrier(MGEN_Comm comm) {
  return api::run_collective("MGEN_Barrier", static_cast<int>(kNone), comm,
                             [&](Scope& s, Comm& c) { return api::barrier_job(s, c); });
}

int MGEN_Bcast(void* buf, int count, MGEN_Datatype type, int root, MGEN_Comm comm) {
  return api::run_collective("MGEN_Bcast", root, comm,
                             [&](Scope& s, Comm& c) { return api::bcast_job(s, c, buf, count, type, root); });
}

int MGEN_Reduce(const void* sendbuf, void* recvbuf, int count, MGEN_Datatype type, MGEN_Op op, int root,
                MGEN_Comm comm) {
  return api::run_collective("MGEN_Reduce", root, comm, [&](Scope& s, Comm& c) {
    return api::reduce_job(s, c, sendbuf, recvbuf, count, type, op, root);
  });
}

int MGEN_Allreduce(const void* sendbuf, void* recvbuf, int count, MGEN_Datatype type, MGEN_Op op, MGEN_Comm comm) {
  return api::run_collective("MGEN_Allreduce", static_cast<int>(kNone), comm, [&](Scope& s, Comm& c) {
    return api::allreduce_job(s, c, sendbuf, recvbuf, count, type, op);
  });
}

int MGEN_Scan(const void* sendbuf, void* recvbuf, int count, MGEN_Datatype type, MGEN_Op op, MGEN_Comm comm) {
  return api::run_collective("MGEN_Scan", static_cast<int>(kNone), comm,
                             [&](Scope& s, Comm& c) { return api::scan_job(s, c, sendbuf, recvbuf, count, type, op); });
}

int MGEN_Exscan(const void* sendbuf, void* recvbuf, int count, MGEN_Datatype type, MGEN_Op op, MGEN_Comm comm) {
  return api::run_collective("MGEN_Exscan", static_cast<int>(kNone), comm, [&](Scope& s, Comm& c) {
    return api::exscan_job(s, c, sendbuf, recvbuf, count, type, op);
  });
}

int MGEN_Reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount, MGEN_Datatype type, MGEN_Op op,
                              MGEN_Comm comm) {
  return api::run_collective("MGEN_Reduce_scatter_block", static_cast<int>(kNone), comm, [&](Scope& s, Comm& c) {
    return api::reduce_scatter_block_job(s, c, sendbuf, recvbuf, recvcount, type, op);
  });
}

int MGEN_Reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[], MGEN_Datatype type, MGEN_Op op,
                        MGEN_Comm comm) {
  return api::run_collective("MGEN_Reduce_scatter", static_cast<int>(kNone), comm, [&](Scope& s, Comm& c) {
    return api::reduce_scatter_job(s, c, sendbuf, recvbuf, recvcounts, type, op);
  });
}

int MGEN_Gather(const void* sendbuf, int sendcount, MGEN_Datatype sendtype, void* recvbuf, int recvcount,
                MGEN_Datatype recvtype, int root, MGEN_Comm comm) {
  return api::run_collective("MGEN_Gather", root, comm, [&](Scope& s, Comm& c) {
    return api::gather_job(s, c, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root);
  });
}

int MGEN_Scatter(const void* sendbuf, int sendcount, MGEN_Datatype sendtype, void* recvbuf, int recvcount,
                 MGEN_Datatype recvtype, int root, MGEN_Comm comm) {
  return api::run_collective("MGEN_Scatter", root, comm, [&](Scope& s, Comm& c) {
    return api::scatter_job(s, c, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root);
  });
}

int MGEN_Allgather(const void* sendbuf, int sendcount, MGEN_Datatype sendtype, void* recvbuf, int recvcount,
                   MGEN_Datatype recvtype, MGEN_Comm comm) {
  return api::run_collective("MGEN_Allgather", static_cast<int>(kNone), comm, [&](Scope& s, Comm& c) {
    return api::allgather_job(s, c, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
  });
}

int MGEN_Alltoall(const void* sendbuf, int sendcount, MGEN_Datatype sendtype, void* recvbuf, int recvcount,
                  MGEN_Datatype recvtype, MGEN_Comm comm) {
  return api::run_collective("MGEN_Alltoall", static_cast<int>(kNone), comm, [&](Scope& s, Comm& c) {
    return api::alltoall_job(s, c, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
  });
}

}  // extern "C"
