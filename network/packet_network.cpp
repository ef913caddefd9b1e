#include "packet_network.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace mgen::net {

using simcore::Event;
using simcore::transfer_time;

namespace {

uint32_t mix32(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return static_cast<uint32_t>(x ^ (x >> 31));
}

}  // namespace

PacketNetwork::PacketNetwork(simcore::Engine& engine, const NetworkConfig& config, const Topology& topology,
                             const Routing& routing, MessageSink& sink)
    : engine_(engine),
      topo_(topology),
      routing_(routing),
      sink_(sink),
      vcs_(routing.vcs()),
      t_head_(config.router.routing_delay + config.router.vc_alloc_delay + config.router.switch_alloc_delay +
              config.router.switch_delay),
      t_tail_(config.router.switch_delay),
      switch_bw_(config.router.switch_bandwidth),
      dma_bw_(config.nic.dma_bandwidth),
      dma_latency_(config.nic.dma_latency),
      payload_max_(config.nic.packet_payload.count()),
      header_(static_cast<uint32_t>(config.nic.packet_header.count())),
      age_arbitration_(config.router.arbitration == "age"),
      injection_(routing.injection_vcs()),
      full_packet_time_(transfer_time(Bytes(payload_max_ + header_), topology.endpoint_bandwidth())) {
  const size_t ports = topology.total_ports();
  total_ports_ = static_cast<uint32_t>(ports);
  fifo_head_.assign(ports * vcs_, kNoId);
  fifo_tail_.assign(ports * vcs_, kNoId);
  req_next_.assign(ports * vcs_, kNoId);
  req_prev_.assign(ports * vcs_, kNoId);
  in_busy_.assign(ports, Time::zero());
  out_busy_.assign(ports, Time::zero());
  out_wake_.assign(ports, Time::max());
  req_head_.assign(ports, kNoId);
  rr_.assign(ports, 0);
  link_stats_.assign(ports, LinkStats{});
  credit_blocked_.assign(ports, 0);
  const size_t queues = ports + topology.endpoints();
  credits_.assign(queues * vcs_, 0);
  credit_head_.assign(queues, kNoId);
  credit_tail_.assign(queues, kNoId);
  out_bw_.resize(ports);
  out_full_ser_.resize(ports);
  const int32_t vc_buffer = static_cast<int32_t>(config.router.vc_buffer.count());
  const int32_t rx_buffer = static_cast<int32_t>(config.nic.rx_buffer.count());
  const Bytes full(payload_max_ + header_);
  for (size_t gp = 0; gp < ports; ++gp) {
    const PortLink& l = topology.link_at(static_cast<uint32_t>(gp));
    if (l.kind == PeerKind::kRouter) {
      for (uint32_t v = 0; v < vcs_; ++v) credits_[gp * vcs_ + v] = vc_buffer;
    } else if (l.kind == PeerKind::kEndpoint) {
      credits_[gp * vcs_] = rx_buffer;  // a NIC has one ejection buffer
    }
    // The tail leaves no sooner than the slower of the output link and the crossbar allow.
    out_bw_[gp] = l.kind == PeerKind::kUnconnected ? switch_bw_ : std::min(l.bandwidth, switch_bw_);
    out_full_ser_[gp] = transfer_time(full, out_bw_[gp]);
  }
  for (size_t q = ports; q < queues; ++q) {
    for (uint32_t v = 0; v < vcs_; ++v) credits_[q * vcs_ + v] = vc_buffer;
  }
  nics_.assign(topology.endpoints(), Nic{});
  nic_stats_.assign(topology.endpoints(), LinkStats{});
}

// ---------------------------------------------------------------- credits

void PacketNetwork::return_credit(uint32_t queue, Time at, uint32_t vc, uint32_t bytes) {
  uint32_t c;
  if (free_pending_ != kNoId) {
    c = free_pending_;
    free_pending_ = pending_[c].next;
  } else {
    c = static_cast<uint32_t>(pending_.size());
    pending_.emplace_back();
  }
  pending_[c] = PendingCredit{at, bytes, vc, kNoId};
  // Credits for one output come from one downstream input port, whose packets leave in order,
  // so each queue stays sorted by due time.
  if (credit_tail_[queue] == kNoId) {
    credit_head_[queue] = c;
  } else {
    pending_[credit_tail_[queue]].next = c;
  }
  credit_tail_[queue] = c;
}

