// Shared by the NAS skeleton tests: runs a kernel on the test machine, one rank per node.
#pragma once

#include <catch2/catch.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>

#include "harness.hpp"
#include "kernels.hpp"

namespace mgen::test {

inline nas::Result run_nas(const nas::Kernel& k, char cls, int ranks) {
  mpi::JobConfig job;
  job.stack_bytes = 128 * 1024;
  return nas::simulate(k, {cls, ranks}, machine_for(static_cast<uint32_t>(ranks)), job);
}

// Calls and bytes per MPI call, as a test derives them for one rank.
using Expected = std::map<std::string, std::pair<uint64_t, uint64_t>>;

// Every rank of `r` made exactly the calls `expect(rank)` names, with those counts and bytes.
inline void check_tallies(const nas::Result& r, int ranks, const std::function<Expected(int rank)>& expect) {
  for (int rank = 0; rank < ranks; ++rank) {
    const nas::Tally& t = r.tallies[static_cast<size_t>(rank)];
    INFO("rank " << rank);
    const Expected e = expect(rank);
    CHECK(t.used().size() == e.size());
    for (const auto& [call, want] : e) {
      INFO(call);
      CHECK(t.calls_of(call) == want.first);
      CHECK(t.bytes_of(call) == want.second);
    }
  }
}

}  // namespace mgen::test
