// MPI one-sided synchronisation: fence, generalised active target (post/start/complete/wait/
// test), passive target locks, flushes and MPI_Win_sync.
//
// Since data moves at the call (rma.hpp), an epoch must be open before the first transfer
// touches the target's memory, and its end must wait for the transfers' modelled time:
//   fence       completes the rank's transfers, then a barrier on the window;
//   post/start  each target sends every origin of its group a zero-byte notice, and
//               MPI_Win_start waits for the notices of all its targets;
//   complete    completes the transfers, then sends each target a zero-byte notice, which
//               MPI_Win_wait (or a true MPI_Win_test) waits for;
//   lock        an atomic on the target's lock word: one small get round trip per attempt,
//               retried while another rank holds it in a conflicting mode (shared locks
//               coexist, an exclusive one excludes every other); MPI_Win_lock_all takes a
//               shared lock on every member without a round trip (acquired lazily, as MPICH
//               does) unless it must wait;
//   unlock, flush   complete the transfers to the target (MPI_Win_flush_local as flush: the
//               NIC model reports a transfer complete once, at the origin).
// Notices travel on the window's private communicator, as ordinary messages of the model.
#include <fmt/format.h>

#include <algorithm>

#include "core/world.hpp"
#include "mpi/rma.hpp"

using namespace mgen::mpi;
using namespace mgen::mpi::abi;