void PacketNetwork::absorb_credits(uint32_t queue, Time now) {
  uint32_t c = credit_head_[queue];
  while (c != kNoId && pending_[c].at <= now) {
    const PendingCredit& pc = pending_[c];
    credits_[size_t{queue} * vcs_ + pc.vc] += static_cast<int32_t>(pc.bytes);
    const uint32_t next = pc.next;
    pending_[c].next = free_pending_;
    free_pending_ = c;
    c = next;
  }
  credit_head_[queue] = c;
  if (c == kNoId) credit_tail_[queue] = kNoId;
}

Time PacketNetwork::next_credit(uint32_t queue) const {
  return credit_head_[queue] == kNoId ? Time::max() : pending_[credit_head_[queue]].at;
}

Time PacketNetwork::serialise(uint32_t wire, uint32_t out_gp) const {
  return wire == payload_max_ + header_ ? out_full_ser_[out_gp] : transfer_time(Bytes(wire), out_bw_[out_gp]);
}

// ---------------------------------------------------------------- pools

uint32_t PacketNetwork::alloc_packet() {
  ++live_packets_;
  if (free_packets_ != kNoId) {
    const uint32_t pk = free_packets_;
    free_packets_ = packets_[pk].next;
    packets_[pk] = Packet{};
    return pk;
  }
  packets_.emplace_back();
  return static_cast<uint32_t>(packets_.size() - 1);
}

void PacketNetwork::free_packet(uint32_t pk) {
  --live_packets_;
  packets_[pk].next = free_packets_;
  free_packets_ = pk;
}

uint32_t PacketNetwork::alloc_message() {
  if (free_messages_ != kNoId) {
    const uint32_t m = free_messages_;
    free_messages_ = messages_[m].next;
    messages_[m] = Message{};
    return m;
  }
  messages_.emplace_back();
  return static_cast<uint32_t>(messages_.size() - 1);
}

// ---------------------------------------------------------------- dispatch

void PacketNetwork::dispatch(const Event& e) {
  switch (e.kind) {
    case kHeadReady:
      on_head_ready(e.target, e.port, static_cast<uint32_t>(e.data), static_cast<uint32_t>(e.data >> 32));
      break;
    case kRouterWake: {
      const uint32_t gp = topo_.port_base(e.target) + e.port;
      if (out_wake_[gp] == e.time) out_wake_[gp] = Time::max();
      try_output(e.target, e.port);
      break;
    }
    case kNicWake:
      if (nics_[e.target].wake_at == e.time) nics_[e.target].wake_at = Time::max();
      try_inject(e.target);
      break;
    case kNicArrive:
      on_nic_arrive(e.target, static_cast<uint32_t>(e.data));
      break;
    case kMsgSent: {
      Message& m = messages_[e.data];
      m.sent_done = true;
      sink_.on_message_sent(m.cookie, e.time);
      if (m.delivered) finish(static_cast<uint32_t>(e.data));
      break;
    }
    case kMsgDelivered: {
      Message& m = messages_[e.data];
      m.delivered = true;
      ++totals_.messages_delivered;
      const Time latency = e.time - m.posted;
      totals_.latency_sum += latency;
      totals_.latency_max = simcore::max(totals_.latency_max, latency);
      const uint64_t cookie = m.cookie;
      if (m.sent_done) finish(static_cast<uint32_t>(e.data));
      sink_.on_message_delivered(cookie, e.time);
      break;
    }
    default:
      throw std::logic_error(fmt::format("packet network got an event of unknown kind {}", e.kind));
  }
}

void PacketNetwork::finish(uint32_t m) {
  messages_[m].next = free_messages_;
  free_messages_ = m;
}

// ---------------------------------------------------------------- NIC: injection

