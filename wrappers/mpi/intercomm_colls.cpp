// The collectives on an intercommunicator (MPI-4.0 §6.2.2): data flows from one group to the
// other. Written with the MPI layer's calls over the intercommunicator's hidden companions
// (intercomm.cpp): the local-group steps are the intracommunicator collectives, the steps across
// are point-to-point on the collective copy, as MPICH's intercommunicator algorithms do them:
// rooted one-to-many and many-to-one ones run linearly between the root and the remote group
// (MPICH's *_inter_linear) except Bcast (root to remote rank 0, then a local broadcast); the
// reductions reduce locally to rank 0, cross between the leaders, then spread locally; the
// all-to-all exchanges are pairwise with every remote process.
#include <fmt/format.h>

#include <numeric>
#include <vector>

#include "core/world.hpp"
#include "mpi/coll_args.hpp"
#include "mpi/intercomm.hpp"

using namespace mgen::mpi;

namespace mgen::mpi::abi {

namespace {

// Tags on the collective copy: each collective its own, so a mismatch shows as a deadlock
// naming the tag rather than as wrong data.
enum Tag : int { kBarrier = 2, kBcast, kGather, kScatter, kReduce, kAllreduce, kReduceScatter, kAllgather, kAlltoall };

struct Inter {
  MPI_Comm local = MPI_COMM_NULL, coll = MPI_COMM_NULL;
  int rank = 0, size = 0, remote_size = 0;
};

Inter inter(MPI_Comm c) {
  Inter x;
  const MGEN_Comm h = comm(c);
  const Comm& ic = *scope().rank().comms[h];
  if (!ic.inter()) fail(MPI_ERR_COMM, "not an intercommunicator");
  x.rank = ic.rank;
  x.size = ic.size();
  x.remote_size = ic.peer_size();
  inter_companions(c, &x.local, &x.coll);
  return x;
}

enum class Side { kRoot, kRootGroup, kOther };

// Which side of a rooted collective the caller is on; checks `root`.
Side side(const Inter& x, int root) {
  if (root == MPI_ROOT) return Side::kRoot;
  if (root == MPI_PROC_NULL) return Side::kRootGroup;
  if (root < 0 || root >= x.remote_size) {
    fail(MPI_ERR_ROOT, fmt::format("root {} on an intercommunicator: MPI_ROOT, MPI_PROC_NULL or a rank of the remote "
                                   "group (size {})",
                                   root, x.remote_size));
  }
  return Side::kOther;
}

std::byte* at(const void* buf, int64_t elements, MPI_Datatype t) {
  return static_cast<std::byte*>(const_cast<void*>(buf)) + elements * dtype(t).extent();
}

// `count` elements of `t` of scratch space (its true extent, as MPICH sizes temporaries).
class Scratch {
 public:
  Scratch(int count, MPI_Datatype t) {
    const DType& d = dtype(t);
    const int64_t span = count > 0 ? (count - 1) * d.extent() + (d.true_ub - d.true_lb) : 0;
    bytes_.resize(static_cast<size_t>(std::max<int64_t>(span, 1)));
    base_ = bytes_.data() - d.true_lb;
  }
  void* get() { return base_; }

