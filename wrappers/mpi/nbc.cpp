// Non-blocking collectives (MPI-3): schedules of rounds, built here and advanced by the
// progress calls in shim.cpp. The algorithms are the simple ones MPICH's schedules use for
// small communicators: dissemination barrier, binomial broadcast, linear gathers, scatters
// and exchanges, reductions at rank 0 in rank order (right for non-commutative operations).
#include "mpi/nbc.hpp"

#include <fmt/format.h>

#include "core/datatype.hpp"
#include "core/world.hpp"

using namespace mgen::mpi;
using namespace mgen::mpi::abi;
using XRequest = mgen::mpi::abi::Request;

namespace mgen::mpi::abi {

bool advance(Nbc& n) {
  if (n.done) return true;
  World& w = scope().world();
  Rank& r = scope().rank();
  for (;;) {
    for (uint32_t q : n.inflight) {
      if (!r.requests[q].complete) return false;
    }
    for (uint32_t q : n.inflight)
      r.free_request_slot(q);
    n.inflight.clear();
    if (n.next > 0 && n.rounds[n.next - 1].after) {
      auto after = std::move(n.rounds[n.next - 1].after);
      n.rounds[n.next - 1].after = nullptr;
      after();
    }
    if (n.next == n.rounds.size()) {
      if (n.on_done) n.on_done();
      n.done = true;
      return true;
    }
    NbcRound& rd = n.rounds[n.next++];
    for (const NbcStep& s : rd.steps) {
      const uint32_t q =
          s.send ? w.post_send(r, s.buf, s.bytes, n.comm.world(s.peer), n.tag, n.comm, n.context, true)
                 : w.post_recv(r, s.buf, s.bytes, static_cast<int>(n.comm.world(s.peer)), n.tag, n.context, true);
      n.inflight.push_back(q);
    }
  }
}

}  // namespace mgen::mpi::abi

namespace {

// A new schedule on communicator `c`, registered as an active request.
Nbc& begin(MPI_Comm c, MPI_Request* req) {
  const MGEN_Comm h = comm(c);
  XRequest* q = nullptr;
  *req = new_request(&q);
  q->kind = XRequest::Kind::kNbc;
  q->nbc = std::make_unique<Nbc>();
  Nbc& n = *q->nbc;
  n.comm = *scope().rank().comms[h];
  n.context = n.comm.coll_context() ^ (uint64_t{1} << 62);
  n.tag = static_cast<int>(state().nbc_seq[c]++ & 0x3fffffff);
  return n;
}

// Registers the schedule and posts its first round.
int launch(MPI_Request req) {
  RankState& st = state();
  const uint32_t i = static_cast<uint32_t>(req) & 0x03ffffffu;
  st.active_nbc.push_back(i);
  progress_nbc();
  return MPI_SUCCESS;
}

int rank_of(const Nbc& n) {
  return n.comm.rank;
}
int size_of(const Nbc& n) {
  return n.comm.size();
}

// A reduction's element type and count in MGEN terms, and whether order matters.
struct Red {
  int type, op;
  uint64_t count;
  bool ordered;
};

Red red(int count, MPI_Datatype t, MPI_Op op) {
  check_count(count);
  const DType& d = dtype(t);
  if (const UserOp* u = user_op(op)) {
    if (!d.dense()) fail(MPI_ERR_TYPE, "user-defined operations on non-contiguous datatypes are not supported");
    return Red{reduction_type(t), mgen_op(op), static_cast<uint64_t>(count), !u->commute};
  }
  if (d.base == 0) fail(MPI_ERR_OP, "a reduction on a mixed datatype needs a user-defined operation");
  return Red{d.base, mgen_op(op), d.base_count * static_cast<uint64_t>(count), false};
}

void apply(const Red& r, const void* in, void* inout) {
  const std::string problem = reduce_apply(r.op, r.type, in, inout, r.count);
  if (!problem.empty()) fail(MPI_ERR_OP, problem);
}

// Binomial broadcast of `bytes` at `buf` from `root`: the receive round, then the sends.
void bcast_rounds(Nbc& n, std::byte* buf, uint64_t bytes, int root) {
  const int p = size_of(n), me = rank_of(n);
  const int v = (me - root + p) % p;
  NbcRound& down = n.round();
  if (v != 0) {
    int high = 1;
    while (high * 2 <= v)
      high *= 2;
    down.steps.push_back({false, buf, bytes, (v - high + root) % p});
  }
  NbcRound& out = n.round();
  for (int m = 1; m < p; m <<= 1) {
    if (v < m && v + m < p) out.steps.push_back({true, buf, bytes, (v + m + root) % p});
  }
}

// Everyone's `bytes` to `root`, reduced there in rank order into `acc` (root only).
void reduce_rounds(Nbc& n, const Red& r, std::byte* mine, std::byte* acc, uint64_t bytes, int root) {
  const int p = size_of(n), me = rank_of(n);
  NbcRound& in = n.round();
  if (me != root) {
    in.steps.push_back({true, mine, bytes, root});
    return;
  }
  std::vector<std::byte*> parts(p);
  for (int i = 0; i < p; ++i) {
    parts[i] = i == me ? mine : n.temp(bytes);
    if (i != me) in.steps.push_back({false, parts[i], bytes, i});
  }
  in.after = [r, parts, acc, bytes, p] {
    // acc = x0 op (x1 op (... op x_{p-1})): the order MPI defines.
    std::memcpy(acc, parts[p - 1], bytes);
    for (int i = p - 2; i >= 0; --i)
      apply(r, parts[i], acc);
  };
}

}  // namespace

