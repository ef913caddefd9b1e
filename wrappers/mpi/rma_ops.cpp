// MPI one-sided transfers: Put, Get, Accumulate, Get_accumulate, Fetch_and_op,
// Compare_and_swap and their request-based forms (MPI_Rput...).
//
// Each call checks its target (rank, epoch, bounds), moves the data now (rma.hpp says why that
// is safe) and posts the RDMA transfers that model its time on the NIC model:
//   Put, Accumulate      a put of the origin's bytes;
//   Get                  a get of the target's bytes;
//   Get_accumulate       a get of the old contents and a put of the origin's bytes;
//   Fetch_and_op, CAS    one element: a small get round trip (the NIC's atomic).
// Transfers to the rank itself are memory copies and cost nothing on the network. The
// synchronisation that ends the epoch (rma_sync.cpp) waits for the transfers.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "core/datatype.hpp"
#include "core/world.hpp"
#include "mpi/rma.hpp"

using namespace mgen::mpi;
using namespace mgen::mpi::abi;
using XRequest = mgen::mpi::abi::Request;

namespace {

constexpr int kRmaTag = -77;                         // RDMA tag of one-sided traffic (never polled)
constexpr int kNoOp = -1;                            // MPI_NO_OP among the MGEN operation numbers
constexpr uint32_t kRequestIndexMask = 0x03ffffffu;  // an MPI request handle's slot (shim.cpp)

int rma_op(MPI_Op op) {
  if (op == MPI_NO_OP) return kNoOp;
  if (user_op(op) != nullptr) fail(MPI_ERR_OP, "one-sided accumulates take predefined operations only");
  return mgen_op(op);
}

// Checks `target` against the window and the rank's epochs (MPI_PROC_NULL: false, nothing to
// do).
bool check_target(Win& w, int target) {
  if (target == MPI_PROC_NULL) return false;
  const int n = static_cast<int>(w.shared->base.size());
  if (target < 0 || target >= n) {
    fail(MPI_ERR_RANK, fmt::format("target rank {} is not in the window (0 to {})", target, n - 1));
  }
  // Any passive-target epoch admits any target, as MPICH checks (MPI requires a lock on the
  // target itself; data moving at the call makes the difference invisible here).
  if (w.fence || w.lock_all || !w.held.empty()) return true;
  if (w.accessing && std::find(w.access.begin(), w.access.end(), target) != w.access.end()) return true;
  fail(MPI_ERR_RMA_SYNC, fmt::format("no access epoch covers target rank {} (the rank must first call MPI_Win_fence, "
                                     "MPI_Win_start with a group holding it, MPI_Win_lock or MPI_Win_lock_all)",
                                     target));
}

// Bytes spanned by `count` of `t` from the start of its first element, and where the data
// begins (what must lie inside the target's memory).
struct Span {
  int64_t first = 0;
  uint64_t end = 0;
};
Span span_of(int count, const DType& t) {
  if (count == 0 || t.size == 0) return {};
  return {t.true_lb, static_cast<uint64_t>((count - 1) * t.extent() + t.true_ub)};
}

// The target's memory at displacement `disp` for `count` of `t`, checked against its window.
std::byte* target_at(Win& w, int target, MPI_Aint disp, int count, const DType& t) {
  const WinShared& s = *w.shared;
  const Span span = span_of(count, t);
  if (s.flavor == MPI_WIN_FLAVOR_DYNAMIC) {
    // The displacement is an address (MPI_Get_address) inside memory the target attached.
    auto* at = reinterpret_cast<std::byte*>(disp);
    if (span.end == 0) return at;
    const auto& regions = s.attached[static_cast<size_t>(target)];
    // One attached region, or several that abut (MPICH accepts an access across them).
    auto it = regions.upper_bound(at + span.first);
    if (it != regions.begin()) {
      --it;
      const std::byte* covered = it->first + it->second;
      if (at + span.first >= it->first) {
        for (auto next = std::next(it); next != regions.end() && next->first == covered; ++next)
          covered = next->first + next->second;
        if (at + span.end <= covered) return at;
      }
    }
    fail(MPI_ERR_RMA_RANGE, fmt::format("access of [{:#x}, {:#x}) is outside the memory rank {} attached to the "
                                        "dynamic window",
                                        disp + span.first, disp + static_cast<MPI_Aint>(span.end), target));
  }
  if (disp < 0) fail(MPI_ERR_DISP, fmt::format("negative target displacement {}", disp));
  const MPI_Aint off = disp * s.disp_unit[static_cast<size_t>(target)];
  if (span.end == 0) return s.base[static_cast<size_t>(target)] + off;
  const MPI_Aint size = s.size[static_cast<size_t>(target)];
  if (off + span.first < 0 || off + static_cast<MPI_Aint>(span.end) > size) {
    fail(MPI_ERR_RMA_RANGE, fmt::format("access of bytes [{}, {}) at displacement {} is outside rank {}'s window of "
                                        "{} bytes",
                                        off + span.first, off + static_cast<MPI_Aint>(span.end), disp, target, size));
  }
  return s.base[static_cast<size_t>(target)] + off;
}

// Posts one RDMA transfer of the rank (kNone if it needs no network: local or empty).
uint32_t post(Win& w, mgen::mpi::ReqKind kind, int target, uint64_t bytes) {
  if (target == w.rank || bytes == 0) return mgen::mpi::kNone;
  const Comm& c = *scope().rank().comms[w.comm];
  return scope().world().post_rdma(scope().rank(), kind, c.world(target), bytes, kRmaTag);
}

void track(Win& w, int target, uint32_t q) {
  if (q != mgen::mpi::kNone) w.pending.push_back({target, q});
}

// A request-based operation is waited for only while the user's request still holds its world
// request (once completed or freed by the user, the slot is no longer ours to look at).
bool user_holds(RankState& st, const Pending& p) {
  const size_t i = static_cast<uint32_t>(p.user) & kRequestIndexMask;
  if (i >= st.requests.size() || st.requests[i].kind != XRequest::Kind::kP2P ||
      st.requests[i].inner != static_cast<MGEN_Request>(p.q + 1)) {
    return false;
  }
  const mgen::mpi::ReqKind k = scope().rank().requests[p.q].kind;
  return k == mgen::mpi::ReqKind::kPut || k == mgen::mpi::ReqKind::kGet;
}

// The MPI request of a request-based operation: completes with world request `q` (none:
// complete at once). The window keeps waiting for it at synchronisation.
MPI_Request rma_request(Win& w, int target, uint32_t q) {
  XRequest* r = nullptr;
  const MPI_Request h = new_request(&r);
  if (q == mgen::mpi::kNone) {
    r->kind = XRequest::Kind::kDone;
    r->done_status = MGEN_Status{MGEN_ANY_SOURCE, MGEN_ANY_TAG, 0, 0};
  } else {
    r->kind = XRequest::Kind::kP2P;
    r->inner = static_cast<MGEN_Request>(q + 1);
    // Entries of requests the user has completed since are dropped first (their slots may
    // be this one).
    RankState& st = state();
    std::erase_if(w.pending,
                  [&](const Pending& p) { return p.user != MPI_REQUEST_NULL && (p.q == q || !user_holds(st, p)); });
    w.pending.push_back({target, q, h});
  }
  return h;
}

// The origin's data as packed bytes (a private copy when the target is the rank itself, whose
// window memory may overlap the origin buffer).
std::vector<std::byte> origin_bytes(const void* origin, int count, MPI_Datatype type) {
  Flat src = Flat::in(origin, count, type);
  const auto* p = static_cast<const std::byte*>(src.data());
  return p == nullptr ? std::vector<std::byte>(src.bytes()) : std::vector<std::byte>(p, p + src.bytes());
}

void copy_out(const std::vector<std::byte>& data, void* result, int count, MPI_Datatype type) {
  Flat dst = Flat::out(result, count, type);
  if (dst.bytes() > 0 && !data.empty())
    std::memcpy(dst.data(), data.data(), std::min<uint64_t>(data.size(), dst.bytes()));
  dst.finish();
}

// The read-modify-write of every accumulate-like call at the target, atomic per element (the
// rank's fiber runs it to the end): `fetched` (if not null) receives the target's old
// contents, then target = origin op target (MPI_REPLACE: the origin; MPI_NO_OP: unchanged).
void read_modify_write(std::byte* at, int tcount, const DType& tt, const std::vector<std::byte>& origin, int op,
                       std::vector<std::byte>* fetched) {
  std::vector<std::byte> cur(tt.size * static_cast<uint64_t>(tcount));
  pack(at, tcount, tt, cur.data());
  if (fetched != nullptr) *fetched = cur;
  if (op == kNoOp) return;
  const uint64_t n = std::min<uint64_t>(cur.size(), origin.size());
  if (op == MGEN_REPLACE) {
    if (n > 0) std::memcpy(cur.data(), origin.data(), n);
  } else if (n > 0) {
    if (tt.base == 0) {
      fail(MPI_ERR_TYPE, "an accumulate's target datatype must be built from one predefined datatype");
    }
    const TypeInfo* info = tt.base != 0 ? type_info(tt.base) : nullptr;
    const uint64_t elems = info != nullptr && info->size > 0 ? n / info->size : 0;
    const std::string problem = reduce_apply(op, tt.base, origin.data(), cur.data(), elems);
    if (!problem.empty()) fail(MPI_ERR_OP, problem);
  }
  unpack(cur.data(), cur.size(), at, tcount, tt);
}

// The origin and target of an accumulate must be built from the same predefined type
// (MPI-3.1 §11.3.4).
void check_same_base(MPI_Datatype otype, const DType& tt, int op) {
  if (op == kNoOp || op == MGEN_REPLACE) return;
  const DType& ot = dtype(otype);
  if (ot.base != 0 && tt.base != 0 && ot.base != tt.base) {
    fail(MPI_ERR_TYPE, fmt::format("origin datatype {} and target datatype {} are not built from the same "
                                   "predefined datatype",
                                   ot.name.empty() ? "(derived)" : ot.name, tt.name.empty() ? "(derived)" : tt.name));
  }
}

// MPI_Put; returns the world request of its transfer (kNone if none).
uint32_t do_put(Win& w, const void* origin, int ocount, MPI_Datatype otype, int target, MPI_Aint tdisp, int tcount,
                MPI_Datatype ttype) {
  const std::vector<std::byte> src = origin_bytes(origin, ocount, otype);
  const DType& tt = dtype(ttype);
  check_count(tcount);
  if (tt.size * static_cast<uint64_t>(tcount) < src.size())
    fail(MPI_ERR_TRUNCATE, fmt::format("the target ({} bytes) is smaller than the origin ({} bytes)",
                                       tt.size * static_cast<uint64_t>(tcount), src.size()));
  if (!check_target(w, target)) return mgen::mpi::kNone;
  std::byte* at = target_at(w, target, tdisp, tcount, tt);
  unpack(src.data(), src.size(), at, tcount, tt);
  return post(w, mgen::mpi::ReqKind::kPut, target, src.size());
}

uint32_t do_get(Win& w, void* origin, int ocount, MPI_Datatype otype, int target, MPI_Aint tdisp, int tcount,
                MPI_Datatype ttype) {
  const DType& tt = dtype(ttype);
  check_count(tcount);
  check_count(ocount);
  dtype(otype);
  if (!check_target(w, target)) return mgen::mpi::kNone;
  std::byte* at = target_at(w, target, tdisp, tcount, tt);
  std::vector<std::byte> data(tt.size * static_cast<uint64_t>(tcount));
  pack(at, tcount, tt, data.data());
  copy_out(data, origin, ocount, otype);
  return post(w, mgen::mpi::ReqKind::kGet, target, data.size());
}

uint32_t do_accumulate(Win& w, const void* origin, int ocount, MPI_Datatype otype, int target, MPI_Aint tdisp,
                       int tcount, MPI_Datatype ttype, MPI_Op op) {
  const int mop = rma_op(op);
  if (mop == kNoOp) fail(MPI_ERR_OP, "MPI_NO_OP is for MPI_Get_accumulate and MPI_Fetch_and_op only");
  const std::vector<std::byte> src = origin_bytes(origin, ocount, otype);
  const DType& tt = dtype(ttype);
  check_count(tcount);
  if (!src.empty() && tcount > 0) check_same_base(otype, tt, mop);  // empty transfers match anything
  if (!check_target(w, target)) return mgen::mpi::kNone;
  std::byte* at = target_at(w, target, tdisp, tcount, tt);
  read_modify_write(at, tcount, tt, src, mop, nullptr);
  return post(w, mgen::mpi::ReqKind::kPut, target, src.size());
}

// MPI_Get_accumulate. Returns the get (the result's arrival); the put is tracked by the window.
uint32_t do_get_accumulate(Win& w, const void* origin, int ocount, MPI_Datatype otype, void* result, int rcount,
                           MPI_Datatype rtype, int target, MPI_Aint tdisp, int tcount, MPI_Datatype ttype, MPI_Op op) {
  const int mop = rma_op(op);
  // With MPI_NO_OP the origin arguments are ignored (MPI-3.1 §11.3.4).
  const std::vector<std::byte> src = mop == kNoOp ? std::vector<std::byte>{} : origin_bytes(origin, ocount, otype);
  const DType& tt = dtype(ttype);
  check_count(tcount);
  check_count(rcount);
  dtype(rtype);
  if (mop != kNoOp && !src.empty() && tcount > 0) check_same_base(otype, tt, mop);
  if (!check_target(w, target)) return mgen::mpi::kNone;
  std::byte* at = target_at(w, target, tdisp, tcount, tt);
  std::vector<std::byte> old;
  read_modify_write(at, tcount, tt, src, mop, &old);
  copy_out(old, result, rcount, rtype);
  track(w, target, post(w, mgen::mpi::ReqKind::kPut, target, src.size()));
  return post(w, mgen::mpi::ReqKind::kGet, target, old.size());
}

// A single-element atomic's datatype: predefined (MPI-3.1 §11.3.4).
const DType& atomic_type(MPI_Datatype t) {
  const DType& d = dtype(t);
  if (!d.predefined) fail(MPI_ERR_TYPE, "single-element atomics take a predefined datatype");
  return d;
}

}  // namespace

