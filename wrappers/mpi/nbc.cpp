// Non-blocking collectives (MPI-3): each runs the algorithm the blocking call would run, on a
// helper context of the calling rank (World::start_helper) that starts at the caller's clock
// and posts into the rank's own queues, while the program goes on; the request completes when
// the helper finishes. Each binding here builds what its blocking twin in colls.cpp builds
// (packed buffers, the order-preserving path for operations that do not commute) and takes
// its MGEN jobs from the same builders MGEN_X runs (api/coll_jobs.hpp), so MPI_Ix + MPI_Wait
// predicts exactly the time of MPI_X (tests/mpi/nbc_equivalence_test.cpp).
#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <memory>
#include <optional>

#include "api/coll_jobs.hpp"
#include "core/world.hpp"
#include "mpi/coll_args.hpp"
#include "mpi/intercomm.hpp"
#include "mpi/nbc.hpp"

using namespace mgen::mpi;
using namespace mgen::mpi::abi;
using mgen::mpi::api::CollJob;
using mgen::mpi::api::Scope;
using XRequest = mgen::mpi::abi::Request;

namespace {

// A non-blocking collective's own context: the collectives started after it on the same
// communicator, blocking or not, never match its messages. MPI has every member start the
// collectives of a communicator in the same order, so every member numbers them alike; tags
// stay those of the algorithm (they do not affect timing).
uint64_t nbc_context(uint64_t context, uint32_t seq) {
  return (context ^ (uint64_t{0xb5} << 56)) + 2 * (uint64_t{seq} + 1);  // even, as contexts are
}

// Runs on the helper: an error stops the run (there is no call left to return it from).
void run_pending(World& w, Exec& x, NbcPending& p) {
  colls::Channel ch(w, x, p.comm);
  std::string message;
  try {
    p.body(ch);
    return;
  } catch (const api::CallError& e) {
    mgen::runtime::forget_unwound_frames();
    message = e.message;
  } catch (const MpiError& e) {
    mgen::runtime::forget_unwound_frames();
    message = e.message;
  }
  w.fail(fmt::format("rank {}: {}: {}", x.rank, x.call.name ? x.call.name : "a non-blocking collective", message));
}

// Starts the collective `build(scope, pending)` prepares on communicator `c`; *req completes
// when it has finished.
template <class Build>
int start(MPI_Comm c, MPI_Request* req, Build&& build) {
  if (req == nullptr) fail(MPI_ERR_ARG, "the request is null");
  Scope& s = scope();
  auto p = std::make_shared<NbcPending>();
  const MGEN_Comm handle = comm(c);
  p->comm = s.comm(handle);
  RankState& st = state();
  uint32_t seq = 0;
  if (st.persistent_seq >= 0) {
    seq = static_cast<uint32_t>(st.persistent_seq);  // a persistent collective's, from its MPI_X_init
    st.persistent_seq = -1;
  } else {
    seq = st.nbc_seq[c]++;
  }
  p->comm.context = nbc_context(p->comm.context, seq);
  p->body = build(s, *p);
  World& w = s.world();
  // The helper inherits the call: deadlock reports name the communicator it was called on, not
  // the context of its own its messages use.
  w.current_exec().call.comm = handle;
  const uint32_t done = w.start_helper(w.current_exec(), [p, &w](Exec& x) { run_pending(w, x, *p); });
  XRequest* q = nullptr;
  *req = new_request(&q);
  q->kind = XRequest::Kind::kP2P;
  q->inner = static_cast<MGEN_Request>(done) + 1;
  return MPI_SUCCESS;
}

// An intercommunicator's non-blocking collective runs to completion before returning (the
// blocking algorithm of intercomm_colls.cpp): its request is born complete. Overlap with
// computation is lost; matching and results are MPI's.
int inter_now(int rc, MPI_Request* req) {
  if (rc != MPI_SUCCESS) return rc;
  completed_request(req);
  return MPI_SUCCESS;
}

// The plans below mirror the blocking bindings of colls.cpp, step for step.

// Every input to `root`, combined there in rank order (colls.cpp: ordered_reduce).
CollJob ordered_reduce_plan(Scope& s, NbcPending& p, const Reduction& r, int root) {
  const int n = p.comm.size(), me = p.comm.rank;
  const uint64_t bytes = r.ordered_bytes();
  std::vector<std::byte>& all = p.temps.emplace_back(me == root ? bytes * static_cast<uint64_t>(n) : 0);
  CollJob gather = api::gather_job(s, p.comm, r.ordered_input(), byte_count(bytes), MGEN_BYTE, all.data(),
                                   byte_count(bytes), MGEN_BYTE, root);
  return [gather, &r, &all, n, at_root = me == root](colls::Channel& ch) {
    gather(ch);
    if (at_root) combine_in_rank_order(r, all.data(), n);
  };
}

CollJob bcast_plan(Scope& s, NbcPending& p, void* buf, int count, MPI_Datatype t, int root) {
  const bool at_root = p.comm.rank == root;
  Flat& f = p.flats.emplace_back(at_root ? Flat::in(buf, count, t) : Flat::out(buf, count, t));
  CollJob job = api::bcast_job(s, p.comm, f.data(), byte_count(f.bytes()), MGEN_BYTE, root);
  return [job, &f, at_root](colls::Channel& ch) {
    job(ch);
    if (!at_root) f.finish();
  };
}

CollJob reduce_plan(Scope& s, NbcPending& p, const void* sendbuf, void* recvbuf, int count, MPI_Datatype t, MPI_Op op,
                    int root) {
  const bool at_root = p.comm.rank == root;
  Reduction& r = p.red.emplace(reduction(sendbuf, recvbuf, count, t, op, at_root));
  CollJob job = r.ordered ? ordered_reduce_plan(s, p, r, root)
                          : api::reduce_job(s, p.comm, r.send.data(), at_root ? r.recv.data() : nullptr, r.count,
                                            r.type, r.op, root);
  return [job, &r, at_root](colls::Channel& ch) {
    job(ch);
    if (at_root) r.recv.finish();
  };
}

CollJob allreduce_plan(Scope& s, NbcPending& p, const void* sendbuf, void* recvbuf, int count, MPI_Datatype t,
                       MPI_Op op) {
  Reduction& r = p.red.emplace(reduction(sendbuf, recvbuf, count, t, op, true));
  CollJob job;
  if (r.ordered) {
    CollJob reduce = ordered_reduce_plan(s, p, r, 0);
    CollJob bcast = api::bcast_job(s, p.comm, r.recv.data(), byte_count(r.recv.bytes()), MGEN_BYTE, 0);
    job = [reduce, bcast](colls::Channel& ch) {
      reduce(ch);
      bcast(ch);
    };
  } else {
    job = api::allreduce_job(s, p.comm, r.send.data(), r.recv.data(), r.count, r.type, r.op);
  }
  return [job, &r](colls::Channel& ch) {
    job(ch);
    r.recv.finish();
  };
}

CollJob scan_plan(Scope& s, NbcPending& p, const void* sendbuf, void* recvbuf, int count, MPI_Datatype t, MPI_Op op,
                  bool exclusive) {
  Reduction& r = p.red.emplace(reduction(sendbuf, recvbuf, count, t, op, true));
  // Selection only: with_order must not be held across a blocking call (colls.cpp).
  CollJob job;
  with_order(r.ordered, [&] {
    job = exclusive ? api::exscan_job(s, p.comm, r.send.data(), r.recv.data(), r.count, r.type, r.op)
                    : api::scan_job(s, p.comm, r.send.data(), r.recv.data(), r.count, r.type, r.op);
  });
  const bool unpack = !exclusive || p.comm.rank > 0;  // exscan leaves rank 0's buffer alone
  return [job, &r, unpack](colls::Channel& ch) {
    job(ch);
    if (unpack) r.recv.finish();
  };
}

CollJob gatherv_plan(Scope& s, NbcPending& p, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                     const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root) {
  const bool at_root = p.comm.rank == root;
  const bool ip = in_place(sendbuf);
  if (ip && !at_root) fail(MPI_ERR_BUFFER, "MPI_IN_PLACE is only valid at the root");
  Flat& f = p.flats.emplace_back(ip ? Flat::in(MPI_IN_PLACE, 0, recvtype) : Flat::in(sendbuf, sendcount, sendtype));
  if (!at_root) {
    return api::gatherv_job(s, p.comm, f.data(), byte_count(f.bytes()), MGEN_BYTE, nullptr, nullptr, nullptr, MGEN_BYTE,
                            root);
  }
  VBuf& r = p.vbufs.emplace_back(recvbuf, recvcounts, displs, p.comm.size(), recvtype, ip);
  CollJob job = api::gatherv_job(s, p.comm, ip ? MGEN_IN_PLACE : f.data(), byte_count(f.bytes()), MGEN_BYTE, r.data(),
                                 r.counts(), r.displs(), MGEN_BYTE, root);
  return [job, &r](colls::Channel& ch) {
    job(ch);
    r.finish();
  };
}

CollJob scatterv_plan(Scope& s, NbcPending& p, const void* sendbuf, const int sendcounts[], const int displs[],
                      MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, int root) {
  const bool at_root = p.comm.rank == root;
  const bool ip = in_place(recvbuf);
  if (ip && !at_root) fail(MPI_ERR_BUFFER, "MPI_IN_PLACE is only valid at the root");
  Flat& f = p.flats.emplace_back(ip ? Flat::out(MPI_IN_PLACE, 0, sendtype) : Flat::out(recvbuf, recvcount, recvtype));
  CollJob job;
  if (at_root) {
    VBuf& v = p.vbufs.emplace_back(const_cast<void*>(sendbuf), sendcounts, displs, p.comm.size(), sendtype, true);
    job = api::scatterv_job(s, p.comm, v.data(), v.counts(), v.displs(), MGEN_BYTE, ip ? MGEN_IN_PLACE : f.data(),
                            byte_count(f.bytes()), MGEN_BYTE, root);
  } else {
    job = api::scatterv_job(s, p.comm, nullptr, nullptr, nullptr, MGEN_BYTE, f.data(), byte_count(f.bytes()), MGEN_BYTE,
                            root);
  }
  return [job, &f, ip](colls::Channel& ch) {
    job(ch);
    if (!ip) f.finish();
  };
}

CollJob allgatherv_plan(Scope& s, NbcPending& p, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                        void* recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype) {
  const bool ip = in_place(sendbuf);
  Flat& f = p.flats.emplace_back(ip ? Flat::in(MPI_IN_PLACE, 0, recvtype) : Flat::in(sendbuf, sendcount, sendtype));
  VBuf& r = p.vbufs.emplace_back(recvbuf, recvcounts, displs, p.comm.size(), recvtype, ip);
  CollJob job = api::allgatherv_job(s, p.comm, ip ? MGEN_IN_PLACE : f.data(), byte_count(f.bytes()), MGEN_BYTE,
                                    r.data(), r.counts(), r.displs(), MGEN_BYTE);
  return [job, &r](colls::Channel& ch) {
    job(ch);
    r.finish();
  };
}

CollJob alltoallv_plan(Scope& s, NbcPending& p, const void* sendbuf, const int sendcounts[], const int sdispls[],
                       MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int rdispls[],
                       MPI_Datatype recvtype) {
  const int n = p.comm.size();
  CollJob job;
  VBuf* out = nullptr;
  if (in_place(sendbuf)) {
    // In place: the data to send is what recvbuf holds now.
    VBuf& r = p.vbufs.emplace_back(recvbuf, recvcounts, rdispls, n, recvtype, true);
    const int* rc = r.counts();
    const int* rd = r.displs();
    uint64_t end = 0;
    for (int i = 0; i < n; ++i)
      end = std::max<uint64_t>(end, static_cast<uint64_t>(rd[i]) + static_cast<uint64_t>(rc[i]));
    std::vector<std::byte>& copy =
        p.temps.emplace_back(static_cast<std::byte*>(r.data()), static_cast<std::byte*>(r.data()) + end);
    job = api::alltoallv_job(s, p.comm, copy.data(), rc, rd, MGEN_BYTE, r.data(), rc, rd, MGEN_BYTE);
    out = &r;
  } else {
    VBuf& v = p.vbufs.emplace_back(const_cast<void*>(sendbuf), sendcounts, sdispls, n, sendtype, true);
    VBuf& r = p.vbufs.emplace_back(recvbuf, recvcounts, rdispls, n, recvtype, false);
    job = api::alltoallv_job(s, p.comm, v.data(), v.counts(), v.displs(), MGEN_BYTE, r.data(), r.counts(), r.displs(),
                             MGEN_BYTE);
    out = &r;
  }
  return [job, out](colls::Channel& ch) {
    job(ch);
    out->finish();
  };
}

// MPI_Alltoallw as alltoallv_plan, the blocks of each rank packed to bytes (colls.cpp).
CollJob alltoallw_plan(Scope& s, NbcPending& p, const void* sendbuf, const int sendcounts[], const int sdispls[],
                       const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[], const int rdispls[],
                       const MPI_Datatype recvtypes[]) {
  const int n = p.comm.size();
  WBuf* out = nullptr;
  CollJob job;
  if (in_place(sendbuf)) {
    WBuf& r = p.wbufs.emplace_back(recvbuf, recvcounts, rdispls, recvtypes, n, true);
    const auto* base = static_cast<const std::byte*>(r.data());
    std::vector<std::byte>& copy = p.temps.emplace_back(base, base + layout_end(r.counts(), r.displs(), n));
    job = api::alltoallv_job(s, p.comm, copy.data(), r.counts(), r.displs(), MGEN_BYTE, r.data(), r.counts(),
                             r.displs(), MGEN_BYTE);
    out = &r;
  } else {
    WBuf& v = p.wbufs.emplace_back(const_cast<void*>(sendbuf), sendcounts, sdispls, sendtypes, n, true);
    WBuf& r = p.wbufs.emplace_back(recvbuf, recvcounts, rdispls, recvtypes, n, false);
    job = api::alltoallv_job(s, p.comm, v.data(), v.counts(), v.displs(), MGEN_BYTE, r.data(), r.counts(), r.displs(),
                             MGEN_BYTE);
    out = &r;
  }
  return [job, out](colls::Channel& ch) {
    job(ch);
    out->finish();
  };
}

CollJob reduce_scatter_plan(Scope& s, NbcPending& p, const void* sendbuf, void* recvbuf, const int recvcounts[],
                            MPI_Datatype t, MPI_Op op) {
  const int n = p.comm.size(), me = p.comm.rank;
  int total = 0;
  for (int i = 0; i < n; ++i) {
    check_count(recvcounts[i]);
    total += recvcounts[i];
  }
  const DType& d = dtype(t);
  const UserOp* u = user_op(op);
  if ((u != nullptr && !u->commute) || !d.dense()) {
    // Order-preserving or non-contiguous: a reduce to rank 0 then a scatterv.
    std::vector<std::byte>& all = p.temps.emplace_back(d.extent() * static_cast<uint64_t>(total) + 1);
    std::vector<int> displs(n, 0);
    for (int i = 1; i < n; ++i)
      displs[i] = displs[i - 1] + recvcounts[i - 1];
    const void* src = in_place(sendbuf) ? recvbuf : sendbuf;
    CollJob reduce = reduce_plan(s, p, src, me == 0 ? all.data() : nullptr, total, t, op, 0);
    CollJob scatter = scatterv_plan(s, p, all.data(), recvcounts, displs.data(), t, recvbuf, recvcounts[me], t, 0);
    // The root's scatter layout packed `all` before the reduction filled it: packed again
    // in between (the blocking form runs one call after the other).
    VBuf* staged = me == 0 ? &p.vbufs.back() : nullptr;
    return [reduce, scatter, staged](colls::Channel& ch) {
      reduce(ch);
      if (staged != nullptr) staged->repack();
      scatter(ch);
    };
  }
  Reduction& r = p.red.emplace(reduction(sendbuf, recvbuf, total, t, op, false));
  std::vector<int> counts(n);
  const uint64_t per = u != nullptr ? 1 : d.base_count;
  for (int i = 0; i < n; ++i)
    counts[i] = static_cast<int>(static_cast<uint64_t>(recvcounts[i]) * per);
  return api::reduce_scatter_job(s, p.comm, r.send.data(), recvbuf, counts.data(), r.type, r.op);
}

std::vector<int> repeated(int n, int value) {
  return std::vector<int>(static_cast<size_t>(n), value);
}
std::vector<int> strided(int n, int stride) {
  std::vector<int> d(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i)
    d[i] = i * stride;
  return d;
}

}  // namespace

