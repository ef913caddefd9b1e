// MPI windows: creation in every flavor (create, allocate, allocate_shared, dynamic with
// attach/detach), MPI_Win_free, shared-memory queries, the predefined attributes, names,
// info, groups and error handlers. Transfers are in rma_ops.cpp, epochs in rma_sync.cpp; the
// model is described in rma.hpp.
#include "mpi/rma.hpp"

#include <fmt/format.h>

#include <cstring>

#include "core/world.hpp"
#include "mpi/attr.hpp"
#include "mpi/info.hpp"

using namespace mgen::mpi;
using namespace mgen::mpi::abi;

namespace {

constexpr uint32_t kWinKind = 0xa0000000u;  // MPICH's handle kind for windows
constexpr uint32_t kIndexMask = 0x0fffffffu;

// Every window of a run, by the context of its private communicator (each member's creating
// call finds the shared part the first one made). Kept by the World, like every MPI-layer state.
struct Registry : World::Extension {
  explicit Registry(World&) {}
  std::map<uint64_t, std::weak_ptr<WinShared>> windows;
};
const char kRegistryKey = 0;

bool is_window_handle(MPI_Win w) {
  return (static_cast<uint32_t>(w) & ~kIndexMask) == kWinKind;
}

// MPI_Win_allocate_shared's layout: where each member's part starts in the one segment.
// Contiguous by default (MPI-3.1 §11.2.3: rank i+1's memory follows rank i's); with
// alloc_shared_noncontig MPICH may pad parts, which a program cannot rely on either way, so the
// parts stay contiguous.
std::vector<MPI_Aint> shared_offsets(const std::vector<MPI_Aint>& sizes) {
  std::vector<MPI_Aint> off(sizes.size() + 1, 0);
  for (size_t i = 0; i < sizes.size(); ++i)
    off[i + 1] = off[i] + sizes[i];
  return off;
}

// Collective over `c`: makes this rank's side of a new window of `flavor`. `base` is the
// rank's memory (ignored for shared windows, whose memory is allocated here).
MPI_Win create(int flavor, void* base, MPI_Aint size, int disp_unit, MPI_Comm c, void* owned) {
  if (size < 0) fail(MPI_ERR_SIZE, fmt::format("negative window size {}", size));
  if (disp_unit <= 0) fail(MPI_ERR_DISP, fmt::format("displacement unit {} must be positive", disp_unit));
  auto w = std::make_shared<Win>();
  MGEN_Comm_dup(comm(c), &w->comm);
  World& world = scope().world();
  if (world.partitioned()) {
    // A window's members reach into each other's memory: they must share one world.
    world.fail(
        fmt::format("rank {}: MPI RMA windows are not supported in a partitioned run (--threads, mpiexec): "
                    "run it in one partition",
                    scope().rank().id));
  }
  Registry& registry = world.extension<Registry>(&kRegistryKey);
  const Comm& dc = *scope().rank().comms[w->comm];
  w->rank = dc.rank;
  std::vector<MPI_Aint> sizes;
  if (flavor == MPI_WIN_FLAVOR_SHARED) {
    // Memory is shared within a node of the modelled machine only (MPI_Comm_split_type with
    // MPI_COMM_TYPE_SHARED makes such communicators).
    for (int i = 1; i < dc.size(); ++i) {
      const RankId a = dc.world(0), b = dc.world(i);
      if (world.rank(a).node != world.rank(b).node) {
        MGEN_Comm_free(&w->comm);
        fail(MPI_ERR_RMA_SHARED, fmt::format("ranks {} and {} of the communicator are on different nodes (nodes {} and "
                                             "{}), which share no memory",
                                             0, i, world.rank(a).node, world.rank(b).node));
      }
    }
    // Every member must know every size to find its part of the segment.
    sizes.resize(static_cast<size_t>(dc.size()));
    MGEN_Allgather(&size, sizeof(MPI_Aint), MGEN_BYTE, sizes.data(), sizeof(MPI_Aint), MGEN_BYTE, w->comm);
  }
  std::shared_ptr<WinShared> s = registry.windows[dc.context].lock();
  if (!s) {
    s = std::make_shared<WinShared>();
    s->flavor = flavor;
    const size_t n = static_cast<size_t>(dc.size());
    s->base.assign(n, nullptr);
    s->size.assign(n, 0);
    s->disp_unit.assign(n, 1);
    s->attached.resize(n);
    s->exclusive.assign(n, -1);
    s->shared_count.assign(n, 0);
    s->lock_waiters.resize(n);
    if (flavor == MPI_WIN_FLAVOR_SHARED) {
      const MPI_Aint total = shared_offsets(sizes).back();
      s->segment.reset(static_cast<std::byte*>(std::calloc(static_cast<size_t>(total > 0 ? total : 1), 1)));
      if (!s->segment) fail(MPI_ERR_NO_MEM, fmt::format("cannot allocate a shared window of {} bytes", total));
    }
    registry.windows[dc.context] = s;
  }
  if (flavor == MPI_WIN_FLAVOR_SHARED) base = s->segment.get() + shared_offsets(sizes)[static_cast<size_t>(dc.rank)];
  s->base[dc.rank] = static_cast<std::byte*>(base);
  s->size[dc.rank] = size;
  s->disp_unit[dc.rank] = disp_unit;
  w->shared = s;
  w->owned = owned;
  w->attr_base = base;
  w->attr_size = size;
  w->attr_disp = disp_unit;
  w->attr_flavor = flavor;
  MGEN_Barrier(w->comm);  // every member has registered its memory
  RankState& st = state();
  for (auto it = registry.windows.begin(); it != registry.windows.end();) {
    it = it->second.expired() ? registry.windows.erase(it) : std::next(it);
  }
  st.wins.push_back(w);
  return static_cast<MPI_Win>(kWinKind | (st.wins.size() - 1));
}

void* allocate(MPI_Aint size) {
  if (size < 0) fail(MPI_ERR_SIZE, fmt::format("negative window size {}", size));
  void* mem = std::calloc(static_cast<size_t>(size > 0 ? size : 1), 1);
  if (mem == nullptr) fail(MPI_ERR_NO_MEM, fmt::format("cannot allocate a window of {} bytes", size));
  return mem;
}

// Why the rank may not free `w` now (an epoch it opened is still open), or empty.
std::string open_epoch(const Win& w) {
  if (!w.held.empty()) return fmt::format("the rank still holds a lock on rank {}", w.held.begin()->first);
  if (w.lock_all) return "the rank is still inside MPI_Win_lock_all";
  if (w.accessing) return "the rank's access epoch (MPI_Win_start) was not completed";
  if (w.exposing) return "the rank's exposure epoch (MPI_Win_post) was not ended by MPI_Win_wait";
  return {};
}

}  // namespace