 private:
  std::vector<std::byte> bytes_;
  std::byte* base_;
};

// The calls below run nested in the caller's binding: their errors are the caller's.
void ok(int rc) {
  if (rc != MPI_SUCCESS) fail(rc, state().error_text.empty() ? "a step of the collective failed" : state().error_text);
}

void wait_all(std::vector<MPI_Request>& q) {
  ok(PMPI_Waitall(static_cast<int>(q.size()), q.data(), MPI_STATUSES_IGNORE));
}

void no_in_place(const void* p) {
  if (in_place(p)) fail(MPI_ERR_BUFFER, "MPI_IN_PLACE is not allowed on an intercommunicator");
}

// Local reduction of `count` elements to local rank 0, which swaps it with the remote leader:
// on return local rank 0 holds the remote group's reduction in `out`.
void reduce_and_swap(const Inter& x, const void* sendbuf, void* out, int count, MPI_Datatype t, MPI_Op op, int tag) {
  Scratch mine(count, t);
  ok(PMPI_Reduce(sendbuf, mine.get(), count, t, op, 0, x.local));
  if (x.rank == 0) {
    ok(PMPI_Sendrecv(mine.get(), count, t, 0, tag, out, count, t, 0, tag, x.coll, MPI_STATUS_IGNORE));
  }
}

}  // namespace

void inter_barrier(MPI_Comm c) {
  const Inter x = inter(c);
  // Nobody leaves before the leader has heard that the whole remote group arrived.
  ok(PMPI_Barrier(x.local));
  if (x.rank == 0) {
    char in = 0, out = 0;
    ok(PMPI_Sendrecv(&out, 0, MPI_BYTE, 0, kBarrier, &in, 0, MPI_BYTE, 0, kBarrier, x.coll, MPI_STATUS_IGNORE));
  }
  ok(PMPI_Barrier(x.local));
}

void inter_bcast(void* buf, int count, MPI_Datatype t, int root, MPI_Comm c) {
  const Inter x = inter(c);
  switch (side(x, root)) {
    case Side::kRoot:
      ok(PMPI_Send(buf, count, t, 0, kBcast, x.coll));
      return;
    case Side::kRootGroup:
      return;
    case Side::kOther:
      if (x.rank == 0) ok(PMPI_Recv(buf, count, t, root, kBcast, x.coll, MPI_STATUS_IGNORE));
      ok(PMPI_Bcast(buf, count, t, 0, x.local));
      return;
  }
}

void inter_gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                   const int displs[], MPI_Datatype recvtype, int root, MPI_Comm c) {
  const Inter x = inter(c);
  switch (side(x, root)) {
    case Side::kRoot: {
      if (recvcounts == nullptr || displs == nullptr) fail(MPI_ERR_ARG, "null recvcounts or displs at the root");
      std::vector<MPI_Request> q(static_cast<size_t>(x.remote_size), MPI_REQUEST_NULL);
      for (int i = 0; i < x.remote_size; ++i) {
        check_count(recvcounts[i]);
        PMPI_Irecv(at(recvbuf, displs[i], recvtype), recvcounts[i], recvtype, i, kGather, x.coll, &q[i]);
      }
      wait_all(q);
      return;
    }
    case Side::kRootGroup:
      return;
    case Side::kOther:
      no_in_place(sendbuf);
      ok(PMPI_Send(sendbuf, sendcount, sendtype, root, kGather, x.coll));
      return;
  }
}

void inter_gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                  MPI_Datatype recvtype, int root, MPI_Comm c) {
  const Inter x = inter(c);
  if (side(x, root) != Side::kRoot) {
    inter_gatherv(sendbuf, sendcount, sendtype, nullptr, nullptr, nullptr, recvtype, root, c);
    return;
  }
  std::vector<int> counts(static_cast<size_t>(x.remote_size), recvcount), displs(counts.size());
  for (size_t i = 0; i < displs.size(); ++i)
    displs[i] = static_cast<int>(i) * recvcount;
  inter_gatherv(sendbuf, sendcount, sendtype, recvbuf, counts.data(), displs.data(), recvtype, root, c);
}

void inter_scatterv(const void* sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                    void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm c) {
  const Inter x = inter(c);
  switch (side(x, root)) {
    case Side::kRoot: {
      if (sendcounts == nullptr || displs == nullptr) fail(MPI_ERR_ARG, "null sendcounts or displs at the root");
      std::vector<MPI_Request> q(static_cast<size_t>(x.remote_size), MPI_REQUEST_NULL);
      for (int i = 0; i < x.remote_size; ++i) {
        check_count(sendcounts[i]);
        PMPI_Isend(at(sendbuf, displs[i], sendtype), sendcounts[i], sendtype, i, kScatter, x.coll, &q[i]);
      }
      wait_all(q);
      return;
    }
    case Side::kRootGroup:
      return;
    case Side::kOther:
      no_in_place(recvbuf);
      ok(PMPI_Recv(recvbuf, recvcount, recvtype, root, kScatter, x.coll, MPI_STATUS_IGNORE));
      return;
  }
}

void inter_scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                   MPI_Datatype recvtype, int root, MPI_Comm c) {
  const Inter x = inter(c);
  if (side(x, root) != Side::kRoot) {
    inter_scatterv(nullptr, nullptr, nullptr, sendtype, recvbuf, recvcount, recvtype, root, c);
    return;
  }
  std::vector<int> counts(static_cast<size_t>(x.remote_size), sendcount), displs(counts.size());
  for (size_t i = 0; i < displs.size(); ++i)
    displs[i] = static_cast<int>(i) * sendcount;
  inter_scatterv(sendbuf, counts.data(), displs.data(), sendtype, recvbuf, recvcount, recvtype, root, c);
}

void inter_reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype t, MPI_Op op, int root, MPI_Comm c) {
  const Inter x = inter(c);
  switch (side(x, root)) {
    case Side::kRoot:
      ok(PMPI_Recv(recvbuf, count, t, 0, kReduce, x.coll, MPI_STATUS_IGNORE));
      return;
    case Side::kRootGroup:
      return;
    case Side::kOther: {
      no_in_place(sendbuf);
      Scratch sum(count, t);
      ok(PMPI_Reduce(sendbuf, sum.get(), count, t, op, 0, x.local));
      if (x.rank == 0) ok(PMPI_Send(sum.get(), count, t, root, kReduce, x.coll));
      return;
    }
  }
}

