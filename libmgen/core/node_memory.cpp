#include "core/node_memory.hpp"

#include <algorithm>

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
      free_at_(network.topology().nodes(), simcore::Time::zero()),
      stages_(node.copy_stages) {}

void NodeMemory::inject(net::EndpointId src, net::EndpointId dst, uint32_t src_rank, uint32_t dst_rank,
                        simcore::Bytes size, uint64_t cookie) {
  const net::Topology& t = network_.topology();
  const net::NodeId node = t.node_of(src);
  if (node != t.node_of(dst)) {
    network_.inject(src, dst, size, cookie);
    return;
  }
  ++copies_;
  simcore::Bandwidth rate = bandwidth_;
  for (const auto& [from, r] : by_size_) {
    if (size < from) break;
    rate = r;
  }
  if (stages_ == 2) {
    if (cores_.size() <= std::max(src_rank, dst_rank)) cores_.resize(std::max(src_rank, dst_rank) + 1);
    const simcore::Time half =
        simcore::transfer_time(size, simcore::Bandwidth::bytes_per_second(rate.bytes_per_s() * 2));
    const simcore::Time in = book(cores_[src_rank], engine_.now(), half);
    const simcore::Time out = book(cores_[dst_rank], in, half);
    engine_.schedule(out + latency_, kinds_[kCopyDone], dst, 0, cookie);
    return;
  }
  const simcore::Time start = simcore::max(engine_.now(), free_at_[node]);
  const simcore::Time copy = simcore::transfer_time(size, rate);
  free_at_[node] = start + copy;
  engine_.schedule(start + copy + latency_, kinds_[kCopyDone], dst, 0, cookie);
}

// The first gap of `len` in the core's booked intervals (sorted, disjoint) at or after `ready`;
// books it and returns its end. Intervals over before now are dropped first.
simcore::Time NodeMemory::book(std::vector<std::pair<simcore::Time, simcore::Time>>& busy, simcore::Time ready,
                               simcore::Time len) {
  const simcore::Time now = engine_.now();
  size_t past = 0;
  while (past < busy.size() && busy[past].second <= now)
    ++past;
  busy.erase(busy.begin(), busy.begin() + static_cast<std::ptrdiff_t>(past));
  simcore::Time start = ready;
  size_t i = 0;
  for (; i < busy.size(); ++i) {
    if (busy[i].second <= start) continue;
    if (busy[i].first >= start + len) break;  // fits before this one
    start = busy[i].second;
  }
  busy.insert(busy.begin() + static_cast<std::ptrdiff_t>(i), {start, start + len});
  return start + len;
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