extern "C" {

int PMPI_Ibarrier(MPI_Comm c, MPI_Request* req) {
  return call("MPI_Ibarrier", c, [&] {
    if (is_inter(c)) return inter_now(PMPI_Barrier(c), req);
    return start(c, req, [&](Scope& s, NbcPending& p) { return api::barrier_job(s, p.comm); });
  });
}
MGEN_MPI_ALIAS(Ibarrier)

int PMPI_Ibcast(void* buf, int count, MPI_Datatype t, int root, MPI_Comm c, MPI_Request* req) {
  return call("MPI_Ibcast", c, [&] {
    if (is_inter(c)) return inter_now(PMPI_Bcast(buf, count, t, root, c), req);
    return start(c, req, [&](Scope& s, NbcPending& p) { return bcast_plan(s, p, buf, count, t, root); });
  });
}
MGEN_MPI_ALIAS(Ibcast)

int PMPI_Ireduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype t, MPI_Op op, int root, MPI_Comm c,
                 MPI_Request* req) {
  return call("MPI_Ireduce", c, [&] {
    if (is_inter(c)) return inter_now(PMPI_Reduce(sendbuf, recvbuf, count, t, op, root, c), req);
    return start(c, req,
                 [&](Scope& s, NbcPending& p) { return reduce_plan(s, p, sendbuf, recvbuf, count, t, op, root); });
  });
}
MGEN_MPI_ALIAS(Ireduce)

