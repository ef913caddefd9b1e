// A network on an engine, recording when each message was sent and delivered.
#pragma once

#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "mgen/net/network.hpp"

namespace mgen::test {

using namespace mgen::net;
using simcore::Bandwidth;
using simcore::Bytes;
using simcore::Time;

struct Record {
  Time injected;
  Time sent = Time::max();
  Time delivered = Time::max();
};

class Harness : public MessageSink {
 public:
  explicit Harness(const NetworkConfig& config) : net(engine, config, *this) {}

  uint64_t send(EndpointId src, EndpointId dst, uint64_t bytes) {
    const uint64_t id = next_++;
    records[id].injected = engine.now();
    net.inject(src, dst, Bytes(bytes), id);
    return id;
  }
  // Runs until idle; throws if packets are left behind (deadlock).
  void run() {
    engine.run([this](const simcore::Event& e) { net.dispatch(e); });
    if (net.packets_in_flight() != 0) {
      throw std::runtime_error("network deadlocked with " + std::to_string(net.packets_in_flight()) +
                               " packets in flight:\n" + net.describe_stuck());
    }
  }
  Time latency(uint64_t id) const { return records.at(id).delivered - records.at(id).injected; }

  void on_message_sent(uint64_t cookie, Time t) override { records[cookie].sent = t; }
  void on_message_delivered(uint64_t cookie, Time t) override {
    records[cookie].delivered = t;
    delivery_order.push_back(cookie);
  }

  simcore::Engine engine;
  NetworkModel net;
  std::map<uint64_t, Record> records;
  std::vector<uint64_t> delivery_order;  // cookies in the order the network reported them

 private:
  uint64_t next_ = 0;
};

// A machine with round numbers: 4 GB/s everywhere (250 ps per byte), NSIM-ACE router delays.
inline NetworkConfig simple_config(const std::string& kind = "torus") {
  NetworkConfig c;
  c.topology.kind = kind;
  c.topology.dims = {4, 4, 4};
  c.topology.link_bandwidth = {Bandwidth::gigabytes_per_second(4)};
  c.topology.link_latency = Time::ps(600);
  c.nic.link_bandwidth = Bandwidth::gigabytes_per_second(4);
  c.nic.link_latency = Time::ns(10);
  c.nic.dma_bandwidth = Bandwidth::gigabytes_per_second(1000);
  c.nic.packet_payload = Bytes(2048);
  c.nic.packet_header = Bytes(32);
  c.router.routing_delay = Time::ns(4);
  c.router.vc_alloc_delay = Time::ns(4);
  c.router.switch_alloc_delay = Time::ns(4);
  c.router.switch_delay = Time::ns(128);
  c.router.switch_bandwidth = Bandwidth::gigabytes_per_second(4);
  c.router.vcs = 2;
  c.router.vc_buffer = Bytes(32768);
  c.nic.rx_buffer = Bytes(65536);
  if (kind == "fattree") {
    c.topology.down = {4, 4, 4};
    c.topology.up = {4, 4};
  } else if (kind == "crossbar") {
    c.topology.crossbar_nodes = 16;
  }
  return c;
}

// Every registered routing on every topology it serves (cubes 5x4x3), labelled.
inline std::vector<std::pair<NetworkConfig, std::string>> all_routings() {
  std::vector<std::pair<NetworkConfig, std::string>> out;
  for (const auto& entry : routing_registry()) {
    for (const std::string kind : {"torus", "mesh", "fattree", "crossbar"}) {
      const bool cube = kind == "torus" || kind == "mesh";
      if (cube ? !entry.for_cube : !entry.for_tree) continue;
      NetworkConfig c = simple_config(kind);
      c.router.routing = entry.name;
      c.router.vcs = entry.algo == RoutingAlgo::kAdaptive ? 3 : 2;
      if (cube) c.topology.dims = {5, 4, 3};
      out.emplace_back(c, std::string(entry.name) + " on " + kind);
    }
  }
  return out;
}

}  // namespace mgen::test