namespace {

constexpr int kPostTag = 1;      // MPI_Win_post's notice to an origin
constexpr int kCompleteTag = 2;  // MPI_Win_complete's notice to a target
constexpr int kLockTag = -78;    // RDMA tag of lock attempts (never polled)
constexpr int kKnownAsserts =
    MPI_MODE_NOCHECK | MPI_MODE_NOSTORE | MPI_MODE_NOPUT | MPI_MODE_NOPRECEDE | MPI_MODE_NOSUCCEED;

void check_assert(int flags) {
  if ((flags & ~kKnownAsserts) != 0) fail(MPI_ERR_ARG, fmt::format("invalid assertion {:#x}", flags));  // MPICH's class
}

// Lets simulated time pass (a poll of the progress engine): a rank that waits for another by
// looping must let the others run.
void let_time_pass() {
  scope().world().compute(scope().rank(), mgen::simcore::Time::ns(100));
  int flag = 0;
  MGEN_Status st{};
  MGEN_Iprobe(MGEN_ANY_SOURCE, MGEN_ANY_TAG, MGEN_COMM_SELF, &flag, &st);
}

// Completes the rank's transfers to `target` (-1: all) for an unlock or a flush. With none in
// flight it still polls: a program that spins on atomics to its own memory (a CAS lock held
// by another rank) must let the others run.
void complete_or_poll(Win& w, int target) {
  if (!complete_pending(w, target)) let_time_pass();
}

void check_lock_target(const Win& w, int target) {
  const int n = static_cast<int>(w.shared->base.size());
  if (target < 0 || target >= n) {
    fail(MPI_ERR_RANK, fmt::format("target rank {} is not in the window (0 to {})", target, n - 1));
  }
}

// Whether `rank` may take `target`'s lock in mode `type` now: no conflicting holder, and no
// waiter queued before it that the grant would overtake (an exclusive request waits for every
// earlier one, a shared request for earlier exclusive ones).
bool may_take(const WinShared& s, size_t target, int rank, int type) {
  if (s.exclusive[target] >= 0 || (type == MPI_LOCK_EXCLUSIVE && s.shared_count[target] > 0)) return false;
  for (const auto& [waiter, wtype] : s.lock_waiters[target]) {
    if (waiter == rank) return true;
    if (type == MPI_LOCK_EXCLUSIVE || wtype == MPI_LOCK_EXCLUSIVE) return false;
  }
  return true;
}

// Takes `target`'s lock in mode `type`. `round_trip`: each attempt is an atomic on the
// target's lock word (a remote target); otherwise the first attempt is free. A failed
// attempt queues the rank (MPICH's lock queue at the target): later requests do not overtake
// it.
void acquire(Win& w, int target, int type, bool round_trip) {
  WinShared& s = *w.shared;
  const size_t t = static_cast<size_t>(target);
  bool queued = false;
  for (bool first = true;; first = false) {
    if (target != w.rank && (round_trip || !first)) {
      const Comm& c = *scope().rank().comms[w.comm];
      const uint32_t q = scope().world().post_rdma(scope().rank(), ReqKind::kGet, c.world(target), 8, kLockTag);
      scope().world().wait_all(scope().rank(), &q, 1);
      scope().rank().free_request_slot(q);
    } else if (!first) {
      let_time_pass();
    }
    if (may_take(s, t, w.rank, type)) break;
    if (!queued) s.lock_waiters[t].emplace_back(w.rank, type);
    queued = true;
  }
  if (queued) {
    auto& waiters = s.lock_waiters[t];
    waiters.erase(std::find(waiters.begin(), waiters.end(), std::pair{w.rank, type}));
  }
  if (type == MPI_LOCK_EXCLUSIVE) {
    s.exclusive[t] = w.rank;
  } else {
    ++s.shared_count[t];
  }
}

void release(Win& w, int target, int type) {
  WinShared& s = *w.shared;
  if (type == MPI_LOCK_EXCLUSIVE) {
    s.exclusive[static_cast<size_t>(target)] = -1;
  } else {
    --s.shared_count[static_cast<size_t>(target)];
  }
}

// Zero-byte notices to (or from) `peers` on the window's communicator.
std::vector<MGEN_Request> notify(Win& w, const std::vector<int>& peers, int tag) {
  std::vector<MGEN_Request> reqs(peers.size(), MGEN_REQUEST_NULL);
  for (size_t i = 0; i < peers.size(); ++i)
    MGEN_Isend(nullptr, 0, MGEN_BYTE, peers[i], tag, w.comm, &reqs[i]);
  return reqs;
}
std::vector<MGEN_Request> expect(Win& w, const std::vector<int>& peers, int tag) {
  std::vector<MGEN_Request> reqs(peers.size(), MGEN_REQUEST_NULL);
  for (size_t i = 0; i < peers.size(); ++i)
    MGEN_Irecv(nullptr, 0, MGEN_BYTE, peers[i], tag, w.comm, &reqs[i]);
  return reqs;
}
void wait_all(std::vector<MGEN_Request>& reqs) {
  if (!reqs.empty()) MGEN_Waitall(static_cast<int>(reqs.size()), reqs.data(), MGEN_STATUSES_IGNORE);
  reqs.clear();
}

void require_passive(const Win& w, int target) {
  if (w.lock_all || (target < 0 ? !w.held.empty() : w.held.count(target) != 0)) return;
  fail(MPI_ERR_RMA_SYNC, target < 0 ? "the rank holds no lock on the window (MPI_Win_lock or MPI_Win_lock_all)"
                                    : fmt::format("the rank holds no lock on rank {} (MPI_Win_lock or "
                                                  "MPI_Win_lock_all)",
                                                  target));
}

}  // namespace

