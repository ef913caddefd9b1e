// MPI one-sided communication on the RDMA model. Data moves at the call (all ranks share one
// address space, and MPI forbids conflicting accesses within an epoch); the time is that of
// an RDMA put or get through the NIC model, and synchronisation (fence, unlock, flush) waits
// for the transfers the rank issued. Locks cost a round trip to the target; they do not model
// contention between lockers.
#include <fmt/format.h>

#include <cstdlib>
#include <cstring>
#include <map>

#include "core/datatype.hpp"
#include "core/world.hpp"
#include "mpi/shim.hpp"

using namespace mgen::mpi;
using namespace mgen::mpi::abi;

namespace mgen::mpi::abi {

// What all members of a window share: every rank's memory.
struct WinShared {
  std::vector<std::byte*> base;
  std::vector<MPI_Aint> size;
  std::vector<int> disp_unit;
  // Passive-target locks per target: the exclusive holder (-1: none) and shared holders.
  std::vector<int> exclusive;
  std::vector<int> shared_count;
};

struct Win {
  std::shared_ptr<WinShared> shared;
  MGEN_Comm comm = MGEN_COMM_NULL;  // a private duplicate of the creating communicator
  std::vector<uint32_t> pending;    // RDMA requests not yet waited for
  void* owned = nullptr;            // MPI_Win_allocate's memory
  std::map<int, int> held;          // target -> lock type this rank holds
  // Values MPI_Win_get_attr points to.
  void* attr_base = nullptr;
  MPI_Aint attr_size = 0;
  int attr_disp = 0;
};

}  // namespace mgen::mpi::abi

namespace {

constexpr int kRmaTag = -77;  // RDMA tag of one-sided traffic (never polled)
constexpr uint32_t kWinKind = 0xa0000000u;

// Every window of a run, by the context of its communicator (each member's MPI_Win_create
// finds the shared part the first one made). Kept by the World, like every MPI-layer state.
struct Registry : World::Extension {
  explicit Registry(World&) {}
  std::map<uint64_t, std::weak_ptr<WinShared>> windows;
};
const char kRegistryKey = 0;

Win& win(MPI_Win w) {
  RankState& st = state();
  const size_t i = static_cast<uint32_t>(w) & 0x0fffffffu;
  if ((static_cast<uint32_t>(w) & 0xf0000000u) != kWinKind || i >= st.wins.size() || !st.wins[i]) {
    fail(MPI_ERR_WIN, w == MPI_WIN_NULL ? "MPI_WIN_NULL" : fmt::format("invalid window {:#x}", w));
  }
  return *st.wins[i];
}

MPI_Win create(void* base, MPI_Aint size, int disp_unit, MPI_Comm c, void* owned) {
  if (size < 0) fail(MPI_ERR_ARG, fmt::format("negative window size {}", size));
  if (disp_unit <= 0) fail(MPI_ERR_ARG, fmt::format("displacement unit {} must be positive", disp_unit));
  auto w = std::make_shared<Win>();
  MGEN_Comm_dup(comm(c), &w->comm);
  World& world = scope().world();
  Registry& registry = world.extension<Registry>(&kRegistryKey);
  const Comm& dc = *scope().rank().comms[w->comm];
  std::shared_ptr<WinShared> s = registry.windows[dc.context].lock();
  if (!s) {
    s = std::make_shared<WinShared>();
    s->base.assign(dc.size(), nullptr);
    s->size.assign(dc.size(), 0);
    s->disp_unit.assign(dc.size(), 1);
    s->exclusive.assign(dc.size(), -1);
    s->shared_count.assign(dc.size(), 0);
    registry.windows[dc.context] = s;
  }
  s->base[dc.rank] = static_cast<std::byte*>(base);
  s->size[dc.rank] = size;
  s->disp_unit[dc.rank] = disp_unit;
  w->shared = s;
  w->owned = owned;
  w->attr_base = base;
  w->attr_size = size;
  w->attr_disp = disp_unit;
  MGEN_Barrier(w->comm);  // every member has registered its memory
  RankState& st = state();
  st.wins.push_back(w);
  return static_cast<MPI_Win>(kWinKind | (st.wins.size() - 1));
}

void complete_pending(Win& w) {
  if (w.pending.empty()) return;
  scope().world().wait_all(scope().rank(), w.pending.data(), static_cast<uint32_t>(w.pending.size()));
  for (uint32_t q : w.pending)
    scope().rank().free_request_slot(q);
  w.pending.clear();
}

// The target's memory for (rank, displacement), checked against its window.
std::byte* target_at(Win& w, int target, MPI_Aint disp, uint64_t span) {
  const Comm& c = *scope().rank().comms[w.comm];
  if (target < 0 || target >= c.size()) fail(MPI_ERR_RANK, fmt::format("target rank {} not in the window", target));
  const MPI_Aint off = disp * w.shared->disp_unit[target];
  if (disp < 0 || static_cast<uint64_t>(off) + span > static_cast<uint64_t>(w.shared->size[target])) {
    fail(MPI_ERR_ARG, fmt::format("access of {} bytes at displacement {} is outside rank {}'s window of {} bytes", span,
                                  disp, target, w.shared->size[target]));
  }
  return w.shared->base[target] + off;
}

// Bytes spanned by `count` of `t` (what must lie inside the target window).
uint64_t span_of(int count, const DType& t) {
  if (count == 0) return 0;
  return static_cast<uint64_t>((count - 1) * t.extent() + t.true_ub);
}

void transfer(Win& w, ReqKind kind, int target, uint64_t bytes) {
  const Comm& c = *scope().rank().comms[w.comm];
  if (target == c.rank || bytes == 0) return;  // local: a memory copy, no network
  w.pending.push_back(scope().world().post_rdma(scope().rank(), kind, c.world(target), bytes, kRmaTag));
}

}  // namespace