void PacketNetwork::inject(EndpointId src, EndpointId dst, Bytes size, uint64_t cookie) {
  if (src >= topo_.endpoints() || dst >= topo_.endpoints()) {
    throw std::out_of_range(fmt::format("inject from endpoint {} to {}: the machine has {} endpoints", src, dst,
                                        topo_.endpoints()));
  }
  const uint32_t m = alloc_message();
  Message& msg = messages_[m];
  msg.cookie = cookie;
  msg.remaining = size.count();
  msg.posted = engine_.now();
  msg.src = src;
  msg.dst = dst;
  msg.packets = size.count() == 0 ? 1 : static_cast<uint32_t>((size.count() + payload_max_ - 1) / payload_max_);
  msg.seq = message_seq_++;
  ++totals_.messages_injected;
  totals_.payload_bytes += size.count();
  Nic& nic = nics_[src];
  if (nic.ring_tail == kNoId) {
    nic.ring_head = m;
  } else {
    messages_[nic.ring_tail].next = m;
  }
  nic.ring_tail = m;
  try_inject(src);
}

void PacketNetwork::nic_wake(EndpointId e, Time t) {
  Nic& nic = nics_[e];
  if (nic.wake_at >= engine_.now() && nic.wake_at <= t) return;
  nic.wake_at = t;
  engine_.schedule(t, kNicWake, e);
}

void PacketNetwork::try_inject(EndpointId e) {
  Nic& nic = nics_[e];
  if (nic.ring_head == kNoId) return;
  const Time now = engine_.now();
  if (nic.link_busy > now) {
    nic_wake(e, nic.link_busy);
    return;
  }
  const uint32_t m = nic.ring_head;
  Message& msg = messages_[m];
  const uint32_t payload = static_cast<uint32_t>(std::min<uint64_t>(payload_max_, msg.remaining));
  const uint32_t wire = payload + header_;
  const uint32_t queue = nic_queue(e);
  absorb_credits(queue, now);
  int32_t* credits = &credits_[size_t{queue} * vcs_];
  int vc = -1;
  for (uint32_t v = injection_.vc_lo; v < injection_.vc_hi; ++v) {
    if (credits[v] >= static_cast<int32_t>(wire) && (vc < 0 || credits[v] > credits[vc])) vc = static_cast<int>(v);
  }
  nic.credit_blocked = vc < 0;
  if (vc < 0) {
    if (credit_head_[queue] != kNoId) nic_wake(e, next_credit(queue));
    return;  // otherwise the next credit to be returned wakes the NIC
  }

  // The DMA engine reads payloads in order; it may have fetched this one while the link was busy.
  const Time dma_start = simcore::max(msg.posted, nic.dma_free);
  const Time dma_end = dma_start + transfer_time(Bytes(payload), dma_bw_);
  nic.dma_free = dma_end;
  const Time head = simcore::max(now, dma_start + dma_latency_);
  const Time tail = simcore::max(head + transfer_time(Bytes(wire), topo_.endpoint_bandwidth()), dma_end + dma_latency_);
  nic.link_busy = tail;
  credits[vc] -= static_cast<int32_t>(wire);
  LinkStats& ls = nic_stats_[e];
  ls.bytes += wire;
  ++ls.packets;
  ls.busy += tail - head;

  const uint32_t pk = alloc_packet();
  Packet& p = packets_[pk];
  p.msg = m;
  p.dst = msg.dst;
  p.hash = mix32((uint64_t{msg.seq} << 32) | msg.sent);
  p.wire = wire;
  p.payload = payload;
  // Age = when the packet would have left an idle source NIC. Counting from the message post
  // (not from when credit finally let it go) is what makes oldest-first globally fair.
  p.born = msg.posted + full_packet_time_ * msg.sent;
  p.tail = tail + topo_.endpoint_latency();
  p.vc = static_cast<uint8_t>(vc);
  engine_.schedule(head + topo_.endpoint_latency() + t_head_, kHeadReady, topo_.endpoint_router(e),
                   topo_.endpoint_port(e), pk | (uint64_t(vc) << 32));
  ++totals_.packets;
  ++totals_.packet_hops;

  msg.remaining -= payload;
  ++msg.sent;
  nic.ring_head = msg.next;
  if (nic.ring_head == kNoId) nic.ring_tail = kNoId;
  msg.next = kNoId;
  if (msg.sent < msg.packets) {
    // Round-robin between the NIC's messages, one packet at a time.
    if (nic.ring_tail == kNoId) {
      nic.ring_head = m;
    } else {
      messages_[nic.ring_tail].next = m;
    }
    nic.ring_tail = m;
  } else {
    engine_.schedule(tail, kMsgSent, e, 0, m);
  }
  if (nic.ring_head != kNoId) nic_wake(e, tail);
}