extern "C" {

int PMPI_Put(const void* origin, int ocount, MPI_Datatype otype, int target, MPI_Aint tdisp, int tcount,
             MPI_Datatype ttype, MPI_Win w) {
  return win_call("MPI_Put", w, [&] {
    Win& x = win(w);
    track(x, target, do_put(x, origin, ocount, otype, target, tdisp, tcount, ttype));
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Put)

int PMPI_Get(void* origin, int ocount, MPI_Datatype otype, int target, MPI_Aint tdisp, int tcount, MPI_Datatype ttype,
             MPI_Win w) {
  return win_call("MPI_Get", w, [&] {
    Win& x = win(w);
    track(x, target, do_get(x, origin, ocount, otype, target, tdisp, tcount, ttype));
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Get)

int PMPI_Accumulate(const void* origin, int ocount, MPI_Datatype otype, int target, MPI_Aint tdisp, int tcount,
                    MPI_Datatype ttype, MPI_Op op, MPI_Win w) {
  return win_call("MPI_Accumulate", w, [&] {
    Win& x = win(w);
    track(x, target, do_accumulate(x, origin, ocount, otype, target, tdisp, tcount, ttype, op));
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Accumulate)

int PMPI_Get_accumulate(const void* origin, int ocount, MPI_Datatype otype, void* result, int rcount,
                        MPI_Datatype rtype, int target, MPI_Aint tdisp, int tcount, MPI_Datatype ttype, MPI_Op op,
                        MPI_Win w) {
  return win_call("MPI_Get_accumulate", w, [&] {
    Win& x = win(w);
    track(x, target,
          do_get_accumulate(x, origin, ocount, otype, result, rcount, rtype, target, tdisp, tcount, ttype, op));
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Get_accumulate)

int PMPI_Fetch_and_op(const void* origin, void* result, MPI_Datatype type, int target, MPI_Aint tdisp, MPI_Op op,
                      MPI_Win w) {
  return win_call("MPI_Fetch_and_op", w, [&] {
    Win& x = win(w);
    const int mop = rma_op(op);
    const DType& t = atomic_type(type);
    const std::vector<std::byte> src = mop == kNoOp ? std::vector<std::byte>{} : origin_bytes(origin, 1, type);
    if (!check_target(x, target)) return MPI_SUCCESS;
    std::byte* at = target_at(x, target, tdisp, 1, t);
    std::vector<std::byte> old;
    read_modify_write(at, 1, t, src, mop, &old);
    // `old` is packed: a padded pair type (MPI_SHORT_INT's int sits at offset 4, not 2) must
    // be laid out again, not copied.
    copy_out(old, result, 1, type);
    track(x, target, post(x, mgen::mpi::ReqKind::kGet, target, t.size));
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Fetch_and_op)

int PMPI_Compare_and_swap(const void* origin, const void* compare, void* result, MPI_Datatype type, int target,
                          MPI_Aint tdisp, MPI_Win w) {
  return win_call("MPI_Compare_and_swap", w, [&] {
    Win& x = win(w);
    const DType& t = atomic_type(type);
    // C integers, Fortran integers, logicals and bytes (MPI-3.1 §11.3.4): compared bitwise.
    const TypeInfo* info = t.base != 0 ? type_info(t.base) : nullptr;
    if (info == nullptr || info->kind == TypeInfo::Kind::kFloating || info->kind == TypeInfo::Kind::kPair) {
      fail(MPI_ERR_TYPE, fmt::format("MPI_Compare_and_swap does not take {}", t.name));
    }
    if (!check_target(x, target)) return MPI_SUCCESS;
    std::byte* at = target_at(x, target, tdisp, 1, t);
    std::vector<std::byte> old(at, at + t.size);
    if (std::memcmp(old.data(), compare, t.size) == 0) std::memmove(at, origin, t.size);
    std::memcpy(result, old.data(), t.size);
    track(x, target, post(x, mgen::mpi::ReqKind::kGet, target, t.size));
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Compare_and_swap)

int PMPI_Rput(const void* origin, int ocount, MPI_Datatype otype, int target, MPI_Aint tdisp, int tcount,
              MPI_Datatype ttype, MPI_Win w, MPI_Request* request) {
  return win_call("MPI_Rput", w, [&] {
    Win& x = win(w);
    *request = rma_request(x, target, do_put(x, origin, ocount, otype, target, tdisp, tcount, ttype));
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Rput)

int PMPI_Rget(void* origin, int ocount, MPI_Datatype otype, int target, MPI_Aint tdisp, int tcount, MPI_Datatype ttype,
              MPI_Win w, MPI_Request* request) {
  return win_call("MPI_Rget", w, [&] {
    Win& x = win(w);
    *request = rma_request(x, target, do_get(x, origin, ocount, otype, target, tdisp, tcount, ttype));
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Rget)

int PMPI_Raccumulate(const void* origin, int ocount, MPI_Datatype otype, int target, MPI_Aint tdisp, int tcount,
                     MPI_Datatype ttype, MPI_Op op, MPI_Win w, MPI_Request* request) {
  return win_call("MPI_Raccumulate", w, [&] {
    Win& x = win(w);
    *request = rma_request(x, target, do_accumulate(x, origin, ocount, otype, target, tdisp, tcount, ttype, op));
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Raccumulate)

int PMPI_Rget_accumulate(const void* origin, int ocount, MPI_Datatype otype, void* result, int rcount,
                         MPI_Datatype rtype, int target, MPI_Aint tdisp, int tcount, MPI_Datatype ttype, MPI_Op op,
                         MPI_Win w, MPI_Request* request) {
  return win_call("MPI_Rget_accumulate", w, [&] {
    Win& x = win(w);
    *request = rma_request(
        x, target,
        do_get_accumulate(x, origin, ocount, otype, result, rcount, rtype, target, tdisp, tcount, ttype, op));
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Rget_accumulate)

}  // extern "C"

namespace mgen::mpi::abi {

bool complete_pending(Win& w, int target) {
  if (w.pending.empty()) return false;
  RankState& st = state();
  std::vector<uint32_t> wait, release;
  std::vector<Pending> keep;
  for (const Pending& p : w.pending) {
    if (target >= 0 && p.target != target) {
      keep.push_back(p);
      continue;
    }
    if (p.user == MPI_REQUEST_NULL) {
      wait.push_back(p.q);
      release.push_back(p.q);
      continue;
    }
    if (user_holds(st, p)) wait.push_back(p.q);
  }
  w.pending = std::move(keep);
  // A request-based entry whose user request completed may name a slot reused since: once.
  std::sort(wait.begin(), wait.end());
  wait.erase(std::unique(wait.begin(), wait.end()), wait.end());
  if (wait.empty()) return false;
  scope().world().wait_all(scope().rank(), wait.data(), static_cast<uint32_t>(wait.size()));
  for (uint32_t q : release)
    scope().rank().free_request_slot(q);
  return true;
}

}  // namespace mgen::mpi::abi
