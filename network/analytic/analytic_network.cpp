#include "analytic/analytic_network.hpp"

#include <fmt/format.h>

#include <iterator>
#include <stdexcept>

namespace mgen::net {

using simcore::transfer_time;

AnalyticNetwork::AnalyticNetwork(const BackendContext& c)
    : engine_(c.engine),
      topo_(c.topology),
      sink_(c.sink),
      kinds_(c.kinds),
      model_(c.config, c.topology, c.routing),
      switch_bw_(c.config.router.switch_bandwidth),
      dma_bw_(c.config.nic.dma_bandwidth),
      dma_latency_(c.config.nic.dma_latency),
      link_stats_(c.topology.total_ports()),
      nic_contention_(c.config.analytic.nic_contention) {
  if (nic_contention_) {
    source_.assign(c.topology.endpoints(), ZeroLoadModel::SourceNic{});
    ejection_.resize(c.topology.endpoints());
  }
}

Time AnalyticNetwork::book_ejection(EndpointId dst, Time from, Time length, Time now) {
  std::map<Time, Time>& booked = ejection_[dst];
  while (!booked.empty() && booked.begin()->second <= now)
    booked.erase(booked.begin());
  // The first gap of `length` from `from` on.
  Time s = from;
  auto next = booked.upper_bound(s);
  if (next != booked.begin() && std::prev(next)->second > s) s = std::prev(next)->second;
  while (next != booked.end() && next->first < s + length) {
    s = simcore::max(s, next->second);
    ++next;
  }
  const Time end = s + length;
  // Book [s, end), merged with the bookings it touches.
  Time merged_end = end;
  if (next != booked.end() && next->first == end) {
    merged_end = next->second;
    next = booked.erase(next);
  }
  if (next != booked.begin() && std::prev(next)->second == s) {
    std::prev(next)->second = merged_end;
  } else {
    booked.emplace_hint(next, s, merged_end);
  }
  return end;
}

void AnalyticNetwork::inject(EndpointId src, EndpointId dst, Bytes size, uint64_t cookie) {
  if (src >= topo_.endpoints() || dst >= topo_.endpoints()) {
    throw std::out_of_range(
        fmt::format("inject from endpoint {} to {}: the machine has {} endpoints", src, dst, topo_.endpoints()));
  }
  const Time now = engine_.now();
  const uint64_t payload_max = model_.payload_max();
  const uint64_t packets = size.count() == 0 ? 1 : (size.count() + payload_max - 1) / payload_max;
  const uint64_t wire = size.count() + packets * model_.header();
  ZeroLoadModel::Timing t;
  if (nic_contention_) {
    t = model_.zero_load(src, dst, size, now, source_[src]);
    // The last packet's receive DMA ends dma_latency_ before delivery.
    const Time eject = simcore::max(
        simcore::max(transfer_time(Bytes(wire), topo_.endpoint_bandwidth()), transfer_time(Bytes(wire), switch_bw_)),
        transfer_time(size, dma_bw_));
    const Time end = t.delivered - dma_latency_;
    t.delivered = book_ejection(dst, end - eject, eject, now) + dma_latency_;
  } else {
    t = model_.zero_load(src, dst, size, now);
  }
  uint32_t slot;
  if (!free_.empty()) {
    slot = free_.back();
    free_.pop_back();
    cookies_[slot] = cookie;
    posted_[slot] = now;
  } else {
    slot = static_cast<uint32_t>(cookies_.size());
    cookies_.push_back(cookie);
    posted_.push_back(now);
  }
  // Busy time is what the link would need to carry these bytes on its own; links are shared
  // without contention here, so a link's busy time may exceed the run's length.
  const std::vector<ZeroLoadModel::Stage>& path = model_.path();
  for (const ZeroLoadModel::Stage& s : path) {
    LinkStats& l = link_stats_[s.out_gp];
    l.bytes += wire;
    l.packets += packets;
    l.busy += transfer_time(Bytes(wire), s.bw);
  }
  ++live_;
  ++totals_.messages_injected;
  totals_.packets += packets;
  totals_.packet_hops += packets * (path.size() + 1);
  totals_.payload_bytes += size.count();
  engine_.schedule(t.sent, kinds_[kSent], src, 0, slot);
  engine_.schedule(t.delivered, kinds_[kDelivered], dst, 0, slot);
}

void AnalyticNetwork::dispatch(const simcore::Event& e) {
  const uint32_t slot = static_cast<uint32_t>(e.data);
  const uint16_t kind = static_cast<uint16_t>(e.kind - kinds_.begin);
  if (kind == kSent) {
    sink_.on_message_sent(cookies_[slot], e.time);
  } else if (kind == kDelivered) {
    const Time latency = e.time - posted_[slot];
    ++totals_.messages_delivered;
    totals_.latency_sum += latency;
    totals_.latency_max = simcore::max(totals_.latency_max, latency);
    --live_;
    free_.push_back(slot);
    sink_.on_message_delivered(cookies_[slot], e.time);
  } else {
    throw std::logic_error(fmt::format("analytic network got an event of unknown kind {}", e.kind));
  }
}

}  // namespace mgen::net
