// Collective arguments checked across ranks. MPI requires every member of a collective to call
// it in the same order with matching arguments: the same root, the same operation, and type
// signatures whose sizes agree (a Bcast's count x type size, each rank's share of a Gatherv).
// A real MPI detects a mismatch only when a message is truncated, and often not at all; the
// simulator sees every member's call, so it compares them and stops at the first disagreement,
// naming both ranks. The k-th collective call of every member on a communicator is matched.
#pragma once

#include <cstdint>
#include <vector>

#include "api/facade.hpp"

namespace mgen::mpi::api {

inline constexpr uint64_t kUnchecked = ~uint64_t{0};

// What one member passes, as far as the others must agree with it.
struct CollCall {
  const char* kind = "";        // the algorithm family: "bcast", "gather", ... (the Scope gives the call)
  int root = -1;                // rooted collectives
  int op = -1;                  // the reduction operation, for operations every rank names alike
  uint64_t bytes = kUnchecked;  // bytes every member passes alike
  uint64_t own = kUnchecked;    // this member's share, checked against the shares below
  // Every member's share as this member sees it (the root of gatherv/scatterv, every member of
  // allgatherv and reduce_scatter); members that pass them must pass the same.
  const std::vector<uint64_t>* shares = nullptr;
};

// Fails the call (MGEN_ERR_ROOT, MGEN_ERR_OP, MGEN_ERR_TRUNCATE or MGEN_ERR_OTHER) when `call`
// disagrees with what another member passed to the same collective.
void check_collective(Scope& s, Comm& c, const CollCall& call);

}  // namespace mgen::mpi::api
