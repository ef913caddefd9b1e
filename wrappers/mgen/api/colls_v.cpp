// The "v" collectives: per-rank counts and displacements, in elements of the datatype,
// converted to bytes for the algorithms. Only the ranks that MPI says hold the arrays read
// them (the root for gatherv and scatterv), so no algorithm may need the sizes elsewhere:
// the selection gets colls::kVaried where the sizes differ between ranks.
#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include "api/coll_check.hpp"
#include "api/coll_jobs.hpp"
#include "colls/colls.hpp"

using namespace mgen::mpi;
using mgen::mpi::api::CollJob;
using mgen::mpi::api::Scope;

namespace {

// Counts and displacements of the p ranks in bytes; negative values are errors.
void layout(Scope& s, int p, const int counts[], const int displs[], uint32_t type_size, const char* what,
            std::vector<uint64_t>& byte_counts, std::vector<uint64_t>& byte_displs) {
  if (counts == nullptr || displs == nullptr) {
    s.fail(MGEN_ERR_ARG, fmt::format("the {} counts or displacements are null", what));
  }
  byte_counts.resize(static_cast<size_t>(p));
  byte_displs.resize(static_cast<size_t>(p));
  for (int i = 0; i < p; ++i) {
    if (counts[i] < 0) s.fail(MGEN_ERR_COUNT, fmt::format("negative {} count {} for rank {}", what, counts[i], i));
    if (displs[i] < 0) {
      s.fail(MGEN_ERR_ARG, fmt::format("negative {} displacement {} for rank {}", what, displs[i], i));
    }
    byte_counts[i] = static_cast<uint64_t>(counts[i]) * type_size;
    byte_displs[i] = static_cast<uint64_t>(displs[i]) * type_size;
  }
}

}  // namespace