// ---------------------------------------------------------------- NIC: ejection

void PacketNetwork::on_nic_arrive(EndpointId e, uint32_t pk) {
  Nic& nic = nics_[e];
  Packet& p = packets_[pk];
  // Receive DMA writes the payload to memory as it streams in, but cannot finish before the
  // tail has arrived; the ejection buffer is released once the payload is in memory.
  const Time dma_start = simcore::max(engine_.now(), nic.rx_dma_free);
  const Time dma_end = simcore::max(dma_start + transfer_time(Bytes(p.payload), dma_bw_), p.tail);
  nic.rx_dma_free = dma_end;
  const RouterId r = topo_.endpoint_router(e);
  const uint32_t gp = topo_.port_base(r) + topo_.endpoint_port(e);
  const Time due = dma_end + topo_.endpoint_latency();
  return_credit(gp, due, 0, p.wire);
  if (credit_blocked_[gp]) wake(r, topo_.endpoint_port(e), due);
  Message& msg = messages_[p.msg];
  if (++msg.received == msg.packets) engine_.schedule(dma_end + dma_latency_, kMsgDelivered, e, 0, p.msg);
  free_packet(pk);
}

// ---------------------------------------------------------------- routers

void PacketNetwork::on_head_ready(RouterId r, uint32_t in_port, uint32_t pk, uint32_t vc) {
  const uint32_t in_gp = topo_.port_base(r) + in_port;
  const uint32_t iv = in_gp * vcs_ + vc;
  Packet& p = packets_[pk];
  p.vc = static_cast<uint8_t>(vc);
  p.next = kNoId;
  if (fifo_tail_[iv] == kNoId) {
    fifo_head_[iv] = pk;
    fifo_tail_[iv] = pk;
    become_head(r, in_gp, vc);
  } else {
    packets_[fifo_tail_[iv]].next = pk;
    fifo_tail_[iv] = pk;
  }
}

void PacketNetwork::become_head(RouterId r, uint32_t in_gp, uint32_t vc) {
  const uint32_t iv = in_gp * vcs_ + vc;
  Packet& p = packets_[fifo_head_[iv]];
  const uint32_t base = topo_.port_base(r);
  if (routing_.adaptive()) {
    // Adaptive choices read the free credit of every output of this router.
    for (uint32_t gp = base; gp < base + topo_.ports(r); ++gp) absorb_credits(gp, engine_.now());
  }
  const Route route = routing_.route(r, p.dst, p.hash, p.state, &credits_[size_t{base} * vcs_], p.wire);
  p.out_port = route.port;
  p.vc_lo = route.vc_lo;
  p.vc_hi = route.vc_hi;
  request(base + route.port, iv);
  try_output(r, route.port);
}

void PacketNetwork::request(uint32_t out_gp, uint32_t iv) {
  req_prev_[iv] = kNoId;
  req_next_[iv] = req_head_[out_gp];
  if (req_head_[out_gp] != kNoId) req_prev_[req_head_[out_gp]] = iv;
  req_head_[out_gp] = iv;
}

void PacketNetwork::unrequest(uint32_t out_gp, uint32_t iv) {
  if (req_prev_[iv] == kNoId) {
    req_head_[out_gp] = req_next_[iv];
  } else {
    req_next_[req_prev_[iv]] = req_next_[iv];
  }
  if (req_next_[iv] != kNoId) req_prev_[req_next_[iv]] = req_prev_[iv];
  req_next_[iv] = req_prev_[iv] = kNoId;
}