int PMPI_Iallreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype t, MPI_Op op, MPI_Comm c,
                    MPI_Request* req) {
  return call("MPI_Iallreduce", c, [&] {
    if (is_inter(c)) return inter_now(PMPI_Allreduce(sendbuf, recvbuf, count, t, op, c), req);
    return start(c, req, [&](Scope& s, NbcPending& p) { return allreduce_plan(s, p, sendbuf, recvbuf, count, t, op); });
  });
}
MGEN_MPI_ALIAS(Iallreduce)

int PMPI_Iscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype t, MPI_Op op, MPI_Comm c, MPI_Request* req) {
  return call("MPI_Iscan", c, [&] {
    return start(c, req,
                 [&](Scope& s, NbcPending& p) { return scan_plan(s, p, sendbuf, recvbuf, count, t, op, false); });
  });
}
MGEN_MPI_ALIAS(Iscan)

int PMPI_Iexscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype t, MPI_Op op, MPI_Comm c,
                 MPI_Request* req) {
  return call("MPI_Iexscan", c, [&] {
    return start(c, req,
                 [&](Scope& s, NbcPending& p) { return scan_plan(s, p, sendbuf, recvbuf, count, t, op, true); });
  });
}
MGEN_MPI_ALIAS(Iexscan)

