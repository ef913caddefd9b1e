// The node-memory decorator in front of the network: copies inside a node serialise on the
// node's copy engine (closed form below); messages between nodes go to the network untouched.
#include <catch2/catch.hpp>

#include <array>
#include <map>
#include <vector>

#include "core/node_memory.hpp"

using namespace mgen;
using simcore::Bytes;
using simcore::Time;

namespace {

struct Sink : net::MessageSink {
  std::map<uint64_t, Time> sent, delivered;
  void on_message_sent(uint64_t c, Time t) override { sent[c] = t; }
  void on_message_delivered(uint64_t c, Time t) override { delivered[c] = t; }
};

}  // namespace

TEST_CASE("intra-node messages are copies serialised on the node's copy engine; others use the network",
          "[node_memory]") {
  net::NetworkConfig config;
  config.topology.kind = "torus";
  config.topology.dims = {4, 4};
  config.nic.nics_per_node = 2;  // endpoints 0 and 1 are node 0
  mpi::NodeConfig node;
  node.memory_bandwidth = simcore::Bandwidth::gigabytes_per_second(4);  // 250 ps per byte
  node.memory_latency = Time::ns(300);
  simcore::Engine engine;
  Sink sink;
  net::NetworkModel network(engine, config, sink);
  mpi::NodeMemory memory(engine, network, node, sink);
  REQUIRE(network.topology().node_of(1) == 0);
  REQUIRE(network.topology().node_of(2) == 1);

  memory.inject(0, 1, 0, 1, Bytes(4000), 1);  // node 0: a 1 us copy
  memory.inject(1, 0, 1, 0, Bytes(2000), 2);  // node 0 again: waits for the first copy
  memory.inject(2, 3, 2, 3, Bytes(1000), 3);  // node 1: its own copy engine
  memory.inject(0, 2, 0, 2, Bytes(1000), 4);  // node 0 to node 1: the network
  engine.run([&](const simcore::Event& e) {
    REQUIRE(memory.owns(e.kind));
    memory.dispatch(e);
  });
  CHECK(memory.copies() == 3);
  CHECK(sink.delivered.at(1) == Time::ns(1000 + 300));
  CHECK(sink.sent.at(1) == sink.delivered.at(1));
  CHECK(sink.delivered.at(2) == Time::ns(1000 + 500 + 300));
  CHECK(sink.delivered.at(3) == Time::ns(250 + 300));
  const net::NetworkModel::ZeroLoad z = network.zero_load(0, 2, Bytes(1000));
  CHECK(sink.sent.at(4) == z.sent);
  CHECK(sink.delivered.at(4) == z.delivered);
  CHECK(network.totals().messages_delivered == 1);
}

namespace {

// Node 0 of a 2x2 torus with two NICs per node (endpoints and ranks 0 and 1 share it).
struct TwoRankNode {
  explicit TwoRankNode(const mpi::NodeConfig& node)
      : network(engine, config(), sink), memory(engine, network, node, sink) {}
  static net::NetworkConfig config() {
    net::NetworkConfig c;
    c.topology.kind = "torus";
    c.topology.dims = {2, 2};
    c.nic.nics_per_node = 2;
    return c;
  }
  simcore::Engine engine;
  Sink sink;
  net::NetworkModel network;
  mpi::NodeMemory memory;
};

// Delivery times of copies on that node: each copy is (src rank, dst rank, bytes), injected at
// time 0 in order.
std::map<uint64_t, Time> deliver(const mpi::NodeConfig& node, const std::vector<std::array<uint32_t, 3>>& copies) {
  TwoRankNode n(node);
  uint64_t cookie = 0;
  for (const auto& [src, dst, bytes] : copies)
    n.memory.inject(src, dst, src, dst, Bytes(bytes), cookie++);
  n.engine.run([&](const simcore::Event& e) { n.memory.dispatch(e); });
  return n.sink.delivered;
}

}  // namespace

TEST_CASE("node.memory_bandwidth_by_size: a copy runs at the rate of the last row its size reaches", "[node_memory]") {
  mpi::NodeConfig node;
  node.memory_bandwidth = simcore::Bandwidth::gigabytes_per_second(4);  // 250 ps per byte
  node.memory_latency = Time::ns(100);
  node.memory_bandwidth_by_size = {{Bytes(4096), simcore::Bandwidth::gigabytes_per_second(8)},
                                   {Bytes(65536), simcore::Bandwidth::gigabytes_per_second(2)}};
  CHECK(deliver(node, {{0, 1, 4095}}).at(0) == Time::ps(4095 * 250) + Time::ns(100));
  CHECK(deliver(node, {{0, 1, 4096}}).at(0) == Time::ps(4096 * 125) + Time::ns(100));
  CHECK(deliver(node, {{0, 1, 65535}}).at(0) == Time::ps(65535 * 125) + Time::ns(100));
  CHECK(deliver(node, {{0, 1, 65536}}).at(0) == Time::ps(65536 * 500) + Time::ns(100));
}

