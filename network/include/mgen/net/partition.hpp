// A packet network cut into partitions and run on several threads (issue 24, item 1).
//
// The routers are cut into P contiguous blocks in router order holding equal shares of the load
// (cut_routers; the partition model, partition_model.hpp, counts what such a cut would gain from
// a serial run). Each partition is a whole simulation of its own - an engine and a copy of the
// network of which it only drives its routers, their NICs and their endpoints' sources - and
// the partitions run in conservative windows: each one handles its events up to the lookahead
// (the least latency of a link between two partitions: no packet head and no credit can cross
// a cut sooner), then takes what the others sent it (Backend::take_crossings, in partition
// order), and the next window starts at the earliest pending event of any. What crosses is
// applied exactly as the serial run applies it and every same-time order is canonical, so the
// predictions are those of the serial run to the picosecond, for any number of partitions.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "mgen/net/topology.hpp"
#include "mgen/simcore/units.hpp"

namespace mgen::net {

struct PartitionPlan {
  uint32_t parts = 1;
  std::vector<uint32_t> router_part;           // router -> its partition
  simcore::Time lookahead = simcore::Time::max();  // least latency of a link between two partitions
  uint32_t part_of_router(RouterId r) const { return router_part[r]; }
};

// Cuts the routers into `parts` contiguous blocks of equal weight (`weight`: per router; empty:
// every router alike). A router without weight goes with the block the weight before it falls
// in. Throws std::invalid_argument if there are more parts than routers with weight, and
// ConfigError if two partitions would be joined by a link without latency (no window could run).
PartitionPlan cut_routers(const Topology& topology, uint32_t parts, const std::vector<uint32_t>& weight = {});

// Runs `parts` partitions in conservative windows, one thread each, until none has an event
// left at or before `limit`. Per partition i: next_time(i) is its earliest pending event;
// run(i, until) handles its events up to `until` (inclusive); exchange(i, window_end) takes
// what the others sent it during the window that ended at window_end. Between two windows,
// after every exchange, `between(windows)` runs on the calling thread alone (progress, say).
// Returns the number of windows. The calling thread runs partition 0.
struct WindowStats {
  uint64_t windows = 0;
  double sync_wall_s = 0;  // partition 0's wall time spent waiting at the windows' ends
};
WindowStats run_windows(uint32_t parts, simcore::Time lookahead, simcore::Time limit,
                        const std::function<simcore::Time(uint32_t)>& next_time,
                        const std::function<void(uint32_t, simcore::Time)>& run,
                        const std::function<void(uint32_t, simcore::Time)>& exchange,
                        const std::function<void(uint64_t)>& between = {});

}  // namespace mgen::net
