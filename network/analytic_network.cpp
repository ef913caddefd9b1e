#include "analytic_network.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace mgen::net {

using simcore::transfer_time;

AnalyticNetwork::AnalyticNetwork(simcore::Engine& engine, const NetworkConfig& config, const Topology& topology,
                                 const Routing& routing, MessageSink& sink)
    : engine_(engine),
      topo_(topology),
      routing_(routing),
      sink_(sink),
      t_head_(head_delay(config.router)),
      t_tail_(config.router.switch_delay),
      switch_bw_(config.router.switch_bandwidth),
      dma_bw_(config.nic.dma_bandwidth),
      dma_latency_(config.nic.dma_latency),
      payload_max_(config.nic.packet_payload.count()),
      header_(static_cast<uint32_t>(config.nic.packet_header.count())),
      link_stats_(topology.total_ports()) {}

void AnalyticNetwork::path(EndpointId src, EndpointId dst, std::vector<Stage>& out) const {
  out.clear();
  RouteState state;
  RouterId r = topo_.endpoint_router(src);
  for (uint32_t guard = 0; guard <= topo_.routers() + 1; ++guard) {
    const Route route = routing_.route(r, dst, 0, state, nullptr, 0);
    const uint32_t gp = topo_.port_base(r) + route.port;
    const PortLink& link = topo_.link_at(gp);
    out.push_back(Stage{gp, link.bandwidth, link.latency});
    if (link.kind == PeerKind::kEndpoint) return;
    r = link.peer;
  }
  throw std::logic_error(fmt::format("routing from endpoint {} to {} does not terminate", src, dst));
}

AnalyticNetwork::Timing AnalyticNetwork::zero_load(EndpointId src, EndpointId dst, Bytes size, Time start) const {
  path(src, dst, scratch_);
  const size_t n = scratch_.size();
  std::vector<Time>& busy = busy_;  // E_i of the previous packet at router i
  busy.assign(n, start);
  const uint64_t packets = size.count() == 0 ? 1 : (size.count() + payload_max_ - 1) / payload_max_;
  uint64_t remaining = size.count();
  Time nic_busy = start, dma_free = start, rx_free = start, nic_tail = start, rx_end = start;
  for (uint64_t j = 0; j < packets; ++j) {
    const uint64_t payload = std::min(payload_max_, remaining);
    remaining -= payload;
    const Bytes wire(payload + header_);
    // Source NIC: DMA read, then the injection link.
    const Time dma_start = simcore::max(start, dma_free);
    const Time dma_end = dma_start + transfer_time(Bytes(payload), dma_bw_);
    dma_free = dma_end;
    Time head = simcore::max(nic_busy, dma_start + dma_latency_);
    Time tail = simcore::max(head + transfer_time(wire, topo_.endpoint_bandwidth()), dma_end + dma_latency_);
    nic_busy = nic_tail = tail;
    Time latency_in = topo_.endpoint_latency();
    for (size_t i = 0; i < n; ++i) {
      const Time h = simcore::max(head + latency_in + t_head_, busy[i]);
      const Time e =
          simcore::max(simcore::max(h + transfer_time(wire, scratch_[i].bw), h + transfer_time(wire, switch_bw_)),
                       tail + latency_in + t_tail_);
      busy[i] = e;
      head = h;
      tail = e;
      latency_in = scratch_[i].latency;
    }
    // Destination NIC: receive DMA.
    const Time arrive_head = head + latency_in;
    const Time arrive_tail = tail + latency_in;
    const Time rx_start = simcore::max(arrive_head, rx_free);
    rx_end = simcore::max(rx_start + transfer_time(Bytes(payload), dma_bw_), arrive_tail);
    rx_free = rx_end;
  }
  return Timing{nic_tail, rx_end + dma_latency_, static_cast<uint32_t>(n - 1)};
}

void AnalyticNetwork::inject(EndpointId src, EndpointId dst, Bytes size, uint64_t cookie) {
  if (src >= topo_.endpoints() || dst >= topo_.endpoints()) {
    throw std::out_of_range(
        fmt::format("inject from endpoint {} to {}: the machine has {} endpoints", src, dst, topo_.endpoints()));
  }
  const Time now = engine_.now();
  const Timing t = zero_load(src, dst, size, now);
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
  const uint64_t packets = size.count() == 0 ? 1 : (size.count() + payload_max_ - 1) / payload_max_;
  const uint64_t wire = size.count() + packets * header_;
  for (const Stage& s : scratch_) {
    link_stats_[s.out_gp].bytes += wire;
    link_stats_[s.out_gp].packets += packets;
  }
  ++live_;
  ++totals_.messages_injected;
  totals_.packets += packets;
  totals_.packet_hops += packets * (scratch_.size() + 1);
  totals_.payload_bytes += size.count();
  engine_.schedule(t.sent, kAnalyticSent, src, 0, slot);
  engine_.schedule(t.delivered, kAnalyticDelivered, dst, 0, slot);
}

void AnalyticNetwork::dispatch(const simcore::Event& e) {
  const uint32_t slot = static_cast<uint32_t>(e.data);
  if (e.kind == kAnalyticSent) {
    sink_.on_message_sent(cookies_[slot], e.time);
  } else if (e.kind == kAnalyticDelivered) {
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
