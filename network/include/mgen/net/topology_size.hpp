// How big a topology would be, known before it is built: what `mgen` needs to refuse a machine
// that would not fit in memory, or a job with more ranks than the machine has places for,
// without first allocating it (a 4096x4096 torus is 84 million ports).
#pragma once

#include <cstdint>

#include "mgen/net/config.hpp"

namespace mgen::net {

struct TopologySize {
  uint64_t routers = 0;
  uint64_t ports = 0;  // over all routers (terminal ports included)
  uint64_t nodes = 0;
  uint64_t endpoints = 0;
};

// The sizes Topology::build(config) would produce. Applies the same checks, so it throws the
// same ConfigError for an impossible topology; allocates nothing in proportion to the machine.
TopologySize topology_size(const NetworkConfig& config);

}  // namespace mgen::net