int PacketNetwork::pick_vc(const int32_t* credits, const Packet& p) const {
  // VC allocation: the allowed downstream VC with the most free space that holds the whole packet.
  int vc = -1;
  for (uint32_t v = p.vc_lo; v < p.vc_hi; ++v) {
    if (credits[v] >= static_cast<int32_t>(p.wire) && (vc < 0 || credits[v] > credits[vc])) vc = static_cast<int>(v);
  }
  return vc;
}

void PacketNetwork::wake(RouterId r, uint32_t out_port, Time t) {
  const uint32_t gp = topo_.port_base(r) + out_port;
  if (out_wake_[gp] >= engine_.now() && out_wake_[gp] <= t) return;
  out_wake_[gp] = t;
  engine_.schedule(t, kRouterWake, r, static_cast<uint16_t>(out_port));
}

void PacketNetwork::try_output(RouterId r, uint32_t out_port) {
  const uint32_t base = topo_.port_base(r);
  const uint32_t gp = base + out_port;
  const Time now = engine_.now();
  if (out_busy_[gp] > now) {
    if (req_head_[gp] != kNoId) wake(r, out_port, out_busy_[gp]);
    return;
  }
  absorb_credits(gp, now);
  const int32_t* credits = &credits_[size_t{gp} * vcs_];
  const uint32_t slots = topo_.ports(r) * vcs_;
  bool credit_blocked = false;
  const uint32_t first_iv = base * vcs_;
  Time retry = Time::max();
  uint32_t best = kNoId;
  int best_vc = -1;
  uint32_t best_rank = 0;
  scratch_.clear();
  for (uint32_t iv = req_head_[gp]; iv != kNoId; iv = req_next_[iv]) {
    const uint32_t in_gp = iv / vcs_;
    if (in_busy_[in_gp] > now) {
      retry = simcore::min(retry, in_busy_[in_gp]);
      continue;
    }
    const Packet& p = packets_[fifo_head_[iv]];
    const int vc = pick_vc(credits, p);
    if (vc < 0) {
      credit_blocked = true;
      // Duato: an adaptive packet never waits on adaptive VCs; it takes the escape network.
      if (routing_.algo() == RoutingAlgo::kAdaptive && !p.state.escape) scratch_.push_back(iv);
      continue;
    }
    bool better;
    if (age_arbitration_) {
      const Packet& b = best == kNoId ? p : packets_[fifo_head_[best]];
      better = best == kNoId || p.born < b.born || (p.born == b.born && iv < best);
    } else {
      const uint32_t slot = iv - first_iv;
      const uint32_t rank = (slot + slots - rr_[gp] - 1) % slots;
      better = best == kNoId || rank < best_rank;
      if (better) best_rank = rank;
    }
    if (better) {
      best = iv;
      best_vc = vc;
    }
  }
  credit_blocked_[gp] = credit_blocked;
  if (best != kNoId) {
    grant(r, gp, best, static_cast<uint32_t>(best_vc));
  } else {
    // Credits already on their way are due at known times; later ones wake us on return.
    if (credit_blocked) retry = simcore::min(retry, next_credit(gp));
    if (retry != Time::max()) wake(r, out_port, retry);
  }
  if (scratch_.empty()) return;
  // Rare path. Nested calls below reuse scratch_ and may already have re-routed a packet of
  // this list (when its escape port is this very output), so each one is re-checked: only a
  // head packet still asking this output for adaptive VCs moves to the escape network.
  const std::vector<uint32_t> fallback(scratch_);
  for (uint32_t iv : fallback) {
    if (fifo_head_[iv] == kNoId) continue;
    Packet& p = packets_[fifo_head_[iv]];
    if (p.state.escape || base + p.out_port != gp) continue;
    unrequest(gp, iv);
    p.state.escape = 1;
    become_head(r, iv / vcs_, iv % vcs_);
  }
}