extern "C" {

int PMPI_Win_create(void* base, MPI_Aint size, int disp_unit, MPI_Info, MPI_Comm c, MPI_Win* w) {
  return call("MPI_Win_create", c, [&] {
    *w = create(base, size, disp_unit, c, nullptr);
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Win_create)

int PMPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info, MPI_Comm c, void* baseptr, MPI_Win* w) {
  return call("MPI_Win_allocate", c, [&] {
    void* mem = std::calloc(static_cast<size_t>(size > 0 ? size : 1), 1);
    if (mem == nullptr) fail(MPI_ERR_NO_MEM, fmt::format("cannot allocate a window of {} bytes", size));
    *static_cast<void**>(baseptr) = mem;
    *w = create(mem, size, disp_unit, c, mem);
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Win_allocate)

int PMPI_Win_free(MPI_Win* w) {
  return call("MPI_Win_free", MPI_COMM_WORLD, [&] {
    Win& x = win(*w);
    complete_pending(x);
    MGEN_Barrier(x.comm);  // no rank frees memory others may still access
    MGEN_Comm_free(&x.comm);
    std::free(x.owned);
    state().wins[static_cast<uint32_t>(*w) & 0x0fffffffu].reset();
    *w = MPI_WIN_NULL;
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Win_free)

int PMPI_Put(const void* origin, int ocount, MPI_Datatype otype, int target, MPI_Aint tdisp, int tcount,
             MPI_Datatype ttype, MPI_Win w) {
  return call("MPI_Put", MPI_COMM_WORLD, [&] {
    Win& x = win(w);
    Flat src = Flat::in(origin, ocount, otype);
    const DType& tt = dtype(ttype);
    check_count(tcount);
    if (tt.size * static_cast<uint64_t>(tcount) < src.bytes()) fail(MPI_ERR_TRUNCATE, "target smaller than origin");
    std::byte* at = target_at(x, target, tdisp, span_of(tcount, tt));
    unpack(static_cast<const std::byte*>(src.data()), src.bytes(), at, tcount, tt);
    transfer(x, ReqKind::kPut, target, src.bytes());
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Put)

int PMPI_Get(void* origin, int ocount, MPI_Datatype otype, int target, MPI_Aint tdisp, int tcount, MPI_Datatype ttype,
             MPI_Win w) {
  return call("MPI_Get", MPI_COMM_WORLD, [&] {
    Win& x = win(w);
    const DType& tt = dtype(ttype);
    check_count(tcount);
    std::byte* at = target_at(x, target, tdisp, span_of(tcount, tt));
    std::vector<std::byte> data(tt.size * static_cast<uint64_t>(tcount));
    pack(at, tcount, tt, data.data());
    Flat dst = Flat::out(origin, ocount, otype);
    std::memcpy(dst.data(), data.data(), std::min<uint64_t>(data.size(), dst.bytes()));
    dst.finish();
    transfer(x, ReqKind::kGet, target, data.size());
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Get)

int PMPI_Accumulate(const void* origin, int ocount, MPI_Datatype otype, int target, MPI_Aint tdisp, int tcount,
                    MPI_Datatype ttype, MPI_Op op, MPI_Win w) {
  return call("MPI_Accumulate", MPI_COMM_WORLD, [&] {
    Win& x = win(w);
    if (user_op(op) != nullptr) fail(MPI_ERR_OP, "MPI_Accumulate takes predefined operations only");
    const int mop = mgen_op(op);
    Flat src = Flat::in(origin, ocount, otype);
    const DType& tt = dtype(ttype);
    check_count(tcount);
    std::byte* at = target_at(x, target, tdisp, span_of(tcount, tt));
    std::vector<std::byte> cur(tt.size * static_cast<uint64_t>(tcount));
    pack(at, tcount, tt, cur.data());
    if (mop == MGEN_REPLACE) {
      std::memcpy(cur.data(), src.data(), std::min<uint64_t>(cur.size(), src.bytes()));
    } else {
      if (tt.base == 0) fail(MPI_ERR_TYPE, "accumulate on a datatype not built from one predefined type");
      const std::string problem =
          reduce_apply(mop, tt.base, src.data(), cur.data(), tt.base_count * static_cast<uint64_t>(tcount));
      if (!problem.empty()) fail(MPI_ERR_OP, problem);
    }
    unpack(cur.data(), cur.size(), at, tcount, tt);
    transfer(x, ReqKind::kPut, target, src.bytes());
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Accumulate)

int PMPI_Win_fence(int, MPI_Win w) {
  return call("MPI_Win_fence", MPI_COMM_WORLD, [&] {
    Win& x = win(w);
    complete_pending(x);
    MGEN_Barrier(x.comm);
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Win_fence)

int PMPI_Win_lock(int lock_type, int target, int, MPI_Win w) {
  return call("MPI_Win_lock", MPI_COMM_WORLD, [&] {
    Win& x = win(w);
    if (lock_type != MPI_LOCK_EXCLUSIVE && lock_type != MPI_LOCK_SHARED) fail(MPI_ERR_ARG, "invalid lock type");
    target_at(x, target, 0, 0);
    if (x.held.count(target)) fail(MPI_ERR_RMA_SYNC, fmt::format("rank already holds a lock on {}", target));
    const int me = scope().rank().comms[x.comm]->rank;
    WinShared& s = *x.shared;
    // Acquiring: an atomic on the target's lock word, retried (one round trip each) while
    // another rank holds it in a conflicting mode.
    for (;;) {
      if (target != me) {
        transfer(x, ReqKind::kGet, target, 8);
        complete_pending(x);
      }
      const bool free_now = s.exclusive[target] < 0 && (lock_type == MPI_LOCK_SHARED || s.shared_count[target] == 0);
      if (free_now) break;
      if (target == me) {
        // Wait out the holder with a small local delay (a poll of the lock word).
        scope().world().compute(scope().rank(), mgen::simcore::Time::ns(100));
        int flag = 0;
        MGEN_Status st{};
        MGEN_Iprobe(MGEN_ANY_SOURCE, MGEN_ANY_TAG, MGEN_COMM_SELF, &flag, &st);
      }
    }
    if (lock_type == MPI_LOCK_EXCLUSIVE) {
      s.exclusive[target] = me;
    } else {
      ++s.shared_count[target];
    }
    x.held[target] = lock_type;
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Win_lock)

int PMPI_Win_unlock(int target, MPI_Win w) {
  return call("MPI_Win_unlock", MPI_COMM_WORLD, [&] {
    Win& x = win(w);
    complete_pending(x);
    auto it = x.held.find(target);
    if (it == x.held.end()) fail(MPI_ERR_RMA_SYNC, fmt::format("no lock held on rank {}", target));
    if (it->second == MPI_LOCK_EXCLUSIVE) {
      x.shared->exclusive[target] = -1;
    } else {
      --x.shared->shared_count[target];
    }
    x.held.erase(it);
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Win_unlock)

int PMPI_Win_lock_all(int, MPI_Win w) {
  return call("MPI_Win_lock_all", MPI_COMM_WORLD, [&] {
    win(w);
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Win_lock_all)

int PMPI_Win_unlock_all(MPI_Win w) {
  return call("MPI_Win_unlock_all", MPI_COMM_WORLD, [&] {
    complete_pending(win(w));
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Win_unlock_all)

int PMPI_Win_flush(int, MPI_Win w) {
  return call("MPI_Win_flush", MPI_COMM_WORLD, [&] {
    complete_pending(win(w));
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Win_flush)

int PMPI_Win_flush_all(MPI_Win w) {
  return call("MPI_Win_flush_all", MPI_COMM_WORLD, [&] {
    complete_pending(win(w));
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Win_flush_all)

int PMPI_Win_flush_local(int, MPI_Win w) {
  return call("MPI_Win_flush_local", MPI_COMM_WORLD, [&] {
    complete_pending(win(w));
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Win_flush_local)

int PMPI_Win_flush_local_all(MPI_Win w) {
  return call("MPI_Win_flush_local_all", MPI_COMM_WORLD, [&] {
    complete_pending(win(w));
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Win_flush_local_all)

int PMPI_Win_get_attr(MPI_Win w, int keyval, void* value, int* flag) {
  return call("MPI_Win_get_attr", MPI_COMM_WORLD, [&] {
    Win& x = win(w);
    *flag = 1;
    if (keyval == MPI_WIN_BASE) {
      *static_cast<void**>(value) = x.attr_base;
    } else if (keyval == MPI_WIN_SIZE) {
      *static_cast<MPI_Aint**>(value) = &x.attr_size;
    } else if (keyval == MPI_WIN_DISP_UNIT) {
      *static_cast<int**>(value) = &x.attr_disp;
    } else {
      *flag = 0;
    }
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Win_get_attr)

int PMPI_Win_get_group(MPI_Win w, MPI_Group* g) {
  return call("MPI_Win_get_group", MPI_COMM_WORLD, [&] {
    MGEN_Group h = MGEN_GROUP_NULL;
    MGEN_Comm_group(win(w).comm, &h);
    *g = to_mpi_group(h);
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Win_get_group)

int PMPI_Alloc_mem(MPI_Aint size, MPI_Info, void* baseptr) {
  void* p = std::malloc(static_cast<size_t>(size > 0 ? size : 1));
  if (p == nullptr) return MPI_ERR_NO_MEM;
  *static_cast<void**>(baseptr) = p;
  return MPI_SUCCESS;
}
MGEN_MPI_ALIAS(Alloc_mem)

int PMPI_Free_mem(void* base) {
  std::free(base);
  return MPI_SUCCESS;
}
MGEN_MPI_ALIAS(Free_mem)

}  // extern "C"