extern "C" {

int PMPI_Ibarrier(MPI_Comm c, MPI_Request* req) {
  return call("MPI_Ibarrier", c, [&] {
    Nbc& n = begin(c, req);
    const int p = size_of(n), me = rank_of(n);
    for (int k = 1; k < p; k <<= 1) {
      NbcRound& rd = n.round();
      rd.steps.push_back({false, nullptr, 0, (me - k + p) % p});
      rd.steps.push_back({true, nullptr, 0, (me + k) % p});
    }
    return launch(*req);
  });
}
MGEN_MPI_ALIAS(Ibarrier)

int PMPI_Ibcast(void* buf, int count, MPI_Datatype t, int root, MPI_Comm c, MPI_Request* req) {
  return call("MPI_Ibcast", c, [&] {
    Nbc& n = begin(c, req);
    if (root < 0 || root >= size_of(n)) fail(MPI_ERR_ROOT, fmt::format("invalid root {}", root));
    const bool at_root = rank_of(n) == root;
    n.flats.push_back(at_root ? Flat::in(buf, count, t) : Flat::out(buf, count, t));
    Flat& f = n.flats.back();
    bcast_rounds(n, static_cast<std::byte*>(f.data()), f.bytes(), root);
    if (!at_root) n.on_done = [&f] { f.finish(); };
    return launch(*req);
  });
}
MGEN_MPI_ALIAS(Ibcast)

int PMPI_Ireduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype t, MPI_Op op, int root, MPI_Comm c,
                 MPI_Request* req) {
  return call("MPI_Ireduce", c, [&] {
    Nbc& n = begin(c, req);
    if (root < 0 || root >= size_of(n)) fail(MPI_ERR_ROOT, fmt::format("invalid root {}", root));
    const Red r = red(count, t, op);
    const bool at_root = rank_of(n) == root;
    const void* src = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
    n.flats.reserve(2);
    n.flats.push_back(Flat::in(src, count, t));
    const uint64_t bytes = n.flats.back().bytes();
    std::byte* mine = n.temp(bytes);
    std::memcpy(mine, n.flats.back().data(), bytes);
    std::byte* acc = nullptr;
    if (at_root) {
      n.flats.push_back(Flat::out(recvbuf, count, t));
      acc = static_cast<std::byte*>(n.flats.back().data());
      Flat* out = &n.flats.back();
      n.on_done = [out] { out->finish(); };
    }
    reduce_rounds(n, r, mine, acc, bytes, root);
    return launch(*req);
  });
}
MGEN_MPI_ALIAS(Ireduce)

int PMPI_Iallreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype t, MPI_Op op, MPI_Comm c,
                    MPI_Request* req) {
  return call("MPI_Iallreduce", c, [&] {
    Nbc& n = begin(c, req);
    const Red r = red(count, t, op);
    const void* src = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
    n.flats.reserve(2);
    n.flats.push_back(Flat::in(src, count, t));
    const uint64_t bytes = n.flats.back().bytes();
    std::byte* mine = n.temp(bytes);
    std::memcpy(mine, n.flats.back().data(), bytes);
    n.flats.push_back(Flat::out(recvbuf, count, t));
    Flat* out = &n.flats.back();
    std::byte* acc = static_cast<std::byte*>(out->data());
    reduce_rounds(n, r, mine, acc, bytes, 0);
    bcast_rounds(n, acc, bytes, 0);
    n.on_done = [out] { out->finish(); };
    return launch(*req);
  });
}
MGEN_MPI_ALIAS(Iallreduce)

