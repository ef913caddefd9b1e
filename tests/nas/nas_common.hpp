// Shared by the NAS skeleton tests: runs a kernel on the test machine, one rank per node.
#pragma once

#include "harness.hpp"
#include "kernels.hpp"

namespace mgen::test {

inline nas::Result run_nas(const nas::Kernel& k, char cls, int ranks) {
  mpi::JobConfig job;
  job.stack_bytes = 128 * 1024;
  return nas::simulate(k, {cls, ranks}, machine_for(static_cast<uint32_t>(ranks)), job);
}

}  // namespace mgen::test
