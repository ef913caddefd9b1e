// The recorder's collective and communicator wrappers. Each blocking collective and its
// non-blocking form share a record (one row of calls.def); `request` is -1 for the blocking
// one. Counts are recorded as passed (also where MPI ignores them).
#include <vector>

#include "recorder.hpp"

using mgen::trace::CommKind;
using mgen::trace::Op;
using mgen::trace::Record;
using namespace mgen::recorder;

namespace {

int comm_size(MPI_Comm comm) {
  int n = 0;
  PMPI_Comm_size(comm, &n);
  return n;
}

void set_counts(std::vector<uint64_t>& out, const int* counts, int n) {
  if (counts == nullptr) n = 0;
  for (int i = 0; i < n; ++i)
    out.push_back(static_cast<uint64_t>(counts[i]));
}

int root_size(MPI_Comm comm, int root) {  // counts arrays matter at the root only
  int me = 0;
  PMPI_Comm_rank(comm, &me);
  return me == root ? comm_size(comm) : 0;
}

// The call, and its record's communicator and request; `fill` adds the other fields.
template <class Run, class Fill>  // int(), void(Record&)
int collective(Op op, MPI_Comm comm, MPI_Request* q, const Run& run, const Fill& fill) {
  if (!recording()) return run();
  Call c(op);
  const int rc = run();
  Record& r = c.record();
  r.comm = comm_id(comm);
  r.request = q == nullptr ? -1 : new_request(*q, false);
  fill(r);
  c.end();
  return rc;
}

int bcast(void* b, int n, MPI_Datatype t, int root, MPI_Comm comm, MPI_Request* q) {
  return collective(
      Op::kBcast, comm, q, [&] { return q ? PMPI_Ibcast(b, n, t, root, comm, q) : PMPI_Bcast(b, n, t, root, comm); },
      [&](Record& r) {
        r.root = root;
        r.count = static_cast<uint64_t>(n);
        r.type_size = type_size(t);
      });
}

// Reduce (its root), Allreduce, Scan, Exscan, Reduce_scatter_block: one shape.
int reduction(Op op, const void* sb, void* rb, int n, MPI_Datatype t, MPI_Op o, int root, MPI_Comm comm,
              MPI_Request* q) {
  auto run = [&] {
    switch (op) {
      case Op::kReduce:
        return q ? PMPI_Ireduce(sb, rb, n, t, o, root, comm, q) : PMPI_Reduce(sb, rb, n, t, o, root, comm);
      case Op::kAllreduce:
        return q ? PMPI_Iallreduce(sb, rb, n, t, o, comm, q) : PMPI_Allreduce(sb, rb, n, t, o, comm);
      case Op::kScan:
        return q ? PMPI_Iscan(sb, rb, n, t, o, comm, q) : PMPI_Scan(sb, rb, n, t, o, comm);
      case Op::kExscan:
        return q ? PMPI_Iexscan(sb, rb, n, t, o, comm, q) : PMPI_Exscan(sb, rb, n, t, o, comm);
      default:
        return q ? PMPI_Ireduce_scatter_block(sb, rb, n, t, o, comm, q)
                 : PMPI_Reduce_scatter_block(sb, rb, n, t, o, comm);
    }
  };
  return collective(op, comm, q, run, [&](Record& r) {
    r.root = root;  // written only where the row has a root
    r.count = static_cast<uint64_t>(n);
    r.type_size = type_size(t);
    r.reduce_op = static_cast<uint64_t>(static_cast<uint32_t>(o));
  });
}

int reduce_scatter(const void* sb, void* rb, const int counts[], MPI_Datatype t, MPI_Op o, MPI_Comm comm,
                   MPI_Request* q) {
  auto run = [&] {
    return q ? PMPI_Ireduce_scatter(sb, rb, counts, t, o, comm, q) : PMPI_Reduce_scatter(sb, rb, counts, t, o, comm);
  };
  return collective(Op::kReduceScatter, comm, q, run, [&](Record& r) {
    r.type_size = type_size(t);
    r.reduce_op = static_cast<uint64_t>(static_cast<uint32_t>(o));
    set_counts(r.counts, counts, comm_size(comm));
  });
}

// Gather, Scatter (their root), Allgather, Alltoall. With MPI_IN_PLACE the send side is the
// receive side's.
int blocks(Op op, const void* sb, int sn, MPI_Datatype st, void* rb, int rn, MPI_Datatype rt, int root, MPI_Comm comm,
           MPI_Request* q) {
  auto run = [&] {
    switch (op) {
      case Op::kGather:
        return q ? PMPI_Igather(sb, sn, st, rb, rn, rt, root, comm, q)
                 : PMPI_Gather(sb, sn, st, rb, rn, rt, root, comm);
      case Op::kScatter:
        return q ? PMPI_Iscatter(sb, sn, st, rb, rn, rt, root, comm, q)
                 : PMPI_Scatter(sb, sn, st, rb, rn, rt, root, comm);
      case Op::kAllgather:
        return q ? PMPI_Iallgather(sb, sn, st, rb, rn, rt, comm, q) : PMPI_Allgather(sb, sn, st, rb, rn, rt, comm);
      default:
        return q ? PMPI_Ialltoall(sb, sn, st, rb, rn, rt, comm, q) : PMPI_Alltoall(sb, sn, st, rb, rn, rt, comm);
    }
  };
  return collective(op, comm, q, run, [&](Record& r) {
    const bool in_place = sb == MPI_IN_PLACE;
    r.root = root;
    r.count = static_cast<uint64_t>(in_place ? rn : sn);
    r.type_size = type_size(in_place ? rt : st);
    r.count2 = static_cast<uint64_t>(rn);
    r.type_size2 = type_size(rt);
  });
}

int gatherv(const void* sb, int sn, MPI_Datatype st, void* rb, const int rcs[], const int rd[], MPI_Datatype rt,
            int root, MPI_Comm comm, MPI_Request* q) {
  auto run = [&] {
    return q ? PMPI_Igatherv(sb, sn, st, rb, rcs, rd, rt, root, comm, q)
             : PMPI_Gatherv(sb, sn, st, rb, rcs, rd, rt, root, comm);
  };
  return collective(Op::kGatherv, comm, q, run, [&](Record& r) {
    r.root = root;
    r.count = static_cast<uint64_t>(sb == MPI_IN_PLACE ? 0 : sn);
    r.type_size = type_size(sb == MPI_IN_PLACE ? rt : st);
    r.type_size2 = type_size(rt);
    set_counts(r.counts2, rcs, root_size(comm, root));
  });
}

int scatterv(const void* sb, const int sc[], const int sd[], MPI_Datatype st, void* rb, int rn, MPI_Datatype rt,
             int root, MPI_Comm comm, MPI_Request* q) {
  auto run = [&] {
    return q ? PMPI_Iscatterv(sb, sc, sd, st, rb, rn, rt, root, comm, q)
             : PMPI_Scatterv(sb, sc, sd, st, rb, rn, rt, root, comm);
  };
  return collective(Op::kScatterv, comm, q, run, [&](Record& r) {
    r.root = root;
    r.type_size = type_size(st);
    set_counts(r.counts, sc, root_size(comm, root));
    r.count2 = static_cast<uint64_t>(rb == MPI_IN_PLACE ? 0 : rn);
    r.type_size2 = type_size(rb == MPI_IN_PLACE ? st : rt);
  });
}

int allgatherv(const void* sb, int sn, MPI_Datatype st, void* rb, const int rcs[], const int rd[], MPI_Datatype rt,
               MPI_Comm comm, MPI_Request* q) {
  auto run = [&] {
    return q ? PMPI_Iallgatherv(sb, sn, st, rb, rcs, rd, rt, comm, q)
             : PMPI_Allgatherv(sb, sn, st, rb, rcs, rd, rt, comm);
  };
  return collective(Op::kAllgatherv, comm, q, run, [&](Record& r) {
    int me = 0;
    PMPI_Comm_rank(comm, &me);
    r.count = static_cast<uint64_t>(sb == MPI_IN_PLACE ? rcs[me] : sn);
    r.type_size = type_size(sb == MPI_IN_PLACE ? rt : st);
    r.type_size2 = type_size(rt);
    set_counts(r.counts2, rcs, comm_size(comm));
  });
}

int alltoallv(const void* sb, const int sc[], const int sd[], MPI_Datatype st, void* rb, const int rcs[],
              const int rd[], MPI_Datatype rt, MPI_Comm comm, MPI_Request* q) {
  auto run = [&] {
    return q ? PMPI_Ialltoallv(sb, sc, sd, st, rb, rcs, rd, rt, comm, q)
             : PMPI_Alltoallv(sb, sc, sd, st, rb, rcs, rd, rt, comm);
  };
  return collective(Op::kAlltoallv, comm, q, run, [&](Record& r) {
    const int n = comm_size(comm);
    const bool in_place = sb == MPI_IN_PLACE;
    r.type_size = type_size(in_place ? rt : st);
    set_counts(r.counts, in_place ? rcs : sc, n);
    r.type_size2 = type_size(rt);
    set_counts(r.counts2, rcs, n);
  });
}

// Records a new communicator (or MPI_COMM_NULL) made from `parent` by `make`, with its
// members' world ranks in its rank order, so replay can make the same one.
template <class Make>  // int()
int comm_new(CommKind kind, MPI_Comm parent, MPI_Comm* made, const Make& make) {
  if (!recording()) return make();
  Call c(Op::kCommNew);
  const int rc = make();
  Record& r = c.record();
  r.mode = static_cast<uint64_t>(kind);
  r.comm = comm_id(parent);
  r.new_comm = comm_id(*made);
  if (*made != MPI_COMM_NULL) {
    MPI_Group g_made, g_world;
    PMPI_Comm_group(*made, &g_made);
    PMPI_Comm_group(MPI_COMM_WORLD, &g_world);
    int n = 0;
    PMPI_Group_size(g_made, &n);
    std::vector<int> ranks(static_cast<size_t>(n)), world(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i)
      ranks[static_cast<size_t>(i)] = i;
    PMPI_Group_translate_ranks(g_made, n, ranks.data(), g_world, world.data());
    PMPI_Group_free(&g_made);
    PMPI_Group_free(&g_world);
    set_counts(r.counts, world.data(), n);
  }
  c.end();
  return rc;
}

}  // namespace