namespace mgen::mpi::abi {

Win& win(MPI_Win w) {
  RankState& st = state();
  const size_t i = static_cast<uint32_t>(w) & kIndexMask;
  if (!is_window_handle(w) || i >= st.wins.size() || !st.wins[i]) {
    fail(MPI_ERR_WIN, w == MPI_WIN_NULL ? "MPI_WIN_NULL" : fmt::format("invalid window {:#x}", w));
  }
  return *st.wins[i];
}

int win_call(const char* name, MPI_Win w, CallBody body) {
  // Window handles never collide with communicator handles, so the error handler table keyed
  // by communicator holds windows' handlers too.
  return call(name, is_window_handle(w) ? static_cast<MPI_Comm>(w) : MPI_COMM_WORLD, body);
}

bool win_predefined_attr(MPI_Win w, int keyval, void* value) {
  Win& x = win(w);
  switch (keyval) {
    case MPI_WIN_BASE:
      *static_cast<void**>(value) = x.attr_base;
      return true;
    case MPI_WIN_SIZE:
      *static_cast<MPI_Aint**>(value) = &x.attr_size;
      return true;
    case MPI_WIN_DISP_UNIT:
      *static_cast<int**>(value) = &x.attr_disp;
      return true;
    case MPI_WIN_CREATE_FLAVOR:
      *static_cast<int**>(value) = &x.attr_flavor;
      return true;
    case MPI_WIN_MODEL:
      *static_cast<int**>(value) = &x.attr_model;
      return true;
    default:
      return false;
  }
}

std::vector<int> window_ranks(Win& w, MPI_Group g) {
  const MGEN_Group h = group(g);
  int n = 0;
  MGEN_Group_size(h, &n);
  MGEN_Group wg = MGEN_GROUP_NULL;
  MGEN_Comm_group(w.comm, &wg);
  std::vector<int> in(static_cast<size_t>(n)), out(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i)
    in[static_cast<size_t>(i)] = i;
  MGEN_Group_translate_ranks(h, n, in.data(), wg, out.data());
  MGEN_Group_free(&wg);
  for (int i = 0; i < n; ++i) {
    if (out[static_cast<size_t>(i)] == MGEN_UNDEFINED)
      fail(MPI_ERR_GROUP, fmt::format("member {} of the group is not a member of the window", i));
  }
  return out;
}

}  // namespace mgen::mpi::abi