int PMPI_Ireduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[], MPI_Datatype t, MPI_Op op,
                         MPI_Comm c, MPI_Request* req) {
  return call("MPI_Ireduce_scatter", c, [&] {
    if (is_inter(c)) return inter_now(PMPI_Reduce_scatter(sendbuf, recvbuf, recvcounts, t, op, c), req);
    return start(c, req, [&](Scope& s, NbcPending& p) {
      return reduce_scatter_plan(s, p, sendbuf, recvbuf, recvcounts, t, op);
    });
  });
}
MGEN_MPI_ALIAS(Ireduce_scatter)

int PMPI_Ireduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype t, MPI_Op op, MPI_Comm c,
                               MPI_Request* req) {
  return call("MPI_Ireduce_scatter_block", c, [&] {
    if (is_inter(c)) return inter_now(PMPI_Reduce_scatter_block(sendbuf, recvbuf, recvcount, t, op, c), req);
    return start(c, req, [&](Scope& s, NbcPending& p) {
      const std::vector<int> counts = repeated(p.comm.size(), recvcount);
      return reduce_scatter_plan(s, p, sendbuf, recvbuf, counts.data(), t, op);
    });
  });
}
MGEN_MPI_ALIAS(Ireduce_scatter_block)

int PMPI_Igatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                  const int displs[], MPI_Datatype recvtype, int root, MPI_Comm c, MPI_Request* req) {
  return call("MPI_Igatherv", c, [&] {
    if (is_inter(c))
      return inter_now(PMPI_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, c), req);
    return start(c, req, [&](Scope& s, NbcPending& p) {
      return gatherv_plan(s, p, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root);
    });
  });
}
MGEN_MPI_ALIAS(Igatherv)

