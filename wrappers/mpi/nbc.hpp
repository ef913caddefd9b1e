// What the non-blocking collectives (nbc.cpp) share with the others built the same way
// (neighbourhood collectives, nbc_neighbor.cpp): the state a helper works on, and the start.
#pragma once

#include <deque>
#include <functional>
#include <optional>
#include <vector>

#include "api/coll_jobs.hpp"
#include "core/world.hpp"
#include "mpi/coll_args.hpp"

namespace mgen::mpi::abi {

// What a non-blocking collective's helper works on, alive until the helper finishes.
struct NbcPending {
  // The communicator, copied (the user may free theirs meanwhile) onto a context of its own.
  Comm comm;
  std::deque<Flat> flats;  // deques: what a job points to never moves
  std::deque<VBuf> vbufs;
  std::deque<WBuf> wbufs;
  std::deque<std::vector<std::byte>> temps;
  std::optional<Reduction> red;
  api::CollJob body;
};

// Starts, on a helper context of the calling rank, the job `build` prepares for communicator
// `c`; *req completes when the job has finished.
int start_nbc(MPI_Comm c, MPI_Request* req, const std::function<api::CollJob(api::Scope&, NbcPending&)>& build);

}  // namespace mgen::mpi::abi