int PMPI_Igatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                  const int displs[], MPI_Datatype recvtype, int root, MPI_Comm c, MPI_Request* req) {
  return call("MPI_Igatherv", c, [&] {
    Nbc& n = begin(c, req);
    const int p = size_of(n), me = rank_of(n);
    if (root < 0 || root >= p) fail(MPI_ERR_ROOT, fmt::format("invalid root {}", root));
    NbcRound& rd = n.round();
    if (me != root) {
      n.flats.push_back(Flat::in(sendbuf, sendcount, sendtype));
      rd.steps.push_back({true, n.flats.back().data(), n.flats.back().bytes(), root});
      return launch(*req);
    }
    const DType& rt = dtype(recvtype);
    n.flats.reserve(static_cast<size_t>(p) + 1);
    for (int i = 0; i < p; ++i) {
      void* at = static_cast<std::byte*>(recvbuf) + static_cast<int64_t>(displs[i]) * rt.extent();
      if (i == me) {
        if (sendbuf != MPI_IN_PLACE) {
          Flat s = Flat::in(sendbuf, sendcount, sendtype);
          std::vector<std::byte> copy(static_cast<std::byte*>(s.data()), static_cast<std::byte*>(s.data()) + s.bytes());
          unpack(copy.data(), copy.size(), at, recvcounts[i], rt);
        }
        continue;
      }
      n.flats.push_back(Flat::out(at, recvcounts[i], recvtype));
      rd.steps.push_back({false, n.flats.back().data(), n.flats.back().bytes(), i});
    }
    n.on_done = [&n] {
      for (Flat& f : n.flats)
        f.finish();
    };
    return launch(*req);
  });
}
MGEN_MPI_ALIAS(Igatherv)

int PMPI_Igather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                 MPI_Datatype recvtype, int root, MPI_Comm c, MPI_Request* req) {
  return call("MPI_Igather", c, [&] {
    int p = 0;
    PMPI_Comm_size(c, &p);
    std::vector<int> counts(p, recvcount), displs(p);
    for (int i = 0; i < p; ++i)
      displs[i] = i * recvcount;
    return PMPI_Igatherv(sendbuf, sendcount, sendtype, recvbuf, counts.data(), displs.data(), recvtype, root, c, req);
  });
}
MGEN_MPI_ALIAS(Igather)

int PMPI_Iscatterv(const void* sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                   void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm c, MPI_Request* req) {
  return call("MPI_Iscatterv", c, [&] {
    Nbc& n = begin(c, req);
    const int p = size_of(n), me = rank_of(n);
    if (root < 0 || root >= p) fail(MPI_ERR_ROOT, fmt::format("invalid root {}", root));
    NbcRound& rd = n.round();
    if (me != root) {
      n.flats.push_back(Flat::out(recvbuf, recvcount, recvtype));
      rd.steps.push_back({false, n.flats.back().data(), n.flats.back().bytes(), root});
      n.on_done = [&n] { n.flats.back().finish(); };
      return launch(*req);
    }
    const DType& st = dtype(sendtype);
    n.flats.reserve(static_cast<size_t>(p));
    for (int i = 0; i < p; ++i) {
      const void* at = static_cast<const std::byte*>(sendbuf) + static_cast<int64_t>(displs[i]) * st.extent();
      if (i == me) {
        if (recvbuf != MPI_IN_PLACE) {
          Flat s = Flat::in(at, sendcounts[i], sendtype);
          Flat r = Flat::out(recvbuf, recvcount, recvtype);
          std::memcpy(r.data(), s.data(), std::min(s.bytes(), r.bytes()));
          r.finish();
        }
        continue;
      }
      n.flats.push_back(Flat::in(at, sendcounts[i], sendtype));
      rd.steps.push_back({true, n.flats.back().data(), n.flats.back().bytes(), i});
    }
    return launch(*req);
  });
}
MGEN_MPI_ALIAS(Iscatterv)