int PMPI_Igather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                 MPI_Datatype recvtype, int root, MPI_Comm c, MPI_Request* req) {
  return call("MPI_Igather", c, [&] {
    if (is_inter(c))
      return inter_now(PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, c), req);
    return start(c, req, [&](Scope& s, NbcPending& p) {
      if (p.comm.rank != root) {
        return gatherv_plan(s, p, sendbuf, sendcount, sendtype, nullptr, nullptr, nullptr, recvtype, root);
      }
      const int n = p.comm.size();
      const std::vector<int> counts = repeated(n, recvcount), displs = strided(n, recvcount);
      return gatherv_plan(s, p, sendbuf, sendcount, sendtype, recvbuf, counts.data(), displs.data(), recvtype, root);
    });
  });
}
MGEN_MPI_ALIAS(Igather)

int PMPI_Iscatterv(const void* sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                   void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm c, MPI_Request* req) {
  return call("MPI_Iscatterv", c, [&] {
    if (is_inter(c))
      return inter_now(PMPI_Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, c),
                       req);
    return start(c, req, [&](Scope& s, NbcPending& p) {
      return scatterv_plan(s, p, sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root);
    });
  });
}
MGEN_MPI_ALIAS(Iscatterv)

int PMPI_Iscatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                  MPI_Datatype recvtype, int root, MPI_Comm c, MPI_Request* req) {
  return call("MPI_Iscatter", c, [&] {
    if (is_inter(c))
      return inter_now(PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, c), req);
    return start(c, req, [&](Scope& s, NbcPending& p) {
      if (p.comm.rank != root) {
        return scatterv_plan(s, p, nullptr, nullptr, nullptr, sendtype, recvbuf, recvcount, recvtype, root);
      }
      const int n = p.comm.size();
      const std::vector<int> counts = repeated(n, sendcount), displs = strided(n, sendcount);
      return scatterv_plan(s, p, sendbuf, counts.data(), displs.data(), sendtype, recvbuf, recvcount, recvtype, root);
    });
  });
}
MGEN_MPI_ALIAS(Iscatter)

