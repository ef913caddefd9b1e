// Non-blocking collectives as schedules (what MPICH does without an asynchronous progress
// thread): rounds of sends and receives on a context of their own, each round followed by
// local work (copies, reductions). A schedule advances whenever its rank is inside the MPI
// layer and its current round has completed.
#pragma once

#include <functional>
#include <vector>

#include "mpi/shim.hpp"

namespace mgen::mpi::abi {

struct NbcStep {
  bool send = false;
  void* buf = nullptr;
  uint64_t bytes = 0;
  int peer = 0;  // rank in the communicator
};

struct NbcRound {
  std::vector<NbcStep> steps;
  std::function<void()> after;  // local work once every step of the round is complete
};

struct Nbc {
  Comm comm;  // a copy: the user may free the communicator before completion
  uint64_t context = 0;
  int tag = 0;
  std::vector<NbcRound> rounds;
  size_t next = 0;                 // the round to post next
  std::vector<uint32_t> inflight;  // world request indices of the current round
  std::vector<std::vector<std::byte>> temps;
  std::vector<Flat> flats;        // user buffers seen as bytes (unpacked by on_done)
  std::function<void()> on_done;  // after the last round
  bool done = false;

  std::byte* temp(uint64_t bytes) {
    temps.emplace_back(bytes);
    return temps.back().data();
  }
  NbcRound& round() { return rounds.emplace_back(); }
};

// Advances one schedule as far as completed rounds allow; true when it has finished.
bool advance(Nbc& n);

}  // namespace mgen::mpi::abi