int PMPI_Iscatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                  MPI_Datatype recvtype, int root, MPI_Comm c, MPI_Request* req) {
  return call("MPI_Iscatter", c, [&] {
    int p = 0;
    PMPI_Comm_size(c, &p);
    std::vector<int> counts(p, sendcount), displs(p);
    for (int i = 0; i < p; ++i)
      displs[i] = i * sendcount;
    return PMPI_Iscatterv(sendbuf, counts.data(), displs.data(), sendtype, recvbuf, recvcount, recvtype, root, c, req);
  });
}
MGEN_MPI_ALIAS(Iscatter)

int PMPI_Ialltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                    void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm c,
                    MPI_Request* req) {
  return call("MPI_Ialltoallv", c, [&] {
    if (sendbuf == MPI_IN_PLACE) fail(MPI_ERR_BUFFER, "MPI_IN_PLACE in MPI_Ialltoall(v) is not supported");
    Nbc& n = begin(c, req);
    const int p = size_of(n);
    const DType& st = dtype(sendtype);
    const DType& rt = dtype(recvtype);
    NbcRound& rd = n.round();
    n.flats.reserve(2 * static_cast<size_t>(p));
    for (int i = 0; i < p; ++i) {
      n.flats.push_back(Flat::out(static_cast<std::byte*>(recvbuf) + static_cast<int64_t>(rdispls[i]) * rt.extent(),
                                  recvcounts[i], recvtype));
      rd.steps.push_back({false, n.flats.back().data(), n.flats.back().bytes(), i});
    }
    for (int i = 0; i < p; ++i) {
      n.flats.push_back(
          Flat::in(static_cast<const std::byte*>(sendbuf) + static_cast<int64_t>(sdispls[i]) * st.extent(),
                   sendcounts[i], sendtype));
      rd.steps.push_back({true, n.flats.back().data(), n.flats.back().bytes(), i});
    }
    n.on_done = [&n, p] {
      for (int i = 0; i < p; ++i)
        n.flats[i].finish();
    };
    return launch(*req);
  });
}
MGEN_MPI_ALIAS(Ialltoallv)

int PMPI_Ialltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                   MPI_Datatype recvtype, MPI_Comm c, MPI_Request* req) {
  return call("MPI_Ialltoall", c, [&] {
    int p = 0;
    PMPI_Comm_size(c, &p);
    std::vector<int> sc(p, sendcount), sd(p), rc(p, recvcount), rd(p);
    for (int i = 0; i < p; ++i) {
      sd[i] = i * sendcount;
      rd[i] = i * recvcount;
    }
    return PMPI_Ialltoallv(sendbuf, sc.data(), sd.data(), sendtype, recvbuf, rc.data(), rd.data(), recvtype, c, req);
  });
}
MGEN_MPI_ALIAS(Ialltoall)

int PMPI_Iallgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                     const int displs[], MPI_Datatype recvtype, MPI_Comm c, MPI_Request* req) {
  return call("MPI_Iallgatherv", c, [&] {
    Nbc& n = begin(c, req);
    const int p = size_of(n), me = rank_of(n);
    const DType& rt = dtype(recvtype);
    void* mine_at = static_cast<std::byte*>(recvbuf) + static_cast<int64_t>(displs[me]) * rt.extent();
    const void* src = sendbuf == MPI_IN_PLACE ? mine_at : sendbuf;
    const int scount = sendbuf == MPI_IN_PLACE ? recvcounts[me] : sendcount;
    const MPI_Datatype stype = sendbuf == MPI_IN_PLACE ? recvtype : sendtype;
    n.flats.reserve(static_cast<size_t>(p) + 1);
    n.flats.push_back(Flat::in(src, scount, stype));
    std::byte* mine = n.temp(n.flats.back().bytes());
    std::memcpy(mine, n.flats.back().data(), n.flats.back().bytes());
    const uint64_t mine_bytes = n.flats.back().bytes();
    if (sendbuf != MPI_IN_PLACE) unpack(mine, mine_bytes, mine_at, recvcounts[me], rt);
    NbcRound& rd = n.round();
    for (int i = 0; i < p; ++i) {
      if (i == me) continue;
      n.flats.push_back(Flat::out(static_cast<std::byte*>(recvbuf) + static_cast<int64_t>(displs[i]) * rt.extent(),
                                  recvcounts[i], recvtype));
      rd.steps.push_back({false, n.flats.back().data(), n.flats.back().bytes(), i});
      rd.steps.push_back({true, mine, mine_bytes, i});
    }
    n.on_done = [&n] {
      for (size_t i = 1; i < n.flats.size(); ++i)
        n.flats[i].finish();
    };
    return launch(*req);
  });
}
MGEN_MPI_ALIAS(Iallgatherv)

