// What the layers above tell the diagnostics (core/diagnostics.cpp): the names programs give
// their communicators, notes that explain a deadlock, and ranks that must not go on.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "core/world.hpp"

namespace mgen::mpi {

// A communicator's name as the program set it (MPI_Comm_set_name): rank `rank`'s communicator
// with point-to-point context `context`.
void name_comm(World& w, RankId rank, uint64_t context, std::string name);

// How reports name rank `rank`'s communicator with point-to-point or collective context
// `context`: its set name in quotes, MPI_COMM_WORLD / MPI_COMM_SELF (MGEN_... with `prefix`
// "MGEN_"), else "a communicator of N ranks (context id X)".
std::string comm_label(World& w, RankId rank, uint64_t context, const char* prefix = "MPI_");

// A note the deadlock report puts before the blocked ranks' lines when it is not empty (a
// collective that some members called as another, say).
void add_deadlock_note(World& w, std::function<std::string()> note);

// Blocks the context until the run ends: for a rank that must not go on because the run will
// stop for a reason another rank, or a deadlock note, states. The deadlock report shows it as
// stopped in its call.
void park(World& w, Exec& r);

}  // namespace mgen::mpi
