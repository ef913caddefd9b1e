// MPI one-sided communication, shared by rma.cpp (windows), rma_ops.cpp (puts, gets,
// accumulates, atomics) and rma_sync.cpp (epochs: fence, post/start/complete/wait, locks).
//
// The model: data moves at the call (all ranks share one address space, and MPI forbids
// conflicting accesses within an epoch, so no rank can tell the difference), which also makes
// every accumulate atomic per element: a rank's fiber is never interrupted inside a call. The
// time is that of RDMA on the NIC model (a put, a get, an atomic as a small get round trip);
// synchronisation waits for the transfers the rank issued and exchanges the messages the
// epoch needs.
#pragma once

#include <mpi.h>

#include <cstdlib>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "mpi/shim.hpp"

namespace mgen::mpi::abi {

// What all members of a window share.
struct WinShared {
  int flavor = MPI_WIN_FLAVOR_CREATE;
  // Every member's memory (MPI_BOTTOM and 0 for dynamic windows).
  std::vector<std::byte*> base;
  std::vector<MPI_Aint> size;
  std::vector<int> disp_unit;
  // Dynamic windows: the regions each member attached (address, bytes).
  std::vector<std::map<const std::byte*, MPI_Aint>> attached;
  // Passive-target locks per target: the exclusive holder (-1: none) and how many share it.
  std::vector<int> exclusive;
  std::vector<int> shared_count;
  // Ranks waiting for each target's lock, first come first: (rank, lock type). MPICH queues
  // lock requests at the target and grants them in order; without the queue, ranks that
  // release and retake the lock in step with a waiter's retries starve it for ever.
  std::vector<std::deque<std::pair<int, int>>> lock_waiters;
  // MPI_Win_allocate_shared's one segment for all members (freed with the last member).
  std::unique_ptr<std::byte, decltype(&std::free)> segment{nullptr, &std::free};
};

// One outstanding transfer of the rank on a window. A request-based operation (MPI_Rput...)
// shares its world request with the user's MPI request, which frees it: `user` names that
// request so synchronisation only waits for it while the user has not completed it.
struct Pending {
  int target;
  uint32_t q;
  MPI_Request user = MPI_REQUEST_NULL;
};

// A rank's side of a window.
struct Win {
  std::shared_ptr<WinShared> shared;
  MGEN_Comm comm = MGEN_COMM_NULL;  // a private duplicate of the creating communicator
  int rank = 0;                     // this rank in it
  std::vector<Pending> pending;     // transfers not yet waited for
  void* owned = nullptr;            // MPI_Win_allocate's memory
  std::string name;
  // Epochs this rank is in, for the checks MPI makes (MPI_ERR_RMA_SYNC).
  bool fence = false;       // between fences (the last one without MPI_MODE_NOSUCCEED)
  std::map<int, int> held;  // passive target: target -> MPI_LOCK_EXCLUSIVE / MPI_LOCK_SHARED
  bool lock_all = false;
  std::vector<int> access;                  // MPI_Win_start's targets (window ranks), in access epoch
  bool accessing = false;                   // between MPI_Win_start and MPI_Win_complete
  std::vector<int> exposed;                 // MPI_Win_post's origins, in exposure epoch
  bool exposing = false;                    // between MPI_Win_post and MPI_Win_wait / a true MPI_Win_test
  std::vector<MGEN_Request> exposure_reqs;  // the post notices sent and completions expected
  // Values MPI_Win_get_attr points to.
  void* attr_base = nullptr;
  MPI_Aint attr_size = 0;
  int attr_disp = 1;
  int attr_flavor = MPI_WIN_FLAVOR_CREATE;
  int attr_model = MPI_WIN_UNIFIED;
};

// The window behind a handle (fails with MPI_ERR_WIN).
Win& win(MPI_Win w);

// Runs a window binding: errors go to the window's error handler (MPI_Win_set_errhandler),
// MPI_ERRORS_ARE_FATAL unless set; an invalid handle's to MPI_COMM_WORLD's.
int win_call(const char* name, MPI_Win w, CallBody body);

// Waits for `w`'s transfers to `target` (all targets: -1) and releases them; false if there
// was nothing to wait for.
bool complete_pending(Win& w, int target = -1);

// The predefined window attributes (MPI_WIN_BASE, MPI_WIN_SIZE, MPI_WIN_DISP_UNIT,
// MPI_WIN_CREATE_FLAVOR, MPI_WIN_MODEL): true, with *value set as MPI_Win_get_attr returns
// it (the base itself, a pointer to the others), if `keyval` is one of them. For the generic
// attribute code's MPI_Win_get_attr.
bool win_predefined_attr(MPI_Win w, int keyval, void* value);

// The group of `g` as ranks of the window's communicator (fails with MPI_ERR_GROUP if a
// member is not in the window).
std::vector<int> window_ranks(Win& w, MPI_Group g);

}  // namespace mgen::mpi::abi
