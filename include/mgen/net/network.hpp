// The one narrow contract between the layers above (libmgen, the traffic generator) and the
// network: inject a message of N bytes from one endpoint to another at the engine's current
// time; be told when its last packet has left the sender and when it has fully arrived in the
// receiver's memory. Three backends implement it: the packet-level virtual-cut-through model,
// the analytic zero-load model (its oracle) and Dimemas's L + S/B model with links and buses.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "mgen/net/config.hpp"
#include "mgen/net/routing.hpp"
#include "mgen/net/topology.hpp"
#include "mgen/simcore/engine.hpp"

namespace mgen::net {

class PacketNetwork;
class AnalyticNetwork;
class DimemasNetwork;

// Event kinds [kNetworkKindBegin, kNetworkKindEnd) belong to the network.
inline constexpr uint16_t kNetworkKindBegin = 1;
inline constexpr uint16_t kNetworkKindEnd = 32;

class MessageSink {
 public:
  virtual ~MessageSink() = default;
  // The last packet of the message has left the source NIC (the send buffer is reusable).
  virtual void on_message_sent(uint64_t cookie, Time t) = 0;
  // Every byte of the message is in the destination's memory.
  virtual void on_message_delivered(uint64_t cookie, Time t) = 0;
};

struct LinkStats {
  uint64_t bytes = 0;  // wire bytes, headers included
  uint64_t packets = 0;
  Time busy;  // sum over packets of (tail departure - head departure)
};

struct NetworkTotals {
  uint64_t messages_injected = 0;
  uint64_t messages_delivered = 0;
  uint64_t packets = 0;
  uint64_t packet_hops = 0;  // router-to-router and router-to-NIC link traversals
  uint64_t payload_bytes = 0;
  Time latency_sum;  // message injection to delivery
  Time latency_max;
};

// A named link for reports: router output ports and NIC injection links.
struct LinkInfo {
  std::string name;
  LinkStats stats;
  Bandwidth bandwidth;
};

class NetworkModel {
 public:
  NetworkModel(simcore::Engine& engine, const NetworkConfig& config, MessageSink& sink);
  ~NetworkModel();
  NetworkModel(const NetworkModel&) = delete;
  NetworkModel& operator=(const NetworkModel&) = delete;

  static constexpr bool owns(uint16_t kind) { return kind >= kNetworkKindBegin && kind < kNetworkKindEnd; }
  // The event calendar's bucket width (2^shift ps) the model sets on an idle engine.
  static constexpr unsigned kPacketBucketShift = 10, kMessageBucketShift = 14;

  // Injects at engine.now(). A message of 0 bytes still sends one header-only packet.
  void inject(EndpointId src, EndpointId dst, Bytes size, uint64_t cookie);
  void dispatch(const simcore::Event& e);

  const Topology& topology() const { return topology_; }
  const Routing& routing() const { return routing_; }
  const NetworkConfig& config() const { return config_; }
  const char* backend_name() const;

  NetworkTotals totals() const;
  // Every link that carried traffic or exists: router output ports, then NIC injection links.
  std::vector<LinkInfo> links() const;
  // Packets buffered in routers or NICs (non-zero once the engine is idle means deadlock).
  uint64_t packets_in_flight() const;
  // A readable account of where undelivered packets are stuck (at most `limit` lines).
  std::string describe_stuck(size_t limit = 20) const;

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
  std::unique_ptr<PacketNetwork> packet_;      // null with the analytic backend
  std::unique_ptr<AnalyticNetwork> analytic_;  // always present: the backend or the oracle
  std::unique_ptr<DimemasNetwork> dimemas_;    // the Dimemas backend (T = L + S/B, links, buses)
};

}  // namespace mgen::net