int PMPI_Iallgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                     const int displs[], MPI_Datatype recvtype, MPI_Comm c, MPI_Request* req) {
  return call("MPI_Iallgatherv", c, [&] {
    if (is_inter(c))
      return inter_now(PMPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, c), req);
    return start(c, req, [&](Scope& s, NbcPending& p) {
      return allgatherv_plan(s, p, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype);
    });
  });
}
MGEN_MPI_ALIAS(Iallgatherv)

int PMPI_Iallgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                    MPI_Datatype recvtype, MPI_Comm c, MPI_Request* req) {
  return call("MPI_Iallgather", c, [&] {
    if (is_inter(c))
      return inter_now(PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, c), req);
    return start(c, req, [&](Scope& s, NbcPending& p) -> CollJob {
      const DType& rt = dtype(recvtype);
      if (rt.dense()) {
        // The regular form, as MPI_Allgather takes it.
        const bool ip = in_place(sendbuf);
        Flat& f =
            p.flats.emplace_back(ip ? Flat::in(MPI_IN_PLACE, 0, recvtype) : Flat::in(sendbuf, sendcount, sendtype));
        check_count(recvcount);
        return api::allgather_job(s, p.comm, ip ? MGEN_IN_PLACE : f.data(), byte_count(f.bytes()), MGEN_BYTE, recvbuf,
                                  byte_count(rt.size * static_cast<uint64_t>(recvcount)), MGEN_BYTE);
      }
      const int n = p.comm.size();
      const std::vector<int> counts = repeated(n, recvcount), displs = strided(n, recvcount);
      return allgatherv_plan(s, p, sendbuf, sendcount, sendtype, recvbuf, counts.data(), displs.data(), recvtype);
    });
  });
}
MGEN_MPI_ALIAS(Iallgather)

