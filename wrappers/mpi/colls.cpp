// Blocking collectives: datatypes flattened to bytes (packed when not dense), reductions
// expressed in the predefined base type or through the user's operation, then the MGEN
// collective with its configured or default algorithm. The non-blocking forms (nbc.cpp)
// compose the same pieces (coll_args.hpp).
#include <fmt/format.h>

#include <numeric>

#include "api/coll_jobs.hpp"
#include "core/datatype.hpp"
#include "core/world.hpp"
#include "mpi/coll_args.hpp"
#include "mpi/intercomm.hpp"

using namespace mgen::mpi;
using namespace mgen::mpi::abi;

namespace {

// The job `build` makes, chosen among the order-preserving algorithms when `ordered`. The
// override lasts only while the job is built (no rank switches then); held around the running
// collective, it leaked: ranks interleave while they wait, each saved another's override as
// "the configuration" and restored it, and later collectives chose different algorithms on
// different ranks.
template <class Build>
api::CollJob ordered_job(bool ordered, Build&& build) {
  api::CollJob job;
  with_order(ordered, [&] { job = build(); });
  return job;
}

// A reduction whose operation is not commutative, in rank order: every input to `root`, which
// combines them as x0 op (x1 op (... op x_{p-1})) — what MPI defines, whatever the algorithm.
void ordered_reduce(const Reduction& r, MGEN_Comm h, int root) {
  const int p = comm_size(h), me = comm_rank(h);
  const uint64_t bytes = r.ordered_bytes();
  std::vector<std::byte> all(me == root ? bytes * static_cast<uint64_t>(p) : 0);
  MGEN_Gather(r.ordered_input(), byte_count(bytes), MGEN_BYTE, all.data(), byte_count(bytes), MGEN_BYTE, root, h);
  if (me == root) combine_in_rank_order(r, all.data(), p);
}

}  // namespace

