#include "core/node_memory.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>

namespace mgen::mpi {

NodeMemory::NodeMemory(simcore::Engine& engine, net::NetworkModel& network, const NodeConfig& node,
                       net::MessageSink& sink)
    : engine_(engine),
      network_(network),
      sink_(sink),
      bandwidth_(node.memory_bandwidth),
      by_size_(node.memory_bandwidth_by_size),
      gap_by_size_(node.copy_gap_by_size),
      latency_(node.memory_latency),
      kinds_(engine.reserve_kinds(kKindCount)),
      canonical_(network.canonical()),
      free_at_(network.topology().nodes(), simcore::Time::zero()),
      node_copies_(canonical_ ? network.topology().nodes() : 0, 0) {}

void NodeMemory::schedule_done(simcore::Time at, net::NodeId node, net::EndpointId dst, uint64_t cookie) {
  if (!canonical_) {
    engine_.schedule(at, kinds_[kCopyDone], dst, 0, cookie);
    return;
  }
  // Copies done at the same time into one endpoint complete in the order their node started
  // them, whichever order the events were scheduled in.
  if (cookie > UINT32_MAX) throw std::logic_error("node memory: a copy's cookie must fit 32 bits");
  engine_.schedule_canonical(at, kinds_[kCopyDone], dst, 0, uint64_t{node_copies_[node]++} << 32 | cookie);
}

void NodeMemory::inject(net::EndpointId src, net::EndpointId dst, uint32_t src_rank, uint32_t dst_rank,
                        simcore::Bytes size, uint64_t cookie) {
  if (!gap_by_size_.empty()) {
    if (into_.size() <= std::max(src_rank, dst_rank)) into_.resize(std::max(src_rank, dst_rank) + 1);
    into_[src_rank].sent = true;
  }
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
  const simcore::Time copy = simcore::transfer_time(size, rate);
  if (!gap_by_size_.empty()) {
    // While copies into a rank follow each other closely (before the last is delivered, or
    // with nothing sent by the rank since it started: a stream) the rank takes in one per gap;
    // once it has answered (a ping-pong) the next starts at once.
    Into& in = into_[dst_rank];
    const simcore::Time now = engine_.now();
    const bool closely = now < in.delivered || !in.sent;
    const simcore::Time start = closely ? simcore::max(now, in.next) : now;
    in.next = start + gap(size);
    in.delivered = start + copy + latency_;
    in.sent = false;
    schedule_done(in.delivered, node, dst, cookie);
    return;
  }
  const simcore::Time start = simcore::max(engine_.now(), free_at_[node]);
  free_at_[node] = start + copy;
  schedule_done(start + copy + latency_, node, dst, cookie);
}

// node.copy_gap_by_size at `size`: linear between rows, the first row below it, proportional
// to size beyond the last.
simcore::Time NodeMemory::gap(simcore::Bytes size) const {
  const auto& rows = gap_by_size_;
  const double bytes = static_cast<double>(size.count());
  if (size <= rows.front().first) return rows.front().second;
  for (size_t i = 1; i < rows.size(); ++i) {
    if (size > rows[i].first) continue;
    const double x0 = static_cast<double>(rows[i - 1].first.count()), x1 = static_cast<double>(rows[i].first.count());
    const double y0 = static_cast<double>(rows[i - 1].second.count_ps());
    const double y1 = static_cast<double>(rows[i].second.count_ps());
    return simcore::Time::ps(std::llround(y0 + (y1 - y0) * (bytes - x0) / (x1 - x0)));
  }
  const double last = static_cast<double>(rows.back().first.count());
  return simcore::Time::ps(std::llround(static_cast<double>(rows.back().second.count_ps()) * bytes / last));
}

void NodeMemory::dispatch(const simcore::Event& e) {
  if (network_.owns(e.kind)) {
    network_.dispatch(e);
    return;
  }
  const uint64_t cookie = canonical_ ? e.data & UINT32_MAX : e.data;
  sink_.on_message_sent(cookie, e.time);
  sink_.on_message_delivered(cookie, e.time);
}

}  // namespace mgen::mpi
