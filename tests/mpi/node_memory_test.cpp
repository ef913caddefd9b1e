// The node-memory decorator in front of the network: copies inside a node serialise on the
// node's copy engine (closed form below); messages between nodes go to the network untouched.
#include <catch2/catch.hpp>

#include <map>

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

  memory.inject(0, 1, Bytes(4000), 1);  // node 0: a 1 us copy
  memory.inject(1, 0, Bytes(2000), 2);  // node 0 again: waits for the first copy
  memory.inject(2, 3, Bytes(1000), 3);  // node 1: its own copy engine
  memory.inject(0, 2, Bytes(1000), 4);  // node 0 to node 1: the network
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