extern "C" {

int PMPI_Win_create(void* base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm c, MPI_Win* w) {
  return call("MPI_Win_create", c, [&] {
    *w = create(MPI_WIN_FLAVOR_CREATE, base, size, disp_unit, c, nullptr);
    win_hints_create(*w, info);
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Win_create)

int PMPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm c, void* baseptr, MPI_Win* w) {
  return call("MPI_Win_allocate", c, [&] {
    void* mem = allocate(size);
    try {
      *w = create(MPI_WIN_FLAVOR_ALLOCATE, mem, size, disp_unit, c, mem);
      win_hints_create(*w, info);
    } catch (...) {
      std::free(mem);
      throw;
    }
    *static_cast<void**>(baseptr) = mem;
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Win_allocate)

int PMPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm c, void* baseptr, MPI_Win* w) {
  return call("MPI_Win_allocate_shared", c, [&] {
    *w = create(MPI_WIN_FLAVOR_SHARED, nullptr, size, disp_unit, c, nullptr);
    win_hints_create(*w, info);
    *static_cast<void**>(baseptr) = win(*w).attr_base;
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Win_allocate_shared)

int PMPI_Win_create_dynamic(MPI_Info info, MPI_Comm c, MPI_Win* w) {
  return call("MPI_Win_create_dynamic", c, [&] {
    *w = create(MPI_WIN_FLAVOR_DYNAMIC, MPI_BOTTOM, 0, 1, c, nullptr);
    win_hints_create(*w, info);
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Win_create_dynamic)

int PMPI_Win_attach(MPI_Win w, void* base, MPI_Aint size) {
  return win_call("MPI_Win_attach", w, [&] {
    Win& x = win(w);
    if (x.shared->flavor != MPI_WIN_FLAVOR_DYNAMIC)
      fail(MPI_ERR_RMA_FLAVOR, "memory can only be attached to a window made by MPI_Win_create_dynamic");
    if (size < 0) fail(MPI_ERR_SIZE, fmt::format("negative size {}", size));
    if (size == 0) return MPI_SUCCESS;
    if (base == nullptr) fail(MPI_ERR_ARG, "attaching a null address");
    auto& regions = x.shared->attached[static_cast<size_t>(x.rank)];
    const auto* b = static_cast<const std::byte*>(base);
    // Regions attached to one window must not overlap (MPI-3.1 §11.2.4).
    auto next = regions.lower_bound(b);
    if (next != regions.end() && next->first < b + size) {
      fail(MPI_ERR_RMA_ATTACH, fmt::format("[{}, +{}) overlaps memory already attached", base, size));
    }
    if (next != regions.begin() && std::prev(next)->first + std::prev(next)->second > b) {
      fail(MPI_ERR_RMA_ATTACH, fmt::format("[{}, +{}) overlaps memory already attached", base, size));
    }
    regions.emplace(b, size);
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Win_attach)

int PMPI_Win_detach(MPI_Win w, const void* base) {
  return win_call("MPI_Win_detach", w, [&] {
    Win& x = win(w);
    if (x.shared->flavor != MPI_WIN_FLAVOR_DYNAMIC)
      fail(MPI_ERR_RMA_FLAVOR, "memory can only be detached from a window made by MPI_Win_create_dynamic");
    auto& regions = x.shared->attached[static_cast<size_t>(x.rank)];
    if (regions.erase(static_cast<const std::byte*>(base)) == 0)
      fail(MPI_ERR_RMA_ATTACH, fmt::format("no memory attached at {}", base));
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Win_detach)

int PMPI_Win_free(MPI_Win* w) {
  return win_call("MPI_Win_free", *w, [&] {
    Win& x = win(*w);
    const std::string open = open_epoch(x);
    if (!open.empty()) fail(MPI_ERR_RMA_SYNC, open);
    complete_pending(x);
    delete_win_attrs(*w);
    MGEN_Barrier(x.comm);  // no rank frees memory others may still access
    MGEN_Comm_free(&x.comm);
    std::free(x.owned);
    RankState& st = state();
    st.comm_errhandler.erase(static_cast<MPI_Comm>(*w));
    st.wins[static_cast<uint32_t>(*w) & kIndexMask].reset();
    *w = MPI_WIN_NULL;
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Win_free)

int PMPI_Win_shared_query(MPI_Win w, int rank, MPI_Aint* size, int* disp_unit, void* baseptr) {
  return win_call("MPI_Win_shared_query", w, [&] {
    Win& x = win(w);
    const WinShared& s = *x.shared;
    // MPICH 4.0 answers for shared windows only.
    if (s.flavor != MPI_WIN_FLAVOR_SHARED)
      fail(MPI_ERR_RMA_FLAVOR, "the window was not made by MPI_Win_allocate_shared");
    const int n = static_cast<int>(s.base.size());
    int r = rank;
    if (rank == MPI_PROC_NULL) {
      // The lowest rank with memory (MPI-3.1 §11.2.3).
      r = -1;
      for (int i = 0; i < n && r < 0; ++i) {
        if (s.size[static_cast<size_t>(i)] > 0) r = i;
      }
      if (r < 0) {
        *size = 0;
        *disp_unit = 0;
        *static_cast<void**>(baseptr) = nullptr;
        return MPI_SUCCESS;
      }
    } else if (rank < 0 || rank >= n) {
      fail(MPI_ERR_RANK, fmt::format("rank {} is not in the window (0 to {})", rank, n - 1));
    }
    *size = s.size[static_cast<size_t>(r)];
    *disp_unit = s.disp_unit[static_cast<size_t>(r)];
    *static_cast<void**>(baseptr) = s.base[static_cast<size_t>(r)];
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Win_shared_query)

int PMPI_Win_get_attr(MPI_Win w, int keyval, void* value, int* flag) {
  return win_call("MPI_Win_get_attr", w, [&] {
    *flag = win_predefined_attr(w, keyval, value) || win_user_attr(w, keyval, static_cast<void**>(value)) ? 1 : 0;
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Win_get_attr)

int PMPI_Win_get_group(MPI_Win w, MPI_Group* g) {
  return win_call("MPI_Win_get_group", w, [&] {
    MGEN_Group h = MGEN_GROUP_NULL;
    MGEN_Comm_group(win(w).comm, &h);
    *g = to_mpi_group(h);
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Win_get_group)

int PMPI_Win_set_name(MPI_Win w, const char* name) {
  return win_call("MPI_Win_set_name", w, [&] {
    if (name == nullptr) fail(MPI_ERR_ARG, "null name");
    win(w).name.assign(name, strnlen(name, MPI_MAX_OBJECT_NAME - 1));
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Win_set_name)

int PMPI_Win_get_name(MPI_Win w, char* name, int* resultlen) {
  return win_call("MPI_Win_get_name", w, [&] {
    const std::string& n = win(w).name;
    std::memcpy(name, n.c_str(), n.size() + 1);
    *resultlen = static_cast<int>(n.size());
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Win_get_name)

int PMPI_Win_set_info(MPI_Win w, MPI_Info info) {
  return win_call("MPI_Win_set_info", w, [&] {
    win(w);  // hints are kept to be reported (info.cpp); they do not change the model
    win_hints_set(w, info);
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Win_set_info)

int PMPI_Win_get_info(MPI_Win w, MPI_Info* info) {
  return win_call("MPI_Win_get_info", w, [&] {
    win(w);
    *info = win_hints_get(w);  // a new info object, as MPI requires: MPICH's keys
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Win_get_info)

int PMPI_Win_create_errhandler(MPI_Win_errhandler_function* fn, MPI_Errhandler* e) {
  // Window and communicator handlers have the same signature (a handle pointer, an error code).
  return PMPI_Comm_create_errhandler(reinterpret_cast<MPI_Comm_errhandler_function*>(fn), e);
}
MGEN_MPI_ALIAS(Win_create_errhandler)

int PMPI_Win_set_errhandler(MPI_Win w, MPI_Errhandler e) {
  return win_call("MPI_Win_set_errhandler", w, [&] {
    win(w);
    if (e != MPI_ERRORS_RETURN && e != MPI_ERRORS_ARE_FATAL && e != MPI_ERRORS_ABORT) {
      // A handler of MPI_Win_create_errhandler (the communicators' table, env.cpp).
      const size_t i = static_cast<uint32_t>(e) & 0xffff;
      const auto& handlers = state().errhandlers;
      if ((static_cast<uint32_t>(e) & 0xffff0000u) != 0x94000000u || i >= handlers.size() || !handlers[i].used)
        fail(MPI_ERR_ARG, fmt::format("invalid error handler {:#x}", e));
    }
    state().comm_errhandler[static_cast<MPI_Comm>(w)] = e;
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Win_set_errhandler)

int PMPI_Win_get_errhandler(MPI_Win w, MPI_Errhandler* e) {
  return win_call("MPI_Win_get_errhandler", w, [&] {
    win(w);
    auto& handlers = state().comm_errhandler;
    auto it = handlers.find(static_cast<MPI_Comm>(w));
    *e = it == handlers.end() ? MPI_ERRORS_ARE_FATAL : it->second;
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Win_get_errhandler)

int PMPI_Win_call_errhandler(MPI_Win w, int errorcode) {
  const int rc = win_call("MPI_Win_call_errhandler", w, [&]() -> int {
    win(w);
    fail(errorcode, fmt::format("MPI_Win_call_errhandler with error code {}", errorcode));
  });
  // Succeeds once a user handler has returned (MPI-3.1 §8.3.6).
  if (rc == errorcode && is_window_handle(w) && in_rank()) {
    auto& handlers = state().comm_errhandler;
    auto it = handlers.find(static_cast<MPI_Comm>(w));
    if (it != handlers.end() && it->second != MPI_ERRORS_RETURN) return MPI_SUCCESS;
  }
  return rc;
}
MGEN_MPI_ALIAS(Win_call_errhandler)

// Address arithmetic for dynamic windows' displacements (MPI-3.1 §4.1.5): plain integer
// arithmetic on this platform's flat addresses.
MPI_Aint PMPI_Aint_add(MPI_Aint base, MPI_Aint disp) {
  return base + disp;
}
MGEN_MPI_ALIAS(Aint_add)

MPI_Aint PMPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2) {
  return addr1 - addr2;
}
MGEN_MPI_ALIAS(Aint_diff)

int PMPI_Alloc_mem(MPI_Aint size, MPI_Info, void* baseptr) {
  if (size < 0) return MPI_ERR_SIZE;
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
