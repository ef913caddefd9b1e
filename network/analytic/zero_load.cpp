#include "analytic/zero_load.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace mgen::net {

using simcore::transfer_time;

ZeroLoadModel::ZeroLoadModel(const NetworkConfig& config, const Topology& topology, const Routing& routing)
    : topo_(topology),
      routing_(routing),
      t_head_(head_delay(config.router)),
      t_tail_(config.router.switch_delay),
      switch_bw_(config.router.switch_bandwidth),
      dma_bw_(config.nic.dma_bandwidth),
      dma_latency_(config.nic.dma_latency),
      payload_max_(config.nic.packet_payload.count()),
      header_(static_cast<uint32_t>(config.nic.packet_header.count())) {}

void ZeroLoadModel::route(EndpointId src, EndpointId dst, std::vector<Stage>& out) const {
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

namespace {

// A time with the per-packet growth rate of the term it came from: a stage's time for the
// previous packet grows by that stage's bound rate, the message's start time not at all. Sums
// keep the rate; a maximum keeps the larger time and, on a tie, the larger rate (either term
// witnesses the maximum, and the faster one stays maximal).
struct Tagged {
  Time t;
  Time rate;
};
inline Tagged operator+(Tagged a, Time d) {
  return Tagged{a.t + d, a.rate};
}
inline Tagged tmax(Tagged a, Tagged b) {
  if (a.t != b.t) return a.t > b.t ? a : b;
  return a.rate >= b.rate ? a : b;
}

}  // namespace

// The recurrence is max-plus linear in the stages' times for the previous packet, and each cycle
// of its dependency graph is one stage's self-loop (a stage serves one packet after another), so
// stage k's time grows per packet by at most r_k, the largest service time at or before k. If,
// for one full packet, every stage grew by exactly r_k and every stage's maximum came from a term
// growing at r_k, each further full packet repeats that step exactly (by induction on the packet
// index), and the remaining full packets are added at once. Otherwise the loop runs to the end;
// the result is the same integer either way.
ZeroLoadModel::Timing ZeroLoadModel::zero_load(EndpointId src, EndpointId dst, Bytes size, Time start,
                                               SourceNic& source) const {
  route(src, dst, scratch_);
  const size_t n = scratch_.size();
  const uint64_t packets = size.count() == 0 ? 1 : (size.count() + payload_max_ - 1) / payload_max_;
  const uint64_t full = size.count() / payload_max_;  // packets carrying payload_max_ bytes

  // Bound rates: source DMA, injection link, each router, receive DMA.
  const Time dma_full = transfer_time(Bytes(payload_max_), dma_bw_);
  const Bytes full_wire(payload_max_ + header_);
  const Time switch_full = transfer_time(full_wire, switch_bw_);
  const Time rate_dma = dma_full;
  const Time nic_full = transfer_time(full_wire, topo_.endpoint_bandwidth());
  const Time rate_nic = simcore::max(rate_dma, nic_full);
  rate_.resize(n);
  svc_.resize(n);  // a full packet's service time at each router
  Time r = rate_nic;
  for (size_t i = 0; i < n; ++i) {
    svc_[i] = simcore::max(transfer_time(full_wire, scratch_[i].bw), switch_full);
    r = simcore::max(r, svc_[i]);
    rate_[i] = r;
  }
  const Time rate_rx = simcore::max(r, dma_full);

  // Times of the previous packet at each stage.
  busy_.assign(n, start);  // E_i at router i
  Time dma_free = simcore::max(start, source.dma_free), nic_busy = simcore::max(start, source.link_free);
  Time rx_free = start;

  // One packet of `payload` bytes through every stage; true if it was a steady full-packet step.
  auto step = [&](uint64_t payload) {
    // Full packets reuse the service times computed above (no divisions per packet and hop).
    const bool whole = payload == payload_max_;
    const Bytes wire(payload + header_);
    const Time dma = whole ? dma_full : transfer_time(Bytes(payload), dma_bw_);
    const Time sw = whole ? switch_full : transfer_time(wire, switch_bw_);
    const Time nic = whole ? nic_full : transfer_time(wire, topo_.endpoint_bandwidth());
    // Source NIC: DMA read, then the injection link.
    const Tagged dma_start = tmax(Tagged{start, Time()}, Tagged{dma_free, rate_dma});
    const Tagged dma_end = dma_start + dma;
    const Tagged head0 = tmax(Tagged{nic_busy, rate_nic}, dma_start + dma_latency_);
    const Tagged tail0 = tmax(head0 + nic, dma_end + dma_latency_);
    bool steady = dma_end.t - dma_free == rate_dma && dma_end.rate == rate_dma && tail0.t - nic_busy == rate_nic &&
                  tail0.rate == rate_nic;
    dma_free = dma_end.t;
    nic_busy = tail0.t;
    Tagged head = head0, tail = tail0;
    Time latency_in = topo_.endpoint_latency();
    for (size_t i = 0; i < n; ++i) {
      const Tagged h = tmax(head + (latency_in + t_head_), Tagged{busy_[i], rate_[i]});
      const Time service = whole ? svc_[i] : simcore::max(transfer_time(wire, scratch_[i].bw), sw);
      const Tagged e = tmax(h + service, tail + (latency_in + t_tail_));
      steady = steady && e.t - busy_[i] == rate_[i] && e.rate == rate_[i];
      busy_[i] = e.t;
      head = h;
      tail = e;
      latency_in = scratch_[i].latency;
    }
    // Destination NIC: receive DMA.
    const Tagged rx_start = tmax(head + latency_in, Tagged{rx_free, rate_rx});
    const Tagged rx_end = tmax(rx_start + dma, tail + latency_in);
    steady = steady && rx_end.t - rx_free == rate_rx && rx_end.rate == rate_rx;
    rx_free = rx_end.t;
    return steady;
  };

  for (uint64_t j = 0; j < full; ++j) {
    if (step(payload_max_) && j + 1 < full) {
      const int64_t rest = static_cast<int64_t>(full - 1 - j);
      dma_free += rate_dma * rest;
      nic_busy += rate_nic * rest;
      for (size_t i = 0; i < n; ++i)
        busy_[i] += rate_[i] * rest;
      rx_free += rate_rx * rest;
      break;
    }
  }
  if (packets > full) step(size.count() - full * payload_max_);  // the short last packet, or an empty one
  source = SourceNic{dma_free, nic_busy};
  return Timing{nic_busy, rx_free + dma_latency_, static_cast<uint32_t>(n - 1)};
}

}  // namespace mgen::net
