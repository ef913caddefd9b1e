// What a run would gain from a partitioned packet network (issue 24, item 3), measured on the
// serial run. The routers are cut into P contiguous blocks in router order (slabs of a torus's
// last dimension, subtrees of a fat tree's leaves) holding equal shares of the job: a router's
// weight is the ranks on its endpoints (traffic: its endpoints); an unloaded router goes with
// the next loaded router's block (the first block before the first one, the last after the
// last), so a job that fills a corner of a large machine is cut inside that corner, not left
// whole in the first block. NICs, their endpoints' events and their ranks (the MPI layer's
// operations of a rank) go with their router. A conservative engine would run every block up to the
// lookahead, the least latency of a link between two blocks (no packet head and no credit can
// cross a cut sooner), then exchange what crossed and start the next window at the earliest
// pending event. Its time is, per window, the busiest block's events, plus one synchronisation
// per window. This model counts exactly that from the serial run's events: windows, events per
// window, the busiest block against the mean (imbalance), and the speedups that follow for a
// given cost per event and per synchronisation. Events no router owns (the MPI layer's batched
// rank resumptions, which may wake ranks anywhere) are counted as spread evenly over the
// blocks, which is optimistic for them; their share is reported.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "mgen/net/topology.hpp"
#include "mgen/simcore/units.hpp"

namespace mgen::net {

class PartitionModel {
 public:
  // `counts`: the partition counts to model; a count above the number of loaded routers gives a
  // row that does not fit (Row::fits). `weight`: per router, the job's share on it (empty:
  // every router alike).
  PartitionModel(const Topology& topology, const std::vector<uint32_t>& counts,
                 const std::vector<uint32_t>& weight = {});

  // One event of the serial run at `t`, owned by router `router` (kNoRouter: outside the
  // network). Events must come in the run's order.
  static constexpr uint32_t kNoRouter = 0xffffffffu;
  // The model is of the packet network: other backends are refused with this message.
  static void require_packet(const std::string& backend);
  void observe(simcore::Time t, uint32_t router) {
    pending_.push_back(Seen{t, router});
    if (pending_.size() == kBatch) [[unlikely]]
      process();
  }

  struct Row {
    uint32_t partitions = 0;
    bool fits = true;     // no more blocks than loaded routers (else nothing below is counted)
    uint32_t loaded = 0;  // routers with a share of the job
    simcore::Time lookahead;
    uint64_t windows = 0;
    double events_per_window = 0;
    double imbalance = 0;     // sum over windows of the busiest block / sum of the mean block
    double work_speedup = 0;  // events / sum over windows of the busiest block's events
    double speedup(double event_s, double sync_s) const;  // with costs per event and per window
    uint64_t events = 0;                                  // all events
    double critical = 0;  // sum over windows of the busiest block's (with its share of the others)
  };
  // Closes the last window; one row per modelled count.
  std::vector<Row> rows();
  uint64_t events() const { return events_; }
  uint64_t network_events() const { return network_events_; }
  // Wall seconds the model itself took (so that the run's time per event can leave it out).
  double seconds() const { return seconds_; }
  // The table `mgen ... --partition-model` prints: the rows of a run of `events` events
  // (`network_events` of them the network's) that took `wall_s` seconds, `model_s` of them the
  // model's own (left out of the time per event).
  static std::string table(const std::vector<Row>& rows, uint64_t events, uint64_t network_events, double wall_s,
                           double model_s);

 private:
  struct Level {
    uint32_t partitions = 0;
    simcore::Time lookahead;
    std::vector<uint32_t> block;  // router -> block
    std::vector<uint64_t> count;  // events of each block in the current window
    std::vector<uint32_t> touched;
    uint64_t other = 0;  // events outside the network in the window
    uint64_t busiest = 0;
    simcore::Time window_end;
    bool open = false;
    uint64_t windows = 0;
    double critical = 0;  // sum over windows of the busiest block (plus its share of the others)
  };
  void close(Level& l);
  // The events seen since the last batch, level by level (timed: seconds_).
  void process();
  struct Seen {
    simcore::Time t;
    uint32_t router;
  };
  static constexpr size_t kBatch = size_t{1} << 12;  // 64 KiB: stays in the cache the run uses
  std::vector<Seen> pending_;
  double seconds_ = 0;
  std::vector<Level> levels_;
  std::vector<uint32_t> too_many_;  // counts above loaded_
  uint32_t loaded_ = 0;
  uint64_t events_ = 0, network_events_ = 0;
};

}  // namespace mgen::net