void inter_allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype t, MPI_Op op, MPI_Comm c) {
  const Inter x = inter(c);
  no_in_place(sendbuf);
  reduce_and_swap(x, sendbuf, recvbuf, count, t, op, kAllreduce);
  ok(PMPI_Bcast(recvbuf, count, t, 0, x.local));
}

void inter_reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[], MPI_Datatype t, MPI_Op op,
                          MPI_Comm c) {
  const Inter x = inter(c);
  no_in_place(sendbuf);
  // Both groups reduce vectors of the same length n (the sum of either group's recvcounts).
  std::vector<int> displs(static_cast<size_t>(x.size), 0);
  int n = 0;
  for (int i = 0; i < x.size; ++i) {
    check_count(recvcounts[i]);
    displs[static_cast<size_t>(i)] = n;
    n += recvcounts[i];
  }
  Scratch theirs(n, t);
  reduce_and_swap(x, sendbuf, theirs.get(), n, t, op, kReduceScatter);
  ok(PMPI_Scatterv(theirs.get(), recvcounts, displs.data(), t, recvbuf, recvcounts[x.rank], t, 0, x.local));
}

void inter_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                      const int displs[], MPI_Datatype recvtype, MPI_Comm c) {
  const Inter x = inter(c);
  no_in_place(sendbuf);
  std::vector<MPI_Request> q(2 * static_cast<size_t>(x.remote_size), MPI_REQUEST_NULL);
  for (int i = 0; i < x.remote_size; ++i) {
    check_count(recvcounts[i]);
    PMPI_Irecv(at(recvbuf, displs[i], recvtype), recvcounts[i], recvtype, i, kAllgather, x.coll, &q[2 * i]);
    PMPI_Isend(sendbuf, sendcount, sendtype, i, kAllgather, x.coll, &q[2 * i + 1]);
  }
  wait_all(q);
}

void inter_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                     MPI_Datatype recvtype, MPI_Comm c) {
  const Inter x = inter(c);
  std::vector<int> counts(static_cast<size_t>(x.remote_size), recvcount), displs(counts.size());
  for (size_t i = 0; i < displs.size(); ++i)
    displs[i] = static_cast<int>(i) * recvcount;
  inter_allgatherv(sendbuf, sendcount, sendtype, recvbuf, counts.data(), displs.data(), recvtype, c);
}

void inter_alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                     void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm c) {
  const Inter x = inter(c);
  no_in_place(sendbuf);
  std::vector<MPI_Request> q(2 * static_cast<size_t>(x.remote_size), MPI_REQUEST_NULL);
  for (int i = 0; i < x.remote_size; ++i) {
    check_count(recvcounts[i]);
    check_count(sendcounts[i]);
    PMPI_Irecv(at(recvbuf, rdispls[i], recvtype), recvcounts[i], recvtype, i, kAlltoall, x.coll, &q[2 * i]);
    PMPI_Isend(at(sendbuf, sdispls[i], sendtype), sendcounts[i], sendtype, i, kAlltoall, x.coll, &q[2 * i + 1]);
  }
  wait_all(q);
}

void inter_alltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[],
                     void* recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[],
                     MPI_Comm c) {
  const Inter x = inter(c);
  no_in_place(sendbuf);
  auto* sbase = static_cast<const std::byte*>(sendbuf);
  auto* rbase = static_cast<std::byte*>(recvbuf);
  std::vector<MPI_Request> q(2 * static_cast<size_t>(x.remote_size), MPI_REQUEST_NULL);
  for (int i = 0; i < x.remote_size; ++i) {
    check_count(recvcounts[i]);
    check_count(sendcounts[i]);
    // A block of no elements moves nothing, whatever its type says.
    const MPI_Datatype rt = recvcounts[i] > 0 ? recvtypes[i] : MPI_BYTE;
    const MPI_Datatype st = sendcounts[i] > 0 ? sendtypes[i] : MPI_BYTE;
    PMPI_Irecv(rbase + rdispls[i], recvcounts[i], rt, i, kAlltoall, x.coll, &q[2 * i]);
    PMPI_Isend(sbase + sdispls[i], sendcounts[i], st, i, kAlltoall, x.coll, &q[2 * i + 1]);
  }
  wait_all(q);
}

void inter_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                    MPI_Datatype recvtype, MPI_Comm c) {
  const Inter x = inter(c);
  const size_t n = static_cast<size_t>(x.remote_size);
  std::vector<int> sc(n, sendcount), sd(n), rc(n, recvcount), rd(n);
  for (size_t i = 0; i < n; ++i) {
    sd[i] = static_cast<int>(i) * sendcount;
    rd[i] = static_cast<int>(i) * recvcount;
  }
  inter_alltoallv(sendbuf, sc.data(), sd.data(), sendtype, recvbuf, rc.data(), rd.data(), recvtype, c);
}

}  // namespace mgen::mpi::abi