extern "C" {

int MPI_Barrier(MPI_Comm comm) {
  return collective(
      Op::kBarrier, comm, nullptr, [&] { return PMPI_Barrier(comm); }, [](Record&) {});
}
int MPI_Ibarrier(MPI_Comm comm, MPI_Request* r) {
  return collective(
      Op::kBarrier, comm, r, [&] { return PMPI_Ibarrier(comm, r); }, [](Record&) {});
}
int MPI_Bcast(void* b, int n, MPI_Datatype t, int root, MPI_Comm comm) {
  return bcast(b, n, t, root, comm, nullptr);
}
int MPI_Ibcast(void* b, int n, MPI_Datatype t, int root, MPI_Comm comm, MPI_Request* r) {
  return bcast(b, n, t, root, comm, r);
}
int MPI_Reduce(const void* sb, void* rb, int n, MPI_Datatype t, MPI_Op o, int root, MPI_Comm comm) {
  return reduction(Op::kReduce, sb, rb, n, t, o, root, comm, nullptr);
}
int MPI_Ireduce(const void* sb, void* rb, int n, MPI_Datatype t, MPI_Op o, int root, MPI_Comm comm, MPI_Request* r) {
  return reduction(Op::kReduce, sb, rb, n, t, o, root, comm, r);
}
int MPI_Allreduce(const void* sb, void* rb, int n, MPI_Datatype t, MPI_Op o, MPI_Comm comm) {
  return reduction(Op::kAllreduce, sb, rb, n, t, o, 0, comm, nullptr);
}
int MPI_Iallreduce(const void* sb, void* rb, int n, MPI_Datatype t, MPI_Op o, MPI_Comm comm, MPI_Request* r) {
  return reduction(Op::kAllreduce, sb, rb, n, t, o, 0, comm, r);
}
int MPI_Scan(const void* sb, void* rb, int n, MPI_Datatype t, MPI_Op o, MPI_Comm comm) {
  return reduction(Op::kScan, sb, rb, n, t, o, 0, comm, nullptr);
}
int MPI_Iscan(const void* sb, void* rb, int n, MPI_Datatype t, MPI_Op o, MPI_Comm comm, MPI_Request* r) {
  return reduction(Op::kScan, sb, rb, n, t, o, 0, comm, r);
}
int MPI_Exscan(const void* sb, void* rb, int n, MPI_Datatype t, MPI_Op o, MPI_Comm comm) {
  return reduction(Op::kExscan, sb, rb, n, t, o, 0, comm, nullptr);
}
int MPI_Iexscan(const void* sb, void* rb, int n, MPI_Datatype t, MPI_Op o, MPI_Comm comm, MPI_Request* r) {
  return reduction(Op::kExscan, sb, rb, n, t, o, 0, comm, r);
}
int MPI_Reduce_scatter_block(const void* sb, void* rb, int n, MPI_Datatype t, MPI_Op o, MPI_Comm comm) {
  return reduction(Op::kReduceScatterBlock, sb, rb, n, t, o, 0, comm, nullptr);
}
int MPI_Ireduce_scatter_block(const void* sb, void* rb, int n, MPI_Datatype t, MPI_Op o, MPI_Comm comm,
                              MPI_Request* r) {
  return reduction(Op::kReduceScatterBlock, sb, rb, n, t, o, 0, comm, r);
}
int MPI_Reduce_scatter(const void* sb, void* rb, const int counts[], MPI_Datatype t, MPI_Op o, MPI_Comm comm) {
  return reduce_scatter(sb, rb, counts, t, o, comm, nullptr);
}
int MPI_Ireduce_scatter(const void* sb, void* rb, const int counts[], MPI_Datatype t, MPI_Op o, MPI_Comm comm,
                        MPI_Request* r) {
  return reduce_scatter(sb, rb, counts, t, o, comm, r);
}
int MPI_Gather(const void* sb, int sn, MPI_Datatype st, void* rb, int rn, MPI_Datatype rt, int root, MPI_Comm comm) {
  return blocks(Op::kGather, sb, sn, st, rb, rn, rt, root, comm, nullptr);
}
int MPI_Igather(const void* sb, int sn, MPI_Datatype st, void* rb, int rn, MPI_Datatype rt, int root, MPI_Comm comm,
                MPI_Request* r) {
  return blocks(Op::kGather, sb, sn, st, rb, rn, rt, root, comm, r);
}
int MPI_Scatter(const void* sb, int sn, MPI_Datatype st, void* rb, int rn, MPI_Datatype rt, int root, MPI_Comm comm) {
  return blocks(Op::kScatter, sb, sn, st, rb, rn, rt, root, comm, nullptr);
}
int MPI_Iscatter(const void* sb, int sn, MPI_Datatype st, void* rb, int rn, MPI_Datatype rt, int root, MPI_Comm comm,
                 MPI_Request* r) {
  return blocks(Op::kScatter, sb, sn, st, rb, rn, rt, root, comm, r);
}
int MPI_Allgather(const void* sb, int sn, MPI_Datatype st, void* rb, int rn, MPI_Datatype rt, MPI_Comm comm) {
  return blocks(Op::kAllgather, sb, sn, st, rb, rn, rt, 0, comm, nullptr);
}
int MPI_Iallgather(const void* sb, int sn, MPI_Datatype st, void* rb, int rn, MPI_Datatype rt, MPI_Comm comm,
                   MPI_Request* r) {
  return blocks(Op::kAllgather, sb, sn, st, rb, rn, rt, 0, comm, r);
}
int MPI_Alltoall(const void* sb, int sn, MPI_Datatype st, void* rb, int rn, MPI_Datatype rt, MPI_Comm comm) {
  return blocks(Op::kAlltoall, sb, sn, st, rb, rn, rt, 0, comm, nullptr);
}
int MPI_Ialltoall(const void* sb, int sn, MPI_Datatype st, void* rb, int rn, MPI_Datatype rt, MPI_Comm comm,
                  MPI_Request* r) {
  return blocks(Op::kAlltoall, sb, sn, st, rb, rn, rt, 0, comm, r);
}
int MPI_Gatherv(const void* sb, int sn, MPI_Datatype st, void* rb, const int rc[], const int rd[], MPI_Datatype rt,
                int root, MPI_Comm comm) {
  return gatherv(sb, sn, st, rb, rc, rd, rt, root, comm, nullptr);
}
int MPI_Igatherv(const void* sb, int sn, MPI_Datatype st, void* rb, const int rc[], const int rd[], MPI_Datatype rt,
                 int root, MPI_Comm comm, MPI_Request* r) {
  return gatherv(sb, sn, st, rb, rc, rd, rt, root, comm, r);
}
int MPI_Scatterv(const void* sb, const int sc[], const int sd[], MPI_Datatype st, void* rb, int rn, MPI_Datatype rt,
                 int root, MPI_Comm comm) {
  return scatterv(sb, sc, sd, st, rb, rn, rt, root, comm, nullptr);
}
int MPI_Iscatterv(const void* sb, const int sc[], const int sd[], MPI_Datatype st, void* rb, int rn, MPI_Datatype rt,
                  int root, MPI_Comm comm, MPI_Request* r) {
  return scatterv(sb, sc, sd, st, rb, rn, rt, root, comm, r);
}
int MPI_Allgatherv(const void* sb, int sn, MPI_Datatype st, void* rb, const int rc[], const int rd[], MPI_Datatype rt,
                   MPI_Comm comm) {
  return allgatherv(sb, sn, st, rb, rc, rd, rt, comm, nullptr);
}
int MPI_Iallgatherv(const void* sb, int sn, MPI_Datatype st, void* rb, const int rc[], const int rd[], MPI_Datatype rt,
                    MPI_Comm comm, MPI_Request* r) {
  return allgatherv(sb, sn, st, rb, rc, rd, rt, comm, r);
}
int MPI_Alltoallv(const void* sb, const int sc[], const int sd[], MPI_Datatype st, void* rb, const int rc[],
                  const int rd[], MPI_Datatype rt, MPI_Comm comm) {
  return alltoallv(sb, sc, sd, st, rb, rc, rd, rt, comm, nullptr);
}
int MPI_Ialltoallv(const void* sb, const int sc[], const int sd[], MPI_Datatype st, void* rb, const int rc[],
                   const int rd[], MPI_Datatype rt, MPI_Comm comm, MPI_Request* r) {
  return alltoallv(sb, sc, sd, st, rb, rc, rd, rt, comm, r);
}

int MPI_Comm_dup(MPI_Comm comm, MPI_Comm* out) {
  return comm_new(CommKind::kDup, comm, out, [&] { return PMPI_Comm_dup(comm, out); });
}
int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm* out) {
  return comm_new(CommKind::kSplit, comm, out, [&] { return PMPI_Comm_split(comm, color, key, out); });
}
int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm* out) {
  return comm_new(CommKind::kCreate, comm, out, [&] { return PMPI_Comm_create(comm, group, out); });
}
int MPI_Comm_split_type(MPI_Comm comm, int type, int key, MPI_Info info, MPI_Comm* out) {
  return comm_new(CommKind::kSplitType, comm, out, [&] { return PMPI_Comm_split_type(comm, type, key, info, out); });
}
int MPI_Cart_create(MPI_Comm comm, int ndims, const int dims[], const int periods[], int reorder, MPI_Comm* out) {
  return comm_new(CommKind::kCart, comm, out,
                  [&] { return PMPI_Cart_create(comm, ndims, dims, periods, reorder, out); });
}
int MPI_Cart_sub(MPI_Comm comm, const int remain[], MPI_Comm* out) {
  return comm_new(CommKind::kCartSub, comm, out, [&] { return PMPI_Cart_sub(comm, remain, out); });
}
int MPI_Comm_free(MPI_Comm* comm) {  // the communicator as it was before the call freed it
  if (!recording()) return PMPI_Comm_free(comm);
  const MPI_Comm h = *comm;
  Call c(Op::kCommFree);
  const int64_t id = comm_id(h);
  const int rc = PMPI_Comm_free(comm);
  c.record().comm = id;
  c.end();
  forget_comm(h);
  return rc;
}

}  // extern "C"
