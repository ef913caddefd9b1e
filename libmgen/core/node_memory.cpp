#include "core/node_memory.hpp"

namespace mgen::mpi {

NodeMemory::NodeMemory(simcore::Engine& engine, net::NetworkModel& network, const NodeConfig& node,
                       net::MessageSink& sink)
    : engine_(engine),
      network_(network),
      sink_(sink),
      bandwidth_(node.memory_bandwidth),
      by_size_(node.memory_bandwidth_by_size),
      latency_(node.memory_latency),
      kinds_(engine.reserve_kinds(kKindCount)),
      free_at_(network.topology().nodes(), simcore::Time::zero()) {}

void NodeMemory::inject(net::EndpointId src, net::EndpointId dst, simcore::Bytes size, uint64_t cookie) {
  const net::Topology& t = network_.topology();
  const net::NodeId node = t.node_of(src);
  if (node != t.node_of(dst)) {
    network_.inject(src, dst, size, cookie);
    return;
  }
  ++copies_;
  const simcore::Time start = simcore::max(engine_.now(), free_at_[node]);
  simcore::Bandwidth rate = bandwidth_;
  for (const auto& [from, r] : by_size_) {
    if (size < from) break;
    rate = r;
  }
  const simcore::Time copy = simcore::transfer_time(size, rate);
  free_at_[node] = start + copy;
  engine_.schedule(start + copy + latency_, kinds_[kCopyDone], dst, 0, cookie);
}

void NodeMemory::dispatch(const simcore::Event& e) {
  if (network_.owns(e.kind)) {
    network_.dispatch(e);
    return;
  }
  sink_.on_message_sent(e.data, e.time);
  sink_.on_message_delivered(e.data, e.time);
}

}  // namespace mgen::mpi