void PacketNetwork::grant(RouterId r, uint32_t out_gp, uint32_t iv, uint32_t vc) {
  const uint32_t in_gp = iv / vcs_;
  const uint32_t in_vc = iv % vcs_;
  unrequest(out_gp, iv);
  const uint32_t pk = fifo_head_[iv];
  Packet& p = packets_[pk];
  fifo_head_[iv] = p.next;
  if (fifo_head_[iv] == kNoId) fifo_tail_[iv] = kNoId;

  const PortLink& out = topo_.link_at(out_gp);
  const Time head = engine_.now();
  const Time tail = simcore::max(head + serialise(p.wire, out_gp), p.tail + t_tail_);
  out_busy_[out_gp] = tail;
  in_busy_[in_gp] = tail;
  credits_[size_t{out_gp} * vcs_ + vc] -= static_cast<int32_t>(p.wire);
  rr_[out_gp] = iv - topo_.port_base(r) * vcs_;
  LinkStats& ls = link_stats_[out_gp];
  ls.bytes += p.wire;
  ++ls.packets;
  ls.busy += tail - head;
  ++totals_.packet_hops;

  // The input buffer this packet leaves is free once its tail has gone: credit flows back.
  const PortLink& in = topo_.link_at(in_gp);
  const Time due = tail + in.latency;
  if (in.kind == PeerKind::kRouter) {
    const uint32_t up_gp = topo_.port_base(in.peer) + in.peer_port;
    return_credit(up_gp, due, in_vc, p.wire);
    if (credit_blocked_[up_gp]) wake(in.peer, in.peer_port, due);
  } else {
    return_credit(nic_queue(in.peer), due, in_vc, p.wire);
    if (nics_[in.peer].credit_blocked) nic_wake(in.peer, due);
  }
  p.tail = tail + out.latency;
  if (out.kind == PeerKind::kRouter) {
    engine_.schedule(head + out.latency + t_head_, kHeadReady, out.peer, out.peer_port, pk | (uint64_t{vc} << 32));
  } else {
    engine_.schedule(head + out.latency, kNicArrive, out.peer, 0, pk);
  }
  if (req_head_[out_gp] != kNoId) wake(r, out_gp - topo_.port_base(r), tail);
  if (fifo_head_[iv] != kNoId) become_head(r, in_gp, in_vc);
}

std::string PacketNetwork::describe_stuck(size_t limit) const {
  std::string out;
  size_t lines = 0;
  for (RouterId r = 0; r < topo_.routers() && lines < limit; ++r) {
    for (uint32_t port = 0; port < topo_.ports(r) && lines < limit; ++port) {
      const uint32_t gp = topo_.port_base(r) + port;
      for (uint32_t v = 0; v < vcs_ && lines < limit; ++v) {
        uint32_t count = 0;
        for (uint32_t pk = fifo_head_[gp * vcs_ + v]; pk != kNoId; pk = packets_[pk].next) ++count;
        if (count == 0) continue;
        const Packet& h = packets_[fifo_head_[gp * vcs_ + v]];
        const uint32_t out_gp = topo_.port_base(r) + h.out_port;
        std::string credit;
        for (uint32_t dv = h.vc_lo; dv < h.vc_hi; ++dv) {
          credit += fmt::format("{}{}", credit.empty() ? "" : "/", credits_[size_t{out_gp} * vcs_ + dv]);
        }
        out += fmt::format("  router {} in-port {} vc {}: {} packet(s); head to endpoint {} waits for out-port {} "
                           "vc {}-{} (free credit {} B, needs {} B)\n",
                           r, port, v, count, h.dst, h.out_port, h.vc_lo, h.vc_hi - 1, credit, h.wire);
        ++lines;
      }
    }
  }
  for (EndpointId e = 0; e < nics_.size() && lines < limit; ++e) {
    if (nics_[e].ring_head == kNoId) continue;
    out += fmt::format("  NIC {}: message to endpoint {} waits to inject\n", e, messages_[nics_[e].ring_head].dst);
    ++lines;
  }
  return out;
}

}  // namespace mgen::net