int PMPI_Ialltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                    void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm c,
                    MPI_Request* req) {
  return call("MPI_Ialltoallv", c, [&] {
    if (is_inter(c))
      return inter_now(
          PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, c), req);
    return start(c, req, [&](Scope& s, NbcPending& p) {
      return alltoallv_plan(s, p, sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype);
    });
  });
}
MGEN_MPI_ALIAS(Ialltoallv)

int PMPI_Ialltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                   MPI_Datatype recvtype, MPI_Comm c, MPI_Request* req) {
  return call("MPI_Ialltoall", c, [&] {
    if (is_inter(c))
      return inter_now(PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, c), req);
    return start(c, req, [&](Scope& s, NbcPending& p) -> CollJob {
      const DType& rt = dtype(recvtype);
      if (!in_place(sendbuf) && rt.dense() && dtype(sendtype).dense()) {
        check_count(sendcount);
        check_count(recvcount);
        return api::alltoall_job(s, p.comm, sendbuf,
                                 byte_count(dtype(sendtype).size * static_cast<uint64_t>(sendcount)), MGEN_BYTE,
                                 recvbuf, byte_count(rt.size * static_cast<uint64_t>(recvcount)), MGEN_BYTE);
      }
      const int n = p.comm.size();
      const std::vector<int> sc = repeated(n, sendcount), sd = strided(n, sendcount);
      const std::vector<int> rc = repeated(n, recvcount), rd = strided(n, recvcount);
      return alltoallv_plan(s, p, sendbuf, sc.data(), sd.data(), sendtype, recvbuf, rc.data(), rd.data(), recvtype);
    });
  });
}
MGEN_MPI_ALIAS(Ialltoall)

int PMPI_Ialltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[],
                    void* recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[],
                    MPI_Comm c, MPI_Request* req) {
  return call("MPI_Ialltoallw", c, [&] {
    if (is_inter(c))
      return inter_now(
          PMPI_Alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, c), req);
    return start(c, req, [&](Scope& s, NbcPending& p) {
      return alltoallw_plan(s, p, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes);
    });
  });
}
MGEN_MPI_ALIAS(Ialltoallw)

}  // extern "C"

namespace mgen::mpi::abi {

int start_nbc(MPI_Comm c, MPI_Request* req, const std::function<CollJob(Scope&, NbcPending&)>& build) {
  return start(c, req, build);
}

}  // namespace mgen::mpi::abi