extern "C" {

int PMPI_Barrier(MPI_Comm c) {
  return call("MPI_Barrier", c, [&] {
    if (is_inter(c)) {
      inter_barrier(c);
      return MPI_SUCCESS;
    }
    MGEN_Barrier(comm(c));
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Barrier)

int PMPI_Bcast(void* buf, int count, MPI_Datatype t, int root, MPI_Comm c) {
  return call("MPI_Bcast", c, [&] {
    if (is_inter(c)) {
      inter_bcast(buf, count, t, root, c);
      return MPI_SUCCESS;
    }
    const MGEN_Comm h = comm(c);
    const bool at_root = comm_rank(h) == root;
    Flat f = at_root ? Flat::in(buf, count, t) : Flat::out(buf, count, t);
    MGEN_Bcast(f.data(), byte_count(f.bytes()), MGEN_BYTE, root, h);
    if (!at_root) f.finish();
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Bcast)

int PMPI_Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype t, MPI_Op op, int root, MPI_Comm c) {
  return call("MPI_Reduce", c, [&] {
    if (is_inter(c)) {
      inter_reduce(sendbuf, recvbuf, count, t, op, root, c);
      return MPI_SUCCESS;
    }
    const MGEN_Comm h = comm(c);
    const bool at_root = comm_rank(h) == root;
    Reduction r = reduction(sendbuf, recvbuf, count, t, op, at_root);
    if (r.ordered) {
      ordered_reduce(r, h, root);
    } else {
      MGEN_Reduce(r.send.data(), at_root ? r.recv.data() : nullptr, r.count, r.type, r.op, root, h);
    }
    if (at_root) r.recv.finish();
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Reduce)

int PMPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype t, MPI_Op op, MPI_Comm c) {
  return call("MPI_Allreduce", c, [&] {
    if (is_inter(c)) {
      inter_allreduce(sendbuf, recvbuf, count, t, op, c);
      return MPI_SUCCESS;
    }
    const MGEN_Comm h = comm(c);
    Reduction r = reduction(sendbuf, recvbuf, count, t, op, true);
    if (r.ordered) {
      ordered_reduce(r, h, 0);
      MGEN_Bcast(r.recv.data(), byte_count(r.recv.bytes()), MGEN_BYTE, 0, h);
    } else {
      MGEN_Allreduce(r.send.data(), r.recv.data(), r.count, r.type, r.op, h);
    }
    r.recv.finish();
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Allreduce)

int PMPI_Scan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype t, MPI_Op op, MPI_Comm c) {
  return call("MPI_Scan", c, [&] {
    const MGEN_Comm h = comm(c);
    Reduction r = reduction(sendbuf, recvbuf, count, t, op, true);
    api::run_collective("MGEN_Scan", static_cast<int>(kNone), h, [&](api::Scope& s, Comm& cm) {
      return ordered_job(r.ordered,
                         [&] { return api::scan_job(s, cm, r.send.data(), r.recv.data(), r.count, r.type, r.op); });
    });
    r.recv.finish();
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Scan)

int PMPI_Exscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype t, MPI_Op op, MPI_Comm c) {
  return call("MPI_Exscan", c, [&] {
    const MGEN_Comm h = comm(c);
    Reduction r = reduction(sendbuf, recvbuf, count, t, op, true);
    api::run_collective("MGEN_Exscan", static_cast<int>(kNone), h, [&](api::Scope& s, Comm& cm) {
      return ordered_job(r.ordered,
                         [&] { return api::exscan_job(s, cm, r.send.data(), r.recv.data(), r.count, r.type, r.op); });
    });
    if (comm_rank(h) > 0) r.recv.finish();
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Exscan)

int PMPI_Reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[], MPI_Datatype t, MPI_Op op,
                        MPI_Comm c) {
  return call("MPI_Reduce_scatter", c, [&] {
    if (is_inter(c)) {
      inter_reduce_scatter(sendbuf, recvbuf, recvcounts, t, op, c);
      return MPI_SUCCESS;
    }
    const MGEN_Comm h = comm(c);
    const int p = comm_size(h), me = comm_rank(h);
    int total = 0;
    for (int i = 0; i < p; ++i) {
      check_count(recvcounts[i]);
      total += recvcounts[i];
    }
    const DType& d = dtype(t);
    const UserOp* u = user_op(op);
    if ((u != nullptr && !u->commute) || !d.dense()) {
      // Order-preserving or non-contiguous: a reduce to rank 0 then a scatterv.
      std::vector<std::byte> all(d.extent() * static_cast<uint64_t>(total) + 1);
      std::vector<int> displs(p);
      std::partial_sum(recvcounts, recvcounts + p - 1, displs.begin() + 1);
      if (p > 0) displs[0] = 0;
      const void* src = in_place(sendbuf) ? recvbuf : sendbuf;
      PMPI_Reduce(src, me == 0 ? all.data() : nullptr, total, t, op, 0, c);
      PMPI_Scatterv(all.data(), recvcounts, displs.data(), t, recvbuf, recvcounts[me], t, 0, c);
      return MPI_SUCCESS;
    }
    Reduction r = reduction(sendbuf, recvbuf, total, t, op, false);
    std::vector<int> counts(p);
    const uint64_t per = u != nullptr ? 1 : d.base_count;
    for (int i = 0; i < p; ++i)
      counts[i] = static_cast<int>(static_cast<uint64_t>(recvcounts[i]) * per);
    MGEN_Reduce_scatter(r.send.data(), in_place(sendbuf) ? recvbuf : recvbuf, counts.data(), r.type, r.op, h);
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Reduce_scatter)

int PMPI_Reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype t, MPI_Op op,
                              MPI_Comm c) {
  return call("MPI_Reduce_scatter_block", c, [&] {
    const int p = comm_size(comm(c));
    std::vector<int> counts(p, recvcount);
    return PMPI_Reduce_scatter(sendbuf, recvbuf, counts.data(), t, op, c);
  });
}
MGEN_MPI_ALIAS(Reduce_scatter_block)

int PMPI_Gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                 const int displs[], MPI_Datatype recvtype, int root, MPI_Comm c) {
  return call("MPI_Gatherv", c, [&] {
    if (is_inter(c)) {
      inter_gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, c);
      return MPI_SUCCESS;
    }
    const MGEN_Comm h = comm(c);
    const int p = comm_size(h);
    const bool at_root = comm_rank(h) == root;
    const bool ip = in_place(sendbuf);
    if (ip && !at_root) fail(MPI_ERR_BUFFER, "MPI_IN_PLACE is only valid at the root");
    Flat s = ip ? Flat::in(MPI_IN_PLACE, 0, recvtype) : Flat::in(sendbuf, sendcount, sendtype);
    if (at_root) {
      VBuf r(recvbuf, recvcounts, displs, p, recvtype, ip);
      MGEN_Gatherv(ip ? MGEN_IN_PLACE : s.data(), byte_count(s.bytes()), MGEN_BYTE, r.data(), r.counts(), r.displs(),
                   MGEN_BYTE, root, h);
      r.finish();
    } else {
      MGEN_Gatherv(s.data(), byte_count(s.bytes()), MGEN_BYTE, nullptr, nullptr, nullptr, MGEN_BYTE, root, h);
    }
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Gatherv)

int PMPI_Gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                MPI_Datatype recvtype, int root, MPI_Comm c) {
  return call("MPI_Gather", c, [&] {
    if (is_inter(c)) {
      inter_gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, c);
      return MPI_SUCCESS;
    }
    const MGEN_Comm h = comm(c);
    const int p = comm_size(h);
    const bool at_root = comm_rank(h) == root;
    if (at_root) {
      std::vector<int> counts(p, recvcount), displs(p);
      for (int i = 0; i < p; ++i)
        displs[i] = i * recvcount;
      return PMPI_Gatherv(sendbuf, sendcount, sendtype, recvbuf, counts.data(), displs.data(), recvtype, root, c);
    }
    return PMPI_Gatherv(sendbuf, sendcount, sendtype, nullptr, nullptr, nullptr, recvtype, root, c);
  });
}
MGEN_MPI_ALIAS(Gather)

int PMPI_Scatterv(const void* sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype, void* recvbuf,
                  int recvcount, MPI_Datatype recvtype, int root, MPI_Comm c) {
  return call("MPI_Scatterv", c, [&] {
    if (is_inter(c)) {
      inter_scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, c);
      return MPI_SUCCESS;
    }
    const MGEN_Comm h = comm(c);
    const int p = comm_size(h);
    const bool at_root = comm_rank(h) == root;
    const bool ip = in_place(recvbuf);
    if (ip && !at_root) fail(MPI_ERR_BUFFER, "MPI_IN_PLACE is only valid at the root");
    Flat r = ip ? Flat::out(MPI_IN_PLACE, 0, sendtype) : Flat::out(recvbuf, recvcount, recvtype);
    if (at_root) {
      VBuf s(const_cast<void*>(sendbuf), sendcounts, displs, p, sendtype, true);
      MGEN_Scatterv(s.data(), s.counts(), s.displs(), MGEN_BYTE, ip ? MGEN_IN_PLACE : r.data(), byte_count(r.bytes()),
                    MGEN_BYTE, root, h);
    } else {
      MGEN_Scatterv(nullptr, nullptr, nullptr, MGEN_BYTE, r.data(), byte_count(r.bytes()), MGEN_BYTE, root, h);
    }
    if (!ip) r.finish();
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Scatterv)

int PMPI_Scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                 MPI_Datatype recvtype, int root, MPI_Comm c) {
  return call("MPI_Scatter", c, [&] {
    if (is_inter(c)) {
      inter_scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, c);
      return MPI_SUCCESS;
    }
    const MGEN_Comm h = comm(c);
    const int p = comm_size(h);
    if (comm_rank(h) == root) {
      std::vector<int> counts(p, sendcount), displs(p);
      for (int i = 0; i < p; ++i)
        displs[i] = i * sendcount;
      return PMPI_Scatterv(sendbuf, counts.data(), displs.data(), sendtype, recvbuf, recvcount, recvtype, root, c);
    }
    return PMPI_Scatterv(nullptr, nullptr, nullptr, sendtype, recvbuf, recvcount, recvtype, root, c);
  });
}
MGEN_MPI_ALIAS(Scatter)

int PMPI_Allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                    const int displs[], MPI_Datatype recvtype, MPI_Comm c) {
  return call("MPI_Allgatherv", c, [&] {
    if (is_inter(c)) {
      inter_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, c);
      return MPI_SUCCESS;
    }
    const MGEN_Comm h = comm(c);
    const int p = comm_size(h);
    const bool ip = in_place(sendbuf);
    Flat s = ip ? Flat::in(MPI_IN_PLACE, 0, recvtype) : Flat::in(sendbuf, sendcount, sendtype);
    VBuf r(recvbuf, recvcounts, displs, p, recvtype, ip);
    MGEN_Allgatherv(ip ? MGEN_IN_PLACE : s.data(), byte_count(s.bytes()), MGEN_BYTE, r.data(), r.counts(), r.displs(),
                    MGEN_BYTE, h);
    r.finish();
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Allgatherv)

int PMPI_Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                   MPI_Datatype recvtype, MPI_Comm c) {
  return call("MPI_Allgather", c, [&] {
    if (is_inter(c)) {
      inter_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, c);
      return MPI_SUCCESS;
    }
    const MGEN_Comm h = comm(c);
    const int p = comm_size(h);
    const DType& rt = dtype(recvtype);
    if (rt.dense()) {
      // The regular form: no per-rank tables (the MGEN layer's fast path for large p).
      const bool ip = in_place(sendbuf);
      Flat s = ip ? Flat::in(MPI_IN_PLACE, 0, recvtype) : Flat::in(sendbuf, sendcount, sendtype);
      check_count(recvcount);
      MGEN_Allgather(ip ? MGEN_IN_PLACE : s.data(), byte_count(s.bytes()), MGEN_BYTE, recvbuf,
                     byte_count(rt.size * static_cast<uint64_t>(recvcount)), MGEN_BYTE, h);
      return MPI_SUCCESS;
    }
    std::vector<int> counts(p, recvcount), displs(p);
    for (int i = 0; i < p; ++i)
      displs[i] = i * recvcount;
    return PMPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, counts.data(), displs.data(), recvtype, c);
  });
}
MGEN_MPI_ALIAS(Allgather)

int PMPI_Alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                   void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm c) {
  return call("MPI_Alltoallv", c, [&] {
    if (is_inter(c)) {
      inter_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, c);
      return MPI_SUCCESS;
    }
    const MGEN_Comm h = comm(c);
    const int p = comm_size(h);
    if (in_place(sendbuf)) {
      // In place: the data to send is what recvbuf holds now.
      VBuf r(recvbuf, recvcounts, rdispls, p, recvtype, true);
      std::vector<std::byte> copy;
      const int* rc = r.counts();
      const int* rd = r.displs();
      uint64_t end = 0;
      for (int i = 0; i < p; ++i)
        end = std::max<uint64_t>(end, static_cast<uint64_t>(rd[i]) + static_cast<uint64_t>(rc[i]));
      copy.assign(static_cast<std::byte*>(r.data()), static_cast<std::byte*>(r.data()) + end);
      MGEN_Alltoallv(copy.data(), rc, rd, MGEN_BYTE, r.data(), rc, rd, MGEN_BYTE, h);
      r.finish();
      return MPI_SUCCESS;
    }
    VBuf s(const_cast<void*>(sendbuf), sendcounts, sdispls, p, sendtype, true);
    VBuf r(recvbuf, recvcounts, rdispls, p, recvtype, false);
    MGEN_Alltoallv(s.data(), s.counts(), s.displs(), MGEN_BYTE, r.data(), r.counts(), r.displs(), MGEN_BYTE, h);
    r.finish();
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Alltoallv)

int PMPI_Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                  MPI_Datatype recvtype, MPI_Comm c) {
  return call("MPI_Alltoall", c, [&] {
    if (is_inter(c)) {
      inter_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, c);
      return MPI_SUCCESS;
    }
    const MGEN_Comm h = comm(c);
    const int p = comm_size(h);
    const bool ip = in_place(sendbuf);
    const DType& rt = dtype(recvtype);
    if (!ip && rt.dense() && dtype(sendtype).dense()) {
      check_count(sendcount);
      check_count(recvcount);
      MGEN_Alltoall(sendbuf, byte_count(dtype(sendtype).size * static_cast<uint64_t>(sendcount)), MGEN_BYTE, recvbuf,
                    byte_count(rt.size * static_cast<uint64_t>(recvcount)), MGEN_BYTE, h);
      return MPI_SUCCESS;
    }
    std::vector<int> sc(p, sendcount), sd(p), rc(p, recvcount), rd(p);
    for (int i = 0; i < p; ++i) {
      sd[i] = i * sendcount;
      rd[i] = i * recvcount;
    }
    return PMPI_Alltoallv(sendbuf, sc.data(), sd.data(), sendtype, recvbuf, rc.data(), rd.data(), recvtype, c);
  });
}
MGEN_MPI_ALIAS(Alltoall)

// Each block its own datatype, displacements in bytes; the exchange itself is Alltoallv's
// (same algorithm, same messages), on the blocks packed to bytes.
int PMPI_Alltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[],
                   void* recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[],
                   MPI_Comm c) {
  return call("MPI_Alltoallw", c, [&] {
    if (is_inter(c)) {
      inter_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, c);
      return MPI_SUCCESS;
    }
    const MGEN_Comm h = comm(c);
    const int p = comm_size(h);
    if (in_place(sendbuf)) {
      // In place: the data to send is what recvbuf holds now, in the receive layout.
      WBuf r(recvbuf, recvcounts, rdispls, recvtypes, p, true);
      const auto* base = static_cast<const std::byte*>(r.data());
      std::vector<std::byte> copy(base, base + layout_end(r.counts(), r.displs(), p));
      MGEN_Alltoallv(copy.data(), r.counts(), r.displs(), MGEN_BYTE, r.data(), r.counts(), r.displs(), MGEN_BYTE, h);
      r.finish();
      return MPI_SUCCESS;
    }
    WBuf s(const_cast<void*>(sendbuf), sendcounts, sdispls, sendtypes, p, true);
    WBuf r(recvbuf, recvcounts, rdispls, recvtypes, p, false);
    MGEN_Alltoallv(s.data(), s.counts(), s.displs(), MGEN_BYTE, r.data(), r.counts(), r.displs(), MGEN_BYTE, h);
    r.finish();
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Alltoallw)

// The MPI-4 large-count form: counts and displacements narrowed to int (mgen's messages stay
// under 2 GiB), then MPI_Alltoallv.
int PMPI_Alltoallv_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[], MPI_Datatype sendtype,
                     void* recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[], MPI_Datatype recvtype,
                     MPI_Comm c) {
  return call("MPI_Alltoallv_c", c, [&] {
    int n = 0;
    if (is_inter(c)) {
      PMPI_Comm_remote_size(c, &n);
    } else {
      n = comm_size(comm(c));
    }
    auto narrow = [n](const auto* a, std::vector<int>& out) -> const int* {
      if (a == nullptr) return nullptr;
      out.resize(static_cast<size_t>(n));
      for (int i = 0; i < n; ++i) {
        if (a[i] > INT32_MAX || a[i] < INT32_MIN) {
          fail(MPI_ERR_COUNT, fmt::format("a count or displacement of {} (beyond 2^31) is not supported", a[i]));
        }
        out[i] = static_cast<int>(a[i]);
      }
      return out.data();
    };
    std::vector<int> sc, sd, rc, rd;
    const bool ip = in_place(sendbuf);  // then the send arrays are not significant
    return PMPI_Alltoallv(sendbuf, ip ? nullptr : narrow(sendcounts, sc), ip ? nullptr : narrow(sdispls, sd), sendtype,
                          recvbuf, narrow(recvcounts, rc), narrow(rdispls, rd), recvtype, c);
  });
}
MGEN_MPI_ALIAS(Alltoallv_c)

