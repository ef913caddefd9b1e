// Helpers shared by the MGEN_* C functions. Every function opens a Scope: it finds the calling
// rank, records the call (deadlock reports, timelines), validates arguments with MPI's error
// classes, and on error stops the whole run (MPI's default error handler) with a message that
// names the rank, the call and the argument at fault.
#pragma once

#include <fmt/format.h>

#include <string>

#include "core/comm.hpp"
#include "core/world.hpp"
#include "mgen/mgen.h"

namespace mgen::mpi::api {

// An invalid call, thrown by Scope::fail instead of stopping the run while a binding that
// handles errors itself (the MPI_* layer, which honours MPI error handlers) is active.
struct CallError {
  int error_class;  // MGEN_ERR_*
  std::string message;
};

// Set by the MPI_* bindings around the MGEN_* calls they make: the name reports and
// timelines show (MPI_Send rather than MGEN_Send), and whether errors throw CallError.
struct Binding {
  const char* name = nullptr;
  bool throw_errors = false;
};
// The running rank's binding (one per rank: ranks are fibers of one thread, and a rank that
// blocks inside an MPI call must find its own binding when it resumes, not the one another
// rank left); outside a run, the thread's.
Binding& binding();

class Scope {
 public:
  explicit Scope(const char* name, int peer = static_cast<int>(kNone), int tag = kAnyTag, int comm = 0);
  ~Scope();
  Scope(const Scope&) = delete;
  Scope& operator=(const Scope&) = delete;

  // False when called outside a simulated rank (the call then returns MGEN_ERR_OTHER).
  explicit operator bool() const { return world_ != nullptr; }
  World& world() { return *world_; }
  Rank& rank() { return *rank_; }
  const char* name() const { return name_; }

  [[noreturn]] void fail(int error_class, const std::string& message);
  // A communicator for collectives and communicator calls; intercommunicators are refused.
  Comm& comm(MGEN_Comm handle);
  // Any communicator, intercommunicators included (point-to-point, queries, free).
  Comm& any_comm(MGEN_Comm handle);
  // count >= 0 and a valid datatype; returns count * size.
  uint64_t bytes(int count, MGEN_Datatype type);
  uint32_t type_size(MGEN_Datatype type);
  // A point-to-point rank of `c` ([0, peer_size)), or MGEN_ANY_SOURCE / MGEN_PROC_NULL where allowed.
  void check_rank(const Comm& c, int rank, const char* what, bool any_ok, bool null_ok);
  void check_root(const Comm& c, int root);
  void check_tag(int tag, bool any_ok);
  void check_op(MGEN_Op op);
  // Request handle -> index, or kNone for MGEN_REQUEST_NULL.
  uint32_t request(MGEN_Request handle);
  // Number of requests / counts arguments must be >= 0.
  void check_count(int n, const char* what);

 private:
  World* world_ = nullptr;
  Rank* rank_ = nullptr;
  Exec* exec_ = nullptr;  // the calling context (per-function accounting)
  const char* name_;
  Time start_;
};

// Why a completed receive request reports kErrTruncated, for error messages.
std::string truncation_text(const Request& receive);
// Fills a user's status (which may be MGEN_STATUS_IGNORE).
void set_status(MGEN_Status* out, const Status& s);
// World rank for a communicator rank, or kAnySource for MGEN_ANY_SOURCE.
inline int world_or_any(const Comm& c, int rank) {
  return rank == MGEN_ANY_SOURCE ? kAnySource : static_cast<int>(c.peer(rank));
}
// Called outside a run: say so and return MGEN_ERR_OTHER.
int outside(const char* name);

}  // namespace mgen::mpi::api
