// The one narrow contract between the layers above (libmgen, the traffic generator) and the
// network: inject a message of N bytes from one endpoint to another at the engine's current
// time; be told when its last packet has left the sender and when it has fully arrived in the
// receiver's memory. NetworkModel builds the machine's topology and routing and one backend from
// the registry (mgen/net/backend.hpp): the packet-level virtual-cut-through model, the analytic
// zero-load model (its oracle) or Dimemas's L + S/B model with links and buses.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "mgen/net/backend.hpp"
#include "mgen/net/config.hpp"
#include "mgen/net/routing.hpp"
#include "mgen/net/topology.hpp"
#include "mgen/simcore/engine.hpp"

namespace mgen::net {

class ZeroLoadModel;

// A named link for reports: router output ports and NIC injection links.
struct LinkInfo {
  std::string name;
  LinkStats stats;
  Bandwidth bandwidth;
  // Where it runs (link maps): from a router or NIC to a router or NIC, by id.
  uint32_t from = 0, to = 0;
  bool from_nic = false, to_nic = false;
  uint8_t dim = 0xff;  // router-to-router: torus/mesh dimension; fat tree: 0 = down, 1 = up
  uint8_t dir = 0;     // torus/mesh: 0 = +, 1 = -
  bool wraps = false;  // torus: the wrap-around link of its ring
};

// A partitioned run's links: each link's statistics are kept by the partition that drives it,
// the others' are zero, so the run's are the sums of its partitions' (`part` added to `sum`;
// an empty `sum` takes `part` whole).
inline void add_links(std::vector<LinkInfo>& sum, std::vector<LinkInfo> part) {
  if (sum.empty()) {
    sum = std::move(part);
    return;
  }
  for (size_t i = 0; i < part.size(); ++i) {
    sum[i].stats.bytes += part[i].stats.bytes;
    sum[i].stats.packets += part[i].stats.packets;
    sum[i].stats.busy += part[i].stats.busy;
  }
}

class NetworkModel {
 public:
  // Reserves the backend's event kinds from `engine`. `link_stats`: BackendContext::link_stats
  // (without them, links() reports every link idle).
  NetworkModel(simcore::Engine& engine, const NetworkConfig& config, MessageSink& sink, bool link_stats = true);
  ~NetworkModel();
  NetworkModel(const NetworkModel&) = delete;
  NetworkModel& operator=(const NetworkModel&) = delete;

  // True for the events the network scheduled: hand those to dispatch().
  bool owns(uint16_t kind) const { return kinds_.contains(kind); }

  // Injects at engine.now(). A message of 0 bytes still sends one header-only packet.
  void inject(EndpointId src, EndpointId dst, Bytes size, uint64_t cookie) { backend_->inject(src, dst, size, cookie); }
  void dispatch(const simcore::Event& e) { backend_->dispatch(e); }
  uint32_t event_router(const simcore::Event& e) const { return owns(e.kind) ? backend_->event_router(e) : kNoId; }
  void prefetch(const simcore::Event& e) const {
    if (owns(e.kind)) backend_->prefetch(e);
  }

  const Topology& topology() const { return topology_; }
  const Routing& routing() const { return routing_; }
  const NetworkConfig& config() const { return config_; }
  const char* backend_name() const { return entry_->name; }

  NetworkTotals totals() const { return backend_->totals(); }
  // Every link that carried traffic or exists: router output ports, then NIC injection links.
  std::vector<LinkInfo> links() const;
  // Packets buffered in routers or NICs (non-zero once the engine is idle means deadlock).
  uint64_t packets_in_flight() const { return backend_->in_flight(); }
  // A readable account of where undelivered packets are stuck (at most `limit` lines).
  std::string describe_stuck(size_t limit = 20) const { return backend_->describe_stuck(limit); }

  // Partitioned runs (mgen/net/partition.hpp): see Backend. The backend must be partitionable.
  bool partitionable() const { return backend_->partitionable(); }
  bool canonical() const { return backend_->canonical(); }
  void join_partition(const PartitionPlan& plan, uint32_t part);
  void set_window_end(Time end) { backend_->set_window_end(end); }
  Time pack_crossings(uint32_t to, std::string& out) { return backend_->pack_crossings(to, out); }
  void take_crossings(std::string_view bytes, Time window_end) { backend_->take_crossings(bytes, window_end); }

  // Zero-load timing of one message on this machine (the analytic oracle), whatever the backend.
  struct ZeroLoad {
    Time sent;       // after injection: the last packet has left the source NIC
    Time delivered;  // after injection: the last byte is in destination memory
    uint32_t router_hops = 0;
  };
  ZeroLoad zero_load(EndpointId src, EndpointId dst, Bytes size) const;

 private:
  NetworkConfig config_;
  Topology topology_;
  Routing routing_;
  const BackendEntry* entry_;
  simcore::KindRange kinds_;
  std::unique_ptr<Backend> backend_;
  std::unique_ptr<ZeroLoadModel> oracle_;
};

}  // namespace mgen::net