namespace mgen::mpi::api {

CollJob gatherv_job(Scope& s, Comm& c, const void* sendbuf, int sendcount, MGEN_Datatype sendtype, void* recvbuf,
                    const int recvcounts[], const int displs[], MGEN_Datatype recvtype, int root) {
  s.check_root(c, root);
  const bool at_root = c.rank == root;
  colls::BlockArgs a;
  a.root = root;
  a.in_place = sendbuf == MGEN_IN_PLACE;
  if (a.in_place && !at_root) s.fail(MGEN_ERR_BUFFER, "MGEN_IN_PLACE is only valid at the root");
  a.send_bytes = a.in_place ? 0 : s.bytes(sendcount, sendtype);
  if (at_root) {
    layout(s, c.size(), recvcounts, displs, s.type_size(recvtype), "receive", a.recv_counts, a.recv_displs);
    if (!a.in_place && a.send_bytes != a.recv_counts[root]) {
      s.fail(MGEN_ERR_TRUNCATE,
             fmt::format("the root sends {} bytes but receives {} from itself", a.send_bytes, a.recv_counts[root]));
    }
    a.send_bytes = a.recv_counts[root];
  }
  check_collective(
      s, c, {.kind = "gatherv", .root = root, .own = a.send_bytes, .shares = at_root ? &a.recv_counts : nullptr});
  a.send = a.in_place ? nullptr : sendbuf;
  a.recv = at_root ? recvbuf : nullptr;
  const colls::BlockFn fn =
      colls::select_gather({.size = c.size(), .bytes = colls::kVaried}, s.world().collectives()).fn;
  return [fn, a](colls::Channel& ch) { fn(ch, a); };
}

CollJob scatterv_job(Scope& s, Comm& c, const void* sendbuf, const int sendcounts[], const int displs[],
                     MGEN_Datatype sendtype, void* recvbuf, int recvcount, MGEN_Datatype recvtype, int root) {
  s.check_root(c, root);
  const bool at_root = c.rank == root;
  colls::BlockArgs a;
  a.root = root;
  a.in_place = recvbuf == MGEN_IN_PLACE;
  if (a.in_place && !at_root) s.fail(MGEN_ERR_BUFFER, "MGEN_IN_PLACE is only valid at the root");
  a.recv_bytes = a.in_place ? 0 : s.bytes(recvcount, recvtype);
  if (at_root) {
    layout(s, c.size(), sendcounts, displs, s.type_size(sendtype), "send", a.send_counts, a.send_displs);
    if (!a.in_place && a.send_counts[root] != a.recv_bytes) {
      s.fail(MGEN_ERR_TRUNCATE,
             fmt::format("the root sends {} bytes to itself but receives {}", a.send_counts[root], a.recv_bytes));
    }
  }
  check_collective(s, c,
                   {.kind = "scatterv",
                    .root = root,
                    .own = at_root ? a.send_counts[root] : a.recv_bytes,
                    .shares = at_root ? &a.send_counts : nullptr});
  a.send = at_root ? sendbuf : nullptr;
  a.recv = a.in_place ? nullptr : recvbuf;
  const colls::BlockFn fn =
      colls::select_scatter({.size = c.size(), .bytes = colls::kVaried}, s.world().collectives()).fn;
  return [fn, a](colls::Channel& ch) { fn(ch, a); };
}

CollJob allgatherv_job(Scope& s, Comm& c, const void* sendbuf, int sendcount, MGEN_Datatype sendtype, void* recvbuf,
                       const int recvcounts[], const int displs[], MGEN_Datatype recvtype) {
  colls::BlockArgs a;
  layout(s, c.size(), recvcounts, displs, s.type_size(recvtype), "receive", a.recv_counts, a.recv_displs);
  a.in_place = sendbuf == MGEN_IN_PLACE;
  if (!a.in_place && s.bytes(sendcount, sendtype) != a.recv_counts[c.rank]) {
    s.fail(MGEN_ERR_TRUNCATE, fmt::format("sends {} bytes but receives {} from itself", s.bytes(sendcount, sendtype),
                                          a.recv_counts[c.rank]));
  }
  a.send = a.in_place ? nullptr : sendbuf;
  a.recv = recvbuf;
  a.send_bytes = a.recv_counts[c.rank];
  check_collective(s, c, {.kind = "allgatherv", .own = a.send_bytes, .shares = &a.recv_counts});
  uint64_t total = 0;
  for (uint64_t n : a.recv_counts)
    total += n;
  const colls::BlockFn fn =
      colls::select_allgather({.size = c.size(), .bytes = total, .varied = true}, s.world().collectives()).fn;
  return [fn, a](colls::Channel& ch) { fn(ch, a); };
}

CollJob alltoallv_job(Scope& s, Comm& c, const void* sendbuf, const int sendcounts[], const int sdispls[],
                      MGEN_Datatype sendtype, void* recvbuf, const int recvcounts[], const int rdispls[],
                      MGEN_Datatype recvtype) {
  colls::BlockArgs a;
  layout(s, c.size(), recvcounts, rdispls, s.type_size(recvtype), "receive", a.recv_counts, a.recv_displs);
  const bool in_place = sendbuf == MGEN_IN_PLACE;
  // In place, the send layout is the receive layout and what goes out is the receive buffer's
  // old content: keep a copy (as MPICH does) and run the ordinary algorithm from it.
  auto snapshot = std::make_shared<std::vector<char>>();
  if (in_place) {
    a.send_counts = a.recv_counts;
    a.send_displs = a.recv_displs;
    uint64_t extent = 0;
    for (int i = 0; i < c.size(); ++i)
      extent = std::max(extent, a.recv_displs[i] + a.recv_counts[i]);
    if (recvbuf != nullptr && extent > 0) {
      snapshot->resize(extent);
      std::memcpy(snapshot->data(), recvbuf, extent);
    }
  } else {
    layout(s, c.size(), sendcounts, sdispls, s.type_size(sendtype), "send", a.send_counts, a.send_displs);
  }
  if (a.send_counts[c.rank] != a.recv_counts[c.rank]) {
    s.fail(MGEN_ERR_TRUNCATE,
           fmt::format("sends {} bytes to itself but receives {}", a.send_counts[c.rank], a.recv_counts[c.rank]));
  }
  // Each pair's counts are not compared (that needs every member's arrays at once); a
  // mismatch there shows as a truncated message.
  check_collective(s, c, {.kind = "alltoallv"});
  a.send = in_place ? (snapshot->empty() ? nullptr : snapshot->data()) : sendbuf;
  a.recv = recvbuf;
  const colls::BlockFn fn =
      colls::select_alltoall({.size = c.size(), .bytes = colls::kVaried, .in_place = in_place}, s.world().collectives())
          .fn;
  return [fn, a, snapshot](colls::Channel& ch) { fn(ch, a); };
}

}  // namespace mgen::mpi::api

extern "C" {

int MGEN_Gatherv(const void* sendbuf, int sendcount, MGEN_Datatype sendtype, void* recvbuf, const int recvcounts[],
                 const int displs[], MGEN_Datatype recvtype, int root, MGEN_Comm comm) {
  return api::run_collective("MGEN_Gatherv", root, comm, [&](Scope& s, Comm& c) {
    return api::gatherv_job(s, c, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root);
  });
}

int MGEN_Scatterv(const void* sendbuf, const int sendcounts[], const int displs[], MGEN_Datatype sendtype,
                  void* recvbuf, int recvcount, MGEN_Datatype recvtype, int root, MGEN_Comm comm) {
  return api::run_collective("MGEN_Scatterv", root, comm, [&](Scope& s, Comm& c) {
    return api::scatterv_job(s, c, sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root);
  });
}

int MGEN_Allgatherv(const void* sendbuf, int sendcount, MGEN_Datatype sendtype, void* recvbuf, const int recvcounts[],
                    const int displs[], MGEN_Datatype recvtype, MGEN_Comm comm) {
  return api::run_collective("MGEN_Allgatherv", static_cast<int>(kNone), comm, [&](Scope& s, Comm& c) {
    return api::allgatherv_job(s, c, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype);
  });
}

int MGEN_Alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MGEN_Datatype sendtype,
                   void* recvbuf, const int recvcounts[], const int rdispls[], MGEN_Datatype recvtype, MGEN_Comm comm) {
  return api::run_collective("MGEN_Alltoallv", static_cast<int>(kNone), comm, [&](Scope& s, Comm& c) {
    return api::alltoallv_job(s, c, sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype);
  });
}

}  // extern "C"
