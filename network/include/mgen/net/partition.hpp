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
#include <string_view>
#include <vector>

#include "mgen/net/topology.hpp"
#include "mgen/simcore/units.hpp"

namespace mgen::net {

struct PartitionPlan {
  uint32_t parts = 1;
  std::vector<uint32_t> router_part;               // router -> its partition
  simcore::Time lookahead = simcore::Time::max();  // least latency of a link between two partitions
};

// Cuts the routers into `parts` contiguous blocks of equal weight (`weight`: per router; empty:
// every router alike). A router without weight goes with the block the weight before it falls
// in. Throws std::invalid_argument if there are more parts than routers with weight, and
// ConfigError if two partitions would be joined by a link without latency (no window could run).
PartitionPlan cut_routers(const Topology& topology, uint32_t parts, const std::vector<uint32_t>& weight = {});
// The same cut without the checks (the partition model, partition_model.hpp, lists such counts
// rather than refusing them). `parts` must be at least 1 and some router must have weight.
PartitionPlan block_routers(const Topology& topology, uint32_t parts, const std::vector<uint32_t>& weight = {});
// Routers with weight (all of them when `weight` is empty): the most partitions there can be.
uint32_t loaded_routers(const Topology& topology, const std::vector<uint32_t>& weight);

// Moves bytes between the processes of a launch (an `mpiexec` of MPICH: tools/mgen/mpich.cpp).
// Every process calls each function at the same point, as with MPI collectives.
class PartitionTransport {
 public:
  virtual ~PartitionTransport() = default;
  virtual uint32_t rank() const = 0;
  virtual uint32_t size() const = 0;
  // Sends out[q] to process q; returns what each process sent this one, in process order.
  virtual std::vector<std::string> exchange(const std::vector<std::string>& out) = 0;
  virtual int64_t min(int64_t value) = 0;                   // over every process
  virtual void sum(std::vector<uint64_t>& values) = 0;      // element by element, on every process
  virtual std::string gather(const std::string& mine) = 0;  // every process's, in order, on each
};

// The partitions of a run: `parts` in all, `local` of them in this process (partitions
// rank * local ... rank * local + local - 1, one thread each); `transport` reaches the other
// processes (null: this process holds every partition).
struct PartitionLayout {
  uint32_t parts = 1;
  uint32_t local = 1;
  PartitionTransport* transport = nullptr;
  uint32_t first() const { return transport ? transport->rank() * local : 0; }
};

// What run_windows asks of each partition (by its global index). run(i, until): handle the
// events up to `until` (inclusive); pack(i, j, out): append what i sent j in the window and
// return the earliest time it can make j act; take(i, bytes, window_end): apply what another
// partition packed for i; next_time(i): i's earliest pending event. between(windows) runs on the
// process's first thread after every window, while the other threads may already run the next
// one (progress lines). done(i), if set, runs on partition i's thread once the windows are over
// (also after an error), before run_windows returns: a partition whose state belongs to its
// thread (a job's rank fibers) ends there. (With no event at all to run, every local partition's
// done runs on the calling thread.)
struct PartitionHooks {
  std::function<simcore::Time(uint32_t)> next_time;
  std::function<void(uint32_t, simcore::Time)> run;
  std::function<simcore::Time(uint32_t, uint32_t, std::string&)> pack;
  std::function<void(uint32_t, std::string_view, simcore::Time)> take;
  std::function<void(uint64_t)> between;
  std::function<void(uint32_t)> done;
};

struct WindowStats {
  uint64_t windows = 0;
  // The first local thread's wall time spent waiting at the windows' ends (for the other
  // threads, and in the exchanges between processes).
  double sync_wall_s = 0;
};

// Runs the partitions in conservative windows until none has an event left at or before
// `limit`: each window ends a lookahead after it starts; the partitions meet once (threads at a
// barrier that also agrees the next window's start, processes in one exchange carrying each
// one's earliest time before its bytes), every partition takes what the others sent it, in
// partition order, and the next window starts at the earliest pending event or crossing of any
// partition. The calling thread runs the first local partition.
WindowStats run_windows(const PartitionLayout& layout, simcore::Time lookahead, simcore::Time limit,
                        const PartitionHooks& hooks);

}  // namespace mgen::net