int PMPI_Iallgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                    MPI_Datatype recvtype, MPI_Comm c, MPI_Request* req) {
  return call("MPI_Iallgather", c, [&] {
    int p = 0;
    PMPI_Comm_size(c, &p);
    std::vector<int> counts(p, recvcount), displs(p);
    for (int i = 0; i < p; ++i)
      displs[i] = i * recvcount;
    return PMPI_Iallgatherv(sendbuf, sendcount, sendtype, recvbuf, counts.data(), displs.data(), recvtype, c, req);
  });
}
MGEN_MPI_ALIAS(Iallgather)

int PMPI_Ireduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype t, MPI_Op op, MPI_Comm c,
                               MPI_Request* req) {
  return call("MPI_Ireduce_scatter_block", c, [&] {
    Nbc& n = begin(c, req);
    const int p = size_of(n), me = rank_of(n);
    const Red whole = red(recvcount * p, t, op);
    const void* src = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
    n.flats.reserve(2);
    n.flats.push_back(Flat::in(src, recvcount * p, t));
    const uint64_t bytes = n.flats.back().bytes(), block = bytes / static_cast<uint64_t>(p);
    std::byte* mine = n.temp(bytes);
    std::memcpy(mine, n.flats.back().data(), bytes);
    std::byte* acc = me == 0 ? n.temp(bytes) : nullptr;
    reduce_rounds(n, whole, mine, acc, bytes, 0);
    n.flats.push_back(Flat::out(recvbuf, recvcount, t));
    Flat* out = &n.flats.back();
    NbcRound& rd = n.round();
    if (me == 0) {
      for (int i = 1; i < p; ++i)
        rd.steps.push_back({true, acc + block * static_cast<uint64_t>(i), block, i});
      rd.after = [out, acc, block] { std::memcpy(out->data(), acc, block); };
    } else {
      rd.steps.push_back({false, out->data(), block, 0});
    }
    n.on_done = [out] { out->finish(); };
    return launch(*req);
  });
}
MGEN_MPI_ALIAS(Ireduce_scatter_block)

namespace {

// Inclusive (or exclusive) scan along the rank chain.
int scan_schedule(const void* sendbuf, void* recvbuf, int count, MPI_Datatype t, MPI_Op op, MPI_Comm c,
                  MPI_Request* req, bool exclusive) {
  Nbc& n = begin(c, req);
  const int p = size_of(n), me = rank_of(n);
  const Red r = red(count, t, op);
  const void* src = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
  n.flats.reserve(2);
  n.flats.push_back(Flat::in(src, count, t));
  const uint64_t bytes = n.flats.back().bytes();
  std::byte* mine = n.temp(bytes);
  std::memcpy(mine, n.flats.back().data(), bytes);
  std::byte* prefix = n.temp(bytes);  // op over ranks 0..me-1
  std::byte* upto = n.temp(bytes);    // op over ranks 0..me
  n.flats.push_back(Flat::out(recvbuf, count, t));
  Flat* out = &n.flats.back();
  NbcRound& in = n.round();
  if (me > 0) in.steps.push_back({false, prefix, bytes, me - 1});
  in.after = [r, me, mine, prefix, upto, bytes, out, exclusive] {
    std::memcpy(upto, mine, bytes);
    if (me > 0) apply(r, prefix, upto);  // prefix op mine
    if (!exclusive) {
      std::memcpy(out->data(), upto, bytes);
    } else if (me > 0) {
      std::memcpy(out->data(), prefix, bytes);
    }
  };
  NbcRound& fwd = n.round();
  if (me + 1 < p) fwd.steps.push_back({true, upto, bytes, me + 1});
  n.on_done = [out, exclusive, me] {
    if (!exclusive || me > 0) out->finish();
  };
  return launch(*req);
}

}  // namespace

int PMPI_Iscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype t, MPI_Op op, MPI_Comm c, MPI_Request* req) {
  return call("MPI_Iscan", c, [&] { return scan_schedule(sendbuf, recvbuf, count, t, op, c, req, false); });
}
MGEN_MPI_ALIAS(Iscan)

int PMPI_Iexscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype t, MPI_Op op, MPI_Comm c,
                 MPI_Request* req) {
  return call("MPI_Iexscan", c, [&] { return scan_schedule(sendbuf, recvbuf, count, t, op, c, req, true); });
}
MGEN_MPI_ALIAS(Iexscan)

}  // extern "C"