// inoutbuf = inbuf op inoutbuf, on this process only (MPI-4.0 §6.9.7): no communication, no
// simulated time beyond the call's own CPU time.
int PMPI_Reduce_local(const void* inbuf, void* inoutbuf, int count, MPI_Datatype t, MPI_Op op) {
  return call("MPI_Reduce_local", MPI_COMM_WORLD, [&] {
    check_count(count);
    const DType& d = dtype(t);
    check_buffer(inbuf, count, d);
    check_buffer(inoutbuf, count, d);
    if (const UserOp* u = user_op(op)) {
      if (!u->used) fail(MPI_ERR_OP, "the operation was freed");
      // The user's function takes the user's datatype, whatever its layout.
      MPI_Datatype type = t;
      int n = count;
      u->fn(const_cast<void*>(inbuf), inoutbuf, &n, &type);
      return MPI_SUCCESS;
    }
    Reduction r = reduction(inbuf, inoutbuf, count, t, op, true);
    // The packed form of inoutbuf (the datatype may not be one byte range), reduced, put back.
    Flat acc = Flat::in(inoutbuf, count, t);
    std::vector<std::byte> work(static_cast<const std::byte*>(acc.data()),
                                static_cast<const std::byte*>(acc.data()) + acc.bytes());
    const std::string problem = reduce_apply(r.op, r.type, r.send.data(), work.data(), static_cast<uint64_t>(r.count));
    if (!problem.empty()) fail(MPI_ERR_OP, problem);
    unpack(work.data(), work.size(), inoutbuf, count, d);
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Reduce_local)

}  // extern "C"

namespace mgen::mpi::abi {

Reduction reduction(const void* sendbuf, void* recvbuf, int count, MPI_Datatype t, MPI_Op op, bool recv_here) {
  Reduction r;
  check_count(count);
  const DType& d = dtype(t);
  if (const UserOp* u = user_op(op)) {
    r.type = reduction_type(t);
    r.count = count;
    r.op = mgen_op(op);
    r.ordered = !u->commute;
  } else {
    r.op = mgen_op(op);
    if (d.base == 0) {
      fail(MPI_ERR_OP, fmt::format("a reduction on {} (not built from one predefined type) needs a user-defined "
                                   "operation",
                                   d.name.empty() ? "a mixed datatype" : d.name));
    }
    r.type = d.base;
    const uint64_t n = d.base_count * static_cast<uint64_t>(count);
    if (n > INT32_MAX) fail(MPI_ERR_COUNT, "more than 2^31 elements");
    r.count = static_cast<int>(n);
  }
  // MPI_IN_PLACE with a type that is not one byte range (MPI_DOUBLE_INT: 12 bytes in 16): the
  // receive buffer's contents, packed, are this rank's input.
  if (in_place(sendbuf)) {
    r.send = d.dense() ? Flat::in(MPI_IN_PLACE, count, t) : Flat::in(recvbuf, count, t);
  } else {
    r.send = Flat::in(sendbuf, count, t);
  }
  r.recv = recv_here ? Flat::out(recvbuf, count, t) : Flat::out(nullptr, 0, t);
  return r;
}

void combine_in_rank_order(const Reduction& r, const std::byte* all, int p) {
  const uint64_t bytes = r.ordered_bytes();
  std::vector<std::byte> acc(all + bytes * static_cast<uint64_t>(p - 1), all + bytes * static_cast<uint64_t>(p));
  for (int i = p - 2; i >= 0; --i) {
    const std::string problem = mgen::mpi::reduce_apply(r.op, r.type, all + bytes * static_cast<uint64_t>(i),
                                                        acc.data(), static_cast<uint64_t>(r.count));
    if (!problem.empty()) fail(MPI_ERR_OP, problem);
  }
  std::memcpy(r.recv.data(), acc.data(), bytes);
}

}  // namespace mgen::mpi::abi