extern "C" {

int PMPI_Win_fence(int flags, MPI_Win w) {
  return win_call("MPI_Win_fence", w, [&] {
    Win& x = win(w);
    check_assert(flags);
    if (x.accessing || x.exposing || x.lock_all || !x.held.empty())
      fail(MPI_ERR_RMA_SYNC, "fence inside a post/start or lock epoch");
    complete_pending(x);
    MGEN_Barrier(x.comm);
    x.fence = (flags & MPI_MODE_NOSUCCEED) == 0;
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Win_fence)

int PMPI_Win_post(MPI_Group g, int flags, MPI_Win w) {
  return win_call("MPI_Win_post", w, [&] {
    Win& x = win(w);
    check_assert(flags);
    if (x.exposing) fail(MPI_ERR_RMA_SYNC, "MPI_Win_post while the previous exposure epoch is not ended");
    x.exposed = window_ranks(x, g);
    // With MPI_MODE_NOCHECK every origin knows the post has happened (MPI-3.1 §11.5.5): no
    // notice; MPI_Win_start must then say the same.
    if ((flags & MPI_MODE_NOCHECK) == 0) x.exposure_reqs = notify(x, x.exposed, kPostTag);
    const std::vector<MGEN_Request> done = expect(x, x.exposed, kCompleteTag);
    x.exposure_reqs.insert(x.exposure_reqs.end(), done.begin(), done.end());
    x.exposing = true;
    x.fence = false;
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Win_post)

int PMPI_Win_start(MPI_Group g, int flags, MPI_Win w) {
  return win_call("MPI_Win_start", w, [&] {
    Win& x = win(w);
    check_assert(flags);
    if (x.accessing) fail(MPI_ERR_RMA_SYNC, "MPI_Win_start while the previous access epoch is not completed");
    std::vector<int> targets = window_ranks(x, g);
    if ((flags & MPI_MODE_NOCHECK) == 0) {
      std::vector<MGEN_Request> posted = expect(x, targets, kPostTag);
      wait_all(posted);
    }
    x.access = std::move(targets);
    x.accessing = true;
    x.fence = false;
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Win_start)

int PMPI_Win_complete(MPI_Win w) {
  return win_call("MPI_Win_complete", w, [&] {
    Win& x = win(w);
    if (!x.accessing) fail(MPI_ERR_RMA_SYNC, "MPI_Win_complete without a matching MPI_Win_start");
    complete_pending(x);
    std::vector<MGEN_Request> sent = notify(x, x.access, kCompleteTag);
    wait_all(sent);
    x.access.clear();
    x.accessing = false;
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Win_complete)

int PMPI_Win_wait(MPI_Win w) {
  return win_call("MPI_Win_wait", w, [&] {
    Win& x = win(w);
    if (!x.exposing) fail(MPI_ERR_RMA_SYNC, "MPI_Win_wait without a matching MPI_Win_post");
    wait_all(x.exposure_reqs);
    x.exposed.clear();
    x.exposing = false;
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Win_wait)

int PMPI_Win_test(MPI_Win w, int* flag) {
  return win_call("MPI_Win_test", w, [&] {
    Win& x = win(w);
    if (!x.exposing) fail(MPI_ERR_RMA_SYNC, "MPI_Win_test without a matching MPI_Win_post");
    *flag = 1;
    if (!x.exposure_reqs.empty()) {
      MGEN_Testall(static_cast<int>(x.exposure_reqs.size()), x.exposure_reqs.data(), flag, MGEN_STATUSES_IGNORE);
    }
    if (*flag) {
      x.exposure_reqs.clear();
      x.exposed.clear();
      x.exposing = false;
    }
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Win_test)

int PMPI_Win_lock(int lock_type, int target, int flags, MPI_Win w) {
  return win_call("MPI_Win_lock", w, [&] {
    Win& x = win(w);
    check_assert(flags);
    if (lock_type != MPI_LOCK_EXCLUSIVE && lock_type != MPI_LOCK_SHARED)
      fail(MPI_ERR_ARG, fmt::format("invalid lock type {}", lock_type));  // MPICH's class
    if (target == MPI_PROC_NULL) return MPI_SUCCESS;
    check_lock_target(x, target);
    if (x.held.count(target) != 0) fail(MPI_ERR_RMA_SYNC, fmt::format("the rank already holds a lock on {}", target));
    if (x.lock_all) fail(MPI_ERR_RMA_SYNC, "MPI_Win_lock inside MPI_Win_lock_all");
    if ((flags & MPI_MODE_NOCHECK) != 0) {
      // The program asserts no conflicting lock can exist: no attempt on the lock word.
      if (lock_type == MPI_LOCK_EXCLUSIVE) {
        x.shared->exclusive[static_cast<size_t>(target)] = x.rank;
      } else {
        ++x.shared->shared_count[static_cast<size_t>(target)];
      }
    } else {
      acquire(x, target, lock_type, true);
    }
    x.held[target] = lock_type;
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Win_lock)

int PMPI_Win_unlock(int target, MPI_Win w) {
  return win_call("MPI_Win_unlock", w, [&] {
    Win& x = win(w);
    if (target == MPI_PROC_NULL) return MPI_SUCCESS;
    check_lock_target(x, target);
    auto it = x.held.find(target);
    if (it == x.held.end()) fail(MPI_ERR_RMA_SYNC, fmt::format("no lock held on rank {}", target));
    complete_or_poll(x, target);
    release(x, target, it->second);
    x.held.erase(it);
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Win_unlock)

int PMPI_Win_lock_all(int flags, MPI_Win w) {
  return win_call("MPI_Win_lock_all", w, [&] {
    Win& x = win(w);
    check_assert(flags);
    if (x.lock_all) fail(MPI_ERR_RMA_SYNC, "MPI_Win_lock_all while already inside MPI_Win_lock_all");
    if (!x.held.empty())
      fail(MPI_ERR_RMA_SYNC, fmt::format("MPI_Win_lock_all while holding a lock on rank {}", x.held.begin()->first));
    const int n = static_cast<int>(x.shared->base.size());
    for (int t = 0; t < n; ++t) {
      if ((flags & MPI_MODE_NOCHECK) != 0) {
        ++x.shared->shared_count[static_cast<size_t>(t)];
      } else {
        acquire(x, t, MPI_LOCK_SHARED, false);
      }
    }
    x.lock_all = true;
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Win_lock_all)

int PMPI_Win_unlock_all(MPI_Win w) {
  return win_call("MPI_Win_unlock_all", w, [&] {
    Win& x = win(w);
    if (!x.lock_all) fail(MPI_ERR_RMA_SYNC, "MPI_Win_unlock_all without MPI_Win_lock_all");
    complete_or_poll(x, -1);
    const int n = static_cast<int>(x.shared->base.size());
    for (int t = 0; t < n; ++t)
      release(x, t, MPI_LOCK_SHARED);
    x.lock_all = false;
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Win_unlock_all)

namespace {
// Flush and flush_local wait for the same thing here: a transfer's data moves at the call, so
// local completion is remote completion; only the name in errors differs.
int flush_target(const char* name, int target, MPI_Win w) {
  return win_call(name, w, [&] {
    Win& x = win(w);
    if (target == MPI_PROC_NULL) return MPI_SUCCESS;
    check_lock_target(x, target);
    require_passive(x, target);
    complete_or_poll(x, target);
    return MPI_SUCCESS;
  });
}
int flush_every_target(const char* name, MPI_Win w) {
  return win_call(name, w, [&] {
    Win& x = win(w);
    require_passive(x, -1);
    complete_or_poll(x, -1);
    return MPI_SUCCESS;
  });
}
}  // namespace

int PMPI_Win_flush(int target, MPI_Win w) {
  return flush_target("MPI_Win_flush", target, w);
}
MGEN_MPI_ALIAS(Win_flush)

int PMPI_Win_flush_all(MPI_Win w) {
  return flush_every_target("MPI_Win_flush_all", w);
}
MGEN_MPI_ALIAS(Win_flush_all)

int PMPI_Win_flush_local(int target, MPI_Win w) {
  return flush_target("MPI_Win_flush_local", target, w);
}
MGEN_MPI_ALIAS(Win_flush_local)

int PMPI_Win_flush_local_all(MPI_Win w) {
  return flush_every_target("MPI_Win_flush_local_all", w);
}
MGEN_MPI_ALIAS(Win_flush_local_all)

int PMPI_Win_sync(MPI_Win w) {
  return win_call("MPI_Win_sync", w, [&] {
    win(w);
    // Memory is one copy here (the unified model); a program that polls its window between
    // syncs must let the others run.
    let_time_pass();
    return MPI_SUCCESS;
  });
}
MGEN_MPI_ALIAS(Win_sync)

}  // extern "C"