TEST_CASE("node.copy_gap_by_size: a rank takes in one message per gap; a copy's latency stays its length",
          "[node_memory]") {
  mpi::NodeConfig node;
  node.memory_bandwidth = simcore::Bandwidth::gigabytes_per_second(4);  // 250 ps per byte
  node.memory_latency = Time::ns(100);
  node.copy_gap_by_size = {{Bytes(1000), Time::ns(400)}, {Bytes(4000), Time::ns(700)}};
  // One copy: as without gaps, 8000 B at 4 GB/s = 2 us, then the latency.
  CHECK(deliver(node, {{0, 1, 8000}}).at(0) == Time::ns(2100));
  // A stream 0 -> 1 of 4000 B (a 1 us copy each): one per 700 ns, each 1.1 us after its start.
  const auto a = deliver(node, {{0, 1, 4000}, {0, 1, 4000}, {0, 1, 4000}});
  CHECK(a.at(0) == Time::ns(1100));
  CHECK(a.at(1) == Time::ns(700 + 1100));
  CHECK(a.at(2) == Time::ns(1400 + 1100));
  // Linear between rows: 2500 B takes 400 + 300 x 1500 / 3000 = 550 ns (its copy 625 ns).
  CHECK(deliver(node, {{0, 1, 2500}, {0, 1, 2500}}).at(1) == Time::ns(550 + 625 + 100));
  // Below the first row its gap; beyond the last in proportion to size (8000 B: 1400 ns).
  CHECK(deliver(node, {{0, 1, 10}, {0, 1, 10}}).at(1) == Time::ns(400 + 100) + Time::ps(2500));
  CHECK(deliver(node, {{0, 1, 8000}, {0, 1, 8000}}).at(1) == Time::ns(1400 + 2100));
  // Copies into different ranks overlap (one engine per node would deliver the second at 2.1 us).
  const auto b = deliver(node, {{0, 1, 4000}, {1, 0, 4000}});
  CHECK(b.at(0) == Time::ns(1100));
  CHECK(b.at(1) == Time::ns(1100));
  node.copy_gap_by_size.clear();
  CHECK(deliver(node, {{0, 1, 4000}, {1, 0, 4000}}).at(1) == Time::ns(2100));
}

TEST_CASE("node.copy_gap_by_size: a gap longer than the copy holds back a stream, not a ping-pong", "[node_memory]") {
  // A stream whose messages take 5 us each although one copy takes 1.1 us (copies sharing the
  // memory's bandwidth, or a receiver slower than its copies): the next copy waits for the gap
  // even when it comes after the last was delivered, as long as the receiver has sent nothing.
  // A ping-pong's receiver answers before its next copy comes: that one starts at once.
  mpi::NodeConfig node;
  node.memory_bandwidth = simcore::Bandwidth::gigabytes_per_second(4);  // 4000 B: 1 us
  node.memory_latency = Time::ns(100);
  node.copy_gap_by_size = {{Bytes(4000), Time::us(5)}};
  CHECK(deliver(node, {{0, 1, 4000}, {0, 1, 4000}}).at(1) == Time::ns(5000 + 1100));
  // Each copy injected when the previous one is delivered: (src, dst) per step.
  auto chain = [&](const std::vector<std::array<uint32_t, 2>>& steps) {
    TwoRankNode n(node);
    uint64_t next = 0;
    auto step = [&] {
      const auto [src, dst] = steps[next];
      n.memory.inject(src, dst, src, dst, Bytes(4000), next);
      ++next;
    };
    step();
    n.engine.run([&](const simcore::Event& e) {
      n.memory.dispatch(e);
      if (n.sink.delivered.size() == next && next < steps.size()) step();
    });
    return n.sink.delivered;
  };
  const auto stream = chain({{0, 1}, {0, 1}});
  CHECK(stream.at(1) == Time::ns(5000 + 1100));
  const auto pingpong = chain({{0, 1}, {1, 0}, {0, 1}});
  CHECK(pingpong.at(1) == Time::ns(2200));
  CHECK(pingpong.at(2) == Time::ns(3300));
}
