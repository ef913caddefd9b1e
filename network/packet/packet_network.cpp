#include "packet/packet_network.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <type_traits>

namespace mgen::net {

using simcore::Event;
using simcore::transfer_time;

PacketNetwork::PacketNetwork(const BackendContext& c) : PacketNetwork(c, c.config, c.topology, c.routing) {}

PacketNetwork::PacketNetwork(const BackendContext& c, const NetworkConfig& config, const Topology& topology,
                             const Routing& routing)
    : engine_(c.engine),
      topo_(topology),
      routing_(routing),
      sink_(c.sink),
      kinds_(c.kinds),
      vcs_(routing.vcs()),
      t_head_(head_delay(config.router)),
      t_tail_(config.router.switch_delay),
      switch_bw_(config.router.switch_bandwidth),
      dma_bw_(config.nic.dma_bandwidth),
      dma_latency_(config.nic.dma_latency),
      payload_max_(config.nic.packet_payload.count()),
      header_(static_cast<uint32_t>(config.nic.packet_header.count())),
      fma_(config.nic.transport == "fma"),
      response_(static_cast<uint32_t>(config.nic.response_bytes.count())),
      age_arbitration_(config.router.arbitration == "age"),
      injection_(routing.injection_vcs()),
      full_packet_time_(transfer_time(Bytes(payload_max_ + header_), topology.endpoint_bandwidth())),
      full_dma_time_(transfer_time(Bytes(payload_max_), dma_bw_)),
      stats_(c.link_stats),
      reference_(config.router.reference),
      lookahead_(!routing.adaptive() && !config.router.reference),
      steps_(lookahead_ && config.router.trains),
      same_route_(routing.per_destination()) {
  const size_t ports = topology.total_ports();
  while ((1u << vc_shift_) < vcs_)
    ++vc_shift_;
  ports_.assign(ports, Port{});
  vc_.assign(ports << vc_shift_, PortVc{});
  credits_.assign(ports << vc_shift_, 0);
  if (stats_) link_stats_.assign(ports, LinkStats{});
  const int32_t vc_buffer = static_cast<int32_t>(config.router.vc_buffer.count());
  const int32_t rx_buffer = static_cast<int32_t>(config.nic.rx_buffer.count());
  const Bytes full(payload_max_ + header_);
  for (size_t gp = 0; gp < ports; ++gp) {
    const PortLink& l = topology.link_at(static_cast<uint32_t>(gp));
    Port& port = ports_[gp];
    port.peer = l.peer;
    port.peer_port = l.peer_port;
    port.kind = l.kind;
    port.latency = l.latency;
    // The tail leaves no sooner than the slower of the output link and the crossbar allow.
    const Bandwidth rate = l.kind == PeerKind::kUnconnected ? switch_bw_ : std::min(l.bandwidth, switch_bw_);
    port.full_ser = transfer_time(full, rate);
    port.response_ser = transfer_time(Bytes(response_), rate);
    if (l.kind == PeerKind::kRouter) {
      for (uint32_t v = 0; v < vcs_; ++v)
        credits_[vc_index(static_cast<uint32_t>(gp), v)] = vc_buffer;
    } else if (l.kind == PeerKind::kEndpoint) {
      credits_[vc_index(static_cast<uint32_t>(gp), 0)] = rx_buffer;  // a NIC has one ejection buffer
    }
  }
  upstream_.assign(ports, kNoId);
  for (size_t gp = 0; gp < ports; ++gp) {
    const Port& port = ports_[gp];
    if (port.kind == PeerKind::kRouter) upstream_[gp] = topology.port_base(port.peer) + port.peer_port;
    if (port.kind == PeerKind::kEndpoint) upstream_[gp] = kEndpointEnd | port.peer;
  }
  nics_.assign(topology.endpoints(), Nic{});
  nic_credits_.assign(size_t{topology.endpoints()} * vcs_, vc_buffer);
  deliveries_.assign(topology.endpoints(), 0);
  // Wide credit rings if some link's credit round trip holds more than four full packets.
  for (const Port& port : ports_) {
    if (port.kind != PeerKind::kUnconnected && port.latency * 2 > port.full_ser * 4) wide_rings_ = true;
  }
  if (topology.endpoint_latency() * 2 > full_packet_time_ * 4) wide_rings_ = true;
  if (wide_rings_) {
    wide_port_rings_.assign(ports, packet::WideRing{});
    wide_nic_rings_.assign(topology.endpoints(), packet::WideRing{});
  } else {
    narrow_port_rings_.assign(ports, packet::NarrowRing{});
    narrow_nic_rings_.assign(topology.endpoints(), packet::NarrowRing{});
  }
  if (stats_) nic_stats_.assign(topology.endpoints(), LinkStats{});
  if (steps_) {
    link_queues_.assign(ports, LinkQueue{});
    horizon_.assign(topology.routers(), Time::max());
    Time widest;                  // the longest horizon of any router
    Time shortest = Time::max();  // the shortest time of a full packet on any link
    for (RouterId r = 0; r < topology.routers(); ++r) {
      Time& h = horizon_[r];
      for (uint32_t port = 0; port < topology.ports(r); ++port) {
        const uint32_t gp = topology.port_base(r) + port;
        const Port& p = ports_[gp];
        if (p.kind == PeerKind::kRouter) {
          // Heads arrive a link latency and the head delay after their grant upstream; credits
          // for this output come back a link latency after the downstream grant.
          h = simcore::min(h, ports_[upstream_[gp]].latency + t_head_);
          h = simcore::min(h, ports_[topology.port_base(p.peer) + p.peer_port].latency);
        } else if (p.kind == PeerKind::kEndpoint) {
          // Injected heads. Ejection credits need no term: the router's own grant onto the
          // ejection link makes them (on_nic_arrive), so none is ever unknown to it.
          h = simcore::min(h, topology.endpoint_latency() + t_head_);
        }
        if (p.kind != PeerKind::kUnconnected) shortest = simcore::min(shortest, p.full_ser);
      }
      if (h != Time::max()) widest = simcore::max(widest, h);
    }
    // Where no horizon holds a full packet, a step would rarely run more than one entry, and
    // the agenda would cost more than the engine events it replaces: the default machine's
    // 20 ns links against 205 ns packets, for one.
    // A router whose horizon is zero (zero-latency links and no router delay) could never run
    // an entry before something else at the same picosecond might change it: no steps at all.
    const bool zero = std::any_of(horizon_.begin(), horizon_.end(), [](Time h) { return h == Time(); });
    if (widest <= shortest || zero) {
      steps_ = false;
      link_queues_ = {};
      horizon_ = {};
    } else {
      agenda_.resize(topology.routers());
      step_at_.assign(topology.routers(), Time::max());
    }
  }
}

// ---------------------------------------------------------------- credits

Time PacketNetwork::serialise(uint32_t wire, const Port& out) const {
  if (wire == payload_max_ + header_) return out.full_ser;
  if (wire == response_) return out.response_ser;
  const uint32_t gp = static_cast<uint32_t>(&out - ports_.data());
  const PortLink& l = topo_.link_at(gp);
  return transfer_time(Bytes(wire), l.kind == PeerKind::kUnconnected ? switch_bw_ : std::min(l.bandwidth, switch_bw_));
}

// ---------------------------------------------------------------- pools

uint32_t PacketNetwork::alloc_packet() {
  ++live_packets_;
  if (free_packets_ != kNoId) {
    const uint32_t pk = free_packets_;
    free_packets_ = packets_[pk].next;
    // The next one to hand out has often been free for long (out of the cache by then).
    if (free_packets_ != kNoId) __builtin_prefetch(&packets_[free_packets_], 1);
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
  now_ = e.time;
  switch (e.kind - kinds_.begin) {
    case kHeadReady:
      on_head_ready(e.target, e.port, static_cast<uint32_t>(e.data), static_cast<uint32_t>(e.data >> 32) & 0xff);
      break;
    case kRouterWake: {
      if (reference_) [[unlikely]]
        ref_woken(e);
      Port& port = ports_[topo_.port_base(e.target) + e.port];
      if (port.out_wake == e.time) port.out_wake = Time::max();
      try_output(e.target, e.port);
      break;
    }
    case kNicWake:
      if (reference_) [[unlikely]]
        ref_woken(e);
      if (nics_[e.target].wake_at == e.time) nics_[e.target].wake_at = Time::max();
      try_inject(e.target);
      break;
    case kNicArrive:
      on_nic_arrive(e.target, static_cast<uint32_t>(e.data), e.time);
      break;
    case kMsgSent: {
      const uint32_t id = static_cast<uint32_t>(e.data);
      Message& m = messages_[id];
      m.sent_done = true;  // FMA responses have no such event (send_packet)
      sink_.on_message_sent(m.cookie, e.time);
      // A message to another partition is delivered there, under its own record.
      if (m.delivered || !mine_endpoint(m.dst)) finish(id);
      break;
    }
    case kMsgDelivered: {
      const uint32_t id = static_cast<uint32_t>(e.data);
      Message& m = messages_[id];
      m.delivered = true;  // FMA responses have no such event (on_nic_arrive)
      ++totals_.messages_delivered;
      const Time latency = e.time - m.posted;
      totals_.latency_sum += latency;
      totals_.latency_max = simcore::max(totals_.latency_max, latency);
      const uint64_t cookie = m.cookie;
      if (m.sent_done) finish(id);
      sink_.on_message_delivered(cookie, e.time);
      break;
    }
    case kFmaRespond:
      inject_response(e.target, static_cast<EndpointId>(e.data));
      break;
    case kCreditArrive:
    case kNicCreditArrive:
      ref_credit_arrives(e);
      break;
    case kRouterStep:
      step(e.target, e.time);
      break;
    default:
      throw std::logic_error(fmt::format("packet network got an event of unknown kind {}", e.kind));
  }
}

void PacketNetwork::prefetch(const Event& e) const {
  switch (e.kind - kinds_.begin) {
    case kHeadReady: {
      // The input VC and port, the packet, and with lookahead routing the output it will ask for
      // (carried in the event, so that fetching it does not wait for the packet).
      const uint32_t base = topo_.port_base(e.target);
      const uint32_t gp = base + e.port;
      __builtin_prefetch(&vc_[vc_index(gp, static_cast<uint32_t>(e.data >> 32) & 0xff)]);
      __builtin_prefetch(&packets_[static_cast<uint32_t>(e.data)]);
      __builtin_prefetch(&ports_[gp]);
      if (const uint32_t ahead = static_cast<uint32_t>(e.data >> 40)) {
        const uint32_t out_gp = base + ahead - 1;
        __builtin_prefetch(&ports_[out_gp]);
        __builtin_prefetch(&credits_[vc_index(out_gp, 0)]);
        prefetch_port_ring(out_gp);
        if (stats_) __builtin_prefetch(&link_stats_[out_gp]);
      }
      // The grant returns this input's credit to the upstream router's output, or to the NIC.
      if (const uint32_t up = upstream_[gp]; up == kNoId) {
      } else if ((up & kEndpointEnd) == 0) {
        __builtin_prefetch(&ports_[up]);
        prefetch_port_ring(up);
      } else {
        const EndpointId nic = up & ~kEndpointEnd;
        __builtin_prefetch(&nics_[nic]);
        if (wide_rings_) {
          wide_nic_rings_[nic].prefetch();
        } else {
          narrow_nic_rings_[nic].prefetch();
        }
      }
      break;
    }
    case kRouterWake: {
      const uint32_t gp = topo_.port_base(e.target) + e.port;
      __builtin_prefetch(&ports_[gp]);
      __builtin_prefetch(&credits_[vc_index(gp, 0)]);
      prefetch_port_ring(gp);
      break;
    }
    case kNicWake:
      __builtin_prefetch(&nics_[e.target]);
      if (wide_rings_) {
        wide_nic_rings_[e.target].prefetch();
      } else {
        narrow_nic_rings_[e.target].prefetch();
      }
      break;
    case kNicArrive:
      __builtin_prefetch(&packets_[static_cast<uint32_t>(e.data)]);
      __builtin_prefetch(&nics_[e.target]);
      break;
    case kRouterStep:
      __builtin_prefetch(&agenda_[e.target]);
      break;
    default:
      break;
  }
}

void PacketNetwork::finish(uint32_t m) {
  if (messages_[m].keyed) [[unlikely]]
    by_key_.erase(message_key(messages_[m].src, messages_[m].seq));
  messages_[m].next = free_messages_;
  free_messages_ = m;
}

// ---------------------------------------------------------------- NIC: injection

void PacketNetwork::inject(EndpointId src, EndpointId dst, Bytes size, uint64_t cookie) {
  if (src >= topo_.endpoints() || dst >= topo_.endpoints()) {
    throw std::out_of_range(
        fmt::format("inject from endpoint {} to {}: the machine has {} endpoints", src, dst, topo_.endpoints()));
  }
  now_ = engine_.now();
  const uint32_t m = alloc_message();
  Message& msg = messages_[m];
  msg.cookie = cookie;
  msg.remaining = size.count();
  msg.posted = now_;
  msg.src = src;
  msg.dst = dst;
  msg.packets = size.count() == 0 ? 1 : static_cast<uint32_t>((size.count() + payload_max_ - 1) / payload_max_);
  msg.seq = nics_[src].messages++;
  ++totals_.messages_injected;
  totals_.payload_bytes += size.count();
  if (!mine_endpoint(dst)) [[unlikely]]
    announce(m);
  settle(src);
  enqueue(src, m);
  try_inject(src);
}

// Appends message `m` to endpoint `e`'s round-robin ring of messages with packets to send.
void PacketNetwork::enqueue(EndpointId e, uint32_t m) {
  Nic& nic = nics_[e];
  if (nic.ring_tail == kNoId) {
    nic.ring_head = m;
  } else {
    messages_[nic.ring_tail].next = m;
  }
  nic.ring_tail = m;
}

void PacketNetwork::nic_wake(EndpointId e, Time t) {
  if (reference_) [[unlikely]] {
    ref_wake(kNicWake, e, 0, t);
    return;
  }
  Nic& nic = nics_[e];
  if (nic.wake_at >= now_ && nic.wake_at <= t) return;
  nic.wake_at = t;
  engine_.schedule_canonical(t, kinds_[kNicWake], e);
}

// A message sent a packet ahead (send_packet(e, true)) rejoins the NIC's round robin at the
// time that packet was due to leave: messages posted before then queue ahead of it, as they
// would have if the packet had been sent at its time. (Messages posted at that picosecond come
// after: the network's events run before the MPI layer's, and a NIC wake-up before an FMA
// response.) Held messages rejoin in the order of their packets' times.
void PacketNetwork::settle(EndpointId e) {
  Nic& nic = nics_[e];
  while (now_ >= nic.held_at) {
    const uint32_t m = nic.held_head;
    nic.held_head = messages_[m].next;
    if (nic.held_head == kNoId) {
      nic.held_tail = kNoId;
      nic.held_at = Time::max();
    } else {
      nic.held_at = messages_[nic.held_head].held_at;
    }
    messages_[m].next = kNoId;
    enqueue(e, m);
  }
}

void PacketNetwork::try_inject(EndpointId e) {
  Nic& nic = nics_[e];
  settle(e);
  if (nic.ring_head == kNoId) {
    // A message sent a packet ahead rejoins the round robin at its time: this wake-up may be an
    // earlier one that its own wake-up was merged into (nic_wake), so ask again.
    if (nic.held_head != kNoId) nic_wake(e, nic.link_busy);
    return;
  }
  if (nic.link_busy > now_) {
    nic_wake(e, nic.link_busy);
    return;
  }
  if (!send_packet(e, false)) return;
  // Send the next packets now too, each for when the link frees, while nothing can change the
  // choice until then: every credit due by then is in the ring already (a credit still unknown
  // is due a link latency after a grant at the first router that has not happened yet), and a
  // message posted meanwhile only queues behind the messages in the ring now. So the packets
  // sent ahead are those of the ring's messages in its order, each message at most once: a
  // message that came round again would have rejoined the ring at a time still to come, ahead
  // of messages posted before then (settle puts each back at its own time).
  if (steps_) {
    const Time event = now_;
    const Time known = event + topo_.endpoint_latency();  // credits due before this are known
    for (bool more = nic.ring_head != kNoId; more && nic.link_busy < known;) {
      more = messages_[nic.ring_head].next != kNoId;  // the ring's last message ends the round
      now_ = nic.link_busy;
      if (!send_packet(e, true)) break;
    }
    now_ = event;
  }
  if (nic.ring_head != kNoId || nic.held_head != kNoId || reference_) nic_wake(e, nic.link_busy);
}

// Sends the first packet of the NIC's round robin at now_, if a VC has credit for it. `ahead`:
// sent before its time (try_inject): no credit leaves everything as it was, and the message
// waits in the NIC's held list for its turn to come back.
bool PacketNetwork::send_packet(EndpointId e, bool ahead) {
  Nic& nic = nics_[e];
  const Time now = now_;
  const uint32_t m = nic.ring_head;
  Message& msg = messages_[m];
  const uint32_t payload = msg.response ? 0 : static_cast<uint32_t>(std::min<uint64_t>(payload_max_, msg.remaining));
  const uint32_t wire = msg.response ? response_ : payload + header_;
  int32_t* credits = &nic_credits_[size_t{e} * vcs_];
  nic_ring(e, [&](auto& q) { q.absorb(credits, 1, now, overflow_); });
  int vc = -1;
  for (uint32_t v = injection_.vc_lo; v < injection_.vc_hi; ++v) {
    if (credits[v] >= static_cast<int32_t>(wire) && (vc < 0 || credits[v] > credits[vc])) vc = static_cast<int>(v);
  }
  if (vc < 0) {
    if (ahead) return false;  // the wake-up at its time finds the same
    nic.credit_blocked = true;
    const Time next = nic_ring(e, [](const auto& q) { return q.next(); });
    if (next != Time::max()) nic_wake(e, next);
    return false;  // otherwise the next credit to be returned wakes the NIC
  }
  nic.credit_blocked = false;

  // The DMA engine reads payloads in order; it may have fetched this one while the link was busy.
  // An FMA response is made by the NIC itself: no host memory is read.
  Time head = now, ready = now;
  if (!msg.response) {
    const Time dma_start = simcore::max(msg.posted, nic.dma_free);
    const Time dma_end = dma_start + dma_time(payload);
    nic.dma_free = dma_end;
    head = simcore::max(now, dma_start + dma_latency_);
    ready = dma_end + dma_latency_;
  }
  const Time link_time =
      wire == payload_max_ + header_ ? full_packet_time_ : transfer_time(Bytes(wire), topo_.endpoint_bandwidth());
  const Time tail = simcore::max(head + link_time, ready);
  nic.link_busy = tail;
  credits[vc] -= static_cast<int32_t>(wire);
  if (stats_) {
    LinkStats& ls = nic_stats_[e];
    ls.bytes += wire;
    ++ls.packets;
    ls.busy += tail - head;
  }

  const uint32_t pk = alloc_packet();
  Packet& p = packets_[pk];
  p.msg = m;
  p.dst = msg.dst;
  p.src = e;
  if (!mine_endpoint(msg.dst)) [[unlikely]] {  // delivered in another partition
    p.msg = msg.seq;
    p.msg_is_seq = true;
  }
  // A packet's hash names it in the whole run: its source, its message's number there, its own
  // number in the message.
  p.hash = mix_hash(uint64_t{mix_hash(uint64_t{e} << 32 | msg.seq)} << 32 | msg.sent);
  p.wire = wire;
  p.payload = payload;
  // Age = when the packet would have left an idle source NIC. Counting from the message post
  // (not from when credit finally let it go) is what makes oldest-first globally fair.
  p.born = msg.posted + full_packet_time_ * msg.sent;
  p.tail = tail + topo_.endpoint_latency();
  send_to_router(topo_.endpoint_router(e), topo_.endpoint_port(e), pk, static_cast<uint32_t>(vc),
                 head + topo_.endpoint_latency() + t_head_);
  ++totals_.packets;
  ++totals_.packet_hops;

  msg.remaining -= payload;
  ++msg.sent;
  nic.ring_head = msg.next;
  if (nic.ring_head == kNoId) nic.ring_tail = kNoId;
  msg.next = kNoId;
  if (msg.sent < msg.packets) {
    if (ahead) {
      msg.held_at = now;
      if (nic.held_tail == kNoId) {
        nic.held_head = m;
        nic.held_at = now;
      } else {
        messages_[nic.held_tail].next = m;
      }
      nic.held_tail = m;
    } else {
      enqueue(e, m);  // round-robin between the NIC's messages, one packet at a time
    }
  } else if (msg.response) {
    // Nothing to report: it is freed when it reaches its NIC (on_nic_arrive), or now if that
    // NIC is in another partition (which has its own record of it).
    if (!mine_endpoint(msg.dst)) [[unlikely]]
      finish(m);
  } else {
    engine_.schedule_canonical(tail, kinds_[kMsgSent], e, 0, message_data(m));
  }
  return true;
}

// ---------------------------------------------------------------- NIC: ejection

// The head of packet `pk` reaches endpoint e's NIC at `at`. Outside reference mode this runs at
// the packet's grant onto the ejection link, before `at`: what it does depends only on the
// packets that link delivered before (granted earlier, in the same order), and everything it
// causes is due after `at` (the credit, the delivery, the FMA response).
void PacketNetwork::on_nic_arrive(EndpointId e, uint32_t pk, Time at) {
  Nic& nic = nics_[e];
  Packet& p = packets_[pk];
  // Receive DMA writes the payload to memory as it streams in, but cannot finish before the
  // tail has arrived; the ejection buffer is released once the payload is in memory. An FMA
  // response only updates the NIC's completion state: no memory write.
  const bool response = messages_[p.msg].response;
  Time dma_end = p.tail;
  if (!response) {
    const Time dma_start = simcore::max(at, nic.rx_dma_free);
    dma_end = simcore::max(dma_start + dma_time(p.payload), p.tail);
    nic.rx_dma_free = dma_end;
  }
  totals_.last_arrival = simcore::max(totals_.last_arrival, dma_end);
  const RouterId r = topo_.endpoint_router(e);
  const uint32_t gp = topo_.port_base(r) + topo_.endpoint_port(e);
  const Time due = dma_end + topo_.endpoint_latency();
  if (reference_) [[unlikely]] {
    ref_return_credit(r, topo_.endpoint_port(e), due, 0, p.wire);
  } else {
    return_credit(gp, due, 0, p.wire);
    if (ports_[gp].credit_blocked) wake(r, topo_.endpoint_port(e), due);
  }
  Message& msg = messages_[p.msg];
  const EndpointId requester = msg.src;
  if (response) {
    finish(p.msg);  // an FMA response (one packet) reports nothing: its message is done
  } else if (++msg.received == msg.packets) {
    engine_.schedule_canonical(dma_end + dma_latency_, kinds_[kMsgDelivered], e, 0, delivery_data(e, p.msg));
  }
  free_packet(pk);
  // The NIC answers a put once its data is in memory.
  if (fma_ && !response) engine_.schedule_canonical(dma_end, kinds_[kFmaRespond], e, 0, requester);
}

// The destination NIC answers a put: a one-packet message back to the requester, queued with the
// NIC's own traffic.
void PacketNetwork::inject_response(EndpointId from, EndpointId to) {
  const uint32_t m = alloc_message();
  Message& msg = messages_[m];
  msg.response = true;
  msg.posted = now_;
  msg.src = from;
  msg.dst = to;
  msg.packets = 1;
  msg.seq = nics_[from].messages++;
  if (!mine_endpoint(to)) [[unlikely]]
    announce(m);
  settle(from);
  enqueue(from, m);
  try_inject(from);
}

// ---------------------------------------------------------------- routers

void PacketNetwork::on_head_ready(RouterId r, uint32_t in_port, uint32_t pk, uint32_t vc) {
  arrive(r, topo_.port_base(r) + in_port, pk, vc);
}

// A head ready for allocation at input `in_gp` (virtual channel `vc`): it queues behind the
// packets already there, or asks for its output.
void PacketNetwork::arrive(RouterId r, uint32_t in_gp, uint32_t pk, uint32_t vc) {
  PortVc& in = vc_[vc_index(in_gp, vc)];
  Packet& p = packets_[pk];
  p.vc = static_cast<uint8_t>(vc);
  p.next = kNoId;
  if (in.fifo_tail == kNoId) {
    in.fifo_head = pk;
    in.fifo_tail = pk;
    become_head(r, in_gp, vc);
  } else {
    packets_[in.fifo_tail].next = pk;
    in.fifo_tail = pk;
    if (reference_) [[unlikely]]
      try_output(r, packets_[in.fifo_head].out_port);
  }
}

void PacketNetwork::become_head(RouterId r, uint32_t in_gp, uint32_t vc) {
  const uint32_t iv = vc_index(in_gp, vc);
  Packet& p = packets_[vc_[iv].fifo_head];
  const uint32_t base = topo_.port_base(r);
  const uint32_t nports = topo_.ports(r);
  Route route;
  if (p.routed) {
    route = Route{p.out_port, p.vc_lo, p.vc_hi};
    p.routed = false;
  } else if (routing_.adaptive()) {
    // Adaptive choices read the free credit of every output of this router.
    const Time now = now_;
    std::vector<int32_t>& view = credit_view_;
    view.resize(size_t{nports} * vcs_);
    for (uint32_t port = 0; port < nports; ++port) {
      absorb_port(base + port, now);
      for (uint32_t v = 0; v < vcs_; ++v)
        view[size_t{port} * vcs_ + v] = credits_[vc_index(base + port, v)];
    }
    route = routing_.route(r, p.dst, p.hash, p.state, view.data(), p.wire);
  } else {
    route = routing_.route(r, p.dst, p.hash, p.state, nullptr, p.wire);
  }
  p.out_port = route.port;
  p.vc_lo = route.vc_lo;
  p.vc_hi = route.vc_hi;
  request(base + route.port, iv);
  try_output(r, route.port);
}

void PacketNetwork::route_ahead(RouterId r, Packet& p) const {
  // The same call with the same arguments as become_head() would make at r: the route and the
  // routing state do not depend on when it is made, only on (r, destination, hash, state).
  const Route route = routing_.route(r, p.dst, p.hash, p.state, nullptr, p.wire);
  p.out_port = route.port;
  p.vc_lo = route.vc_lo;
  p.vc_hi = route.vc_hi;
  p.routed = true;
}

void PacketNetwork::send_to_router(RouterId peer, uint32_t peer_port, uint32_t pk, uint32_t vc, Time ready) {
  if (!mine(peer)) [[unlikely]] {
    export_packet(peer, peer_port, pk, vc, ready);
    return;
  }
  Packet& p = packets_[pk];
  p.vc = static_cast<uint8_t>(vc);
  if (steps_) {
    const uint32_t in_gp = topo_.port_base(peer) + peer_port;
    LinkQueue& q = link_queues_[in_gp];
    // Behind a packet to the same destination that arrived in the same routing state, a packet
    // takes that packet's route: with routing per destination the same call of route() would
    // give the same answer.
    if (q.first != kNoId && same_route_ && q.dst == p.dst && q.in_state == p.state) {
      p.out_port = q.port;
      p.vc_lo = q.vc_lo;
      p.vc_hi = q.vc_hi;
      p.state = q.state;
      p.routed = true;
    } else {
      q.dst = p.dst;
      q.in_state = p.state;
      route_ahead(peer, p);
      q.port = p.out_port;
      q.vc_lo = p.vc_lo;
      q.vc_hi = p.vc_hi;
      q.state = p.state;
    }
    p.next = kNoId;
    if (q.first == kNoId) {
      q.first = pk;
      q.last = pk;
      plan(peer, ready, kAgendaHead << 16 | peer_port);
    } else {
      // Kept in the packet ahead, which the step reads anyway: the step plans this one's arrival
      // without loading it.
      packets_[q.last].next = pk;
      packets_[q.last].next_ready = ready;
      q.last = pk;
    }
    return;
  }
  if (lookahead_) route_ahead(peer, p);
  engine_.schedule_canonical(ready, kinds_[kHeadReady], peer, peer_port, head_ready_data(pk, vc, p));
}

// The agenda's first entry replaced by `e`, no earlier than it: one sift instead of a pop and a push.
static void replace_top(std::vector<PacketNetwork::AgendaEntry>& heap, PacketNetwork::AgendaEntry e) {
  const size_t n = heap.size();
  size_t i = 0;
  for (;;) {
    size_t child = 2 * i + 1;
    if (child >= n) break;
    if (child + 1 < n && heap[child] > heap[child + 1]) ++child;
    if (!(e > heap[child])) break;
    heap[i] = heap[child];
    i = child;
  }
  heap[i] = e;
}

// Starts loading what the agenda's next entry will touch while the current one runs: the
// packet at the head of its link and its input port, or the output it wakes.
void PacketNetwork::prefetch_entry(uint32_t base, const std::vector<AgendaEntry>& agenda) const {
  if (agenda.empty()) return;
  const uint32_t gp = base + (agenda.front().key & 0xffff);
  __builtin_prefetch(&ports_[gp]);
  if (agenda.front().key >> 16 == kAgendaWake) {
    __builtin_prefetch(&credits_[vc_index(gp, 0)]);
    prefetch_port_ring(gp);
  } else if (const uint32_t pk = link_queues_[gp].first; pk != kNoId) {
    __builtin_prefetch(&packets_[pk]);
  }
}

static void pop_top(std::vector<PacketNetwork::AgendaEntry>& heap) {
  std::pop_heap(heap.begin(), heap.end(), std::greater<>{});
  heap.pop_back();
}

void PacketNetwork::schedule_step(RouterId r, Time t) {
  step_at_[r] = t;
  engine_.schedule_canonical(t, kinds_[kRouterStep], r);
}

void PacketNetwork::plan(RouterId r, Time t, uint32_t key) {
  std::vector<AgendaEntry>& agenda = agenda_[r];
  agenda.push_back(AgendaEntry{t, key});
  std::push_heap(agenda.begin(), agenda.end(), std::greater<>{});
  if (r == stepping_) return;    // the step looks at its own agenda when it ends
  if (step_at_[r] <= t) return;  // a step comes first, and plans the next one
  schedule_step(r, t);
}

// Router steps. Everything that reaches router r before t + horizon_[r] is known at t: a packet
// still unknown is granted upstream at t or later and arrives a link latency and the head delay
// after that; a credit still unknown is due a link latency after a downstream grant at t or
// later. So the step runs r's wake-ups and arriving heads up to that time exactly as their own
// events would run (at their picosecond, wake-ups before heads, then by port), and what it sends
// on reaches other routers and NICs no sooner than their own horizons. A tie at the horizon
// waits for the next step.
void PacketNetwork::step(RouterId r, Time t) {
  if (step_at_[r] != t) return;  // an earlier step has replanned
  step_at_[r] = Time::max();
  stepping_ = r;
  // A partitioned run's step also ends with the window: a packet or credit from another
  // partition reaches r no sooner than the window's end, but only then is it known.
  const Time end = simcore::min(horizon_[r] == Time::max() ? Time::max() : t + horizon_[r], window_end_);
  const uint32_t base = topo_.port_base(r);
  std::vector<AgendaEntry>& agenda = agenda_[r];
  while (!agenda.empty() && agenda.front().at < end) {
    const AgendaEntry entry = agenda.front();
    now_ = entry.at;
    const uint32_t port = entry.key & 0xffff;
    if (entry.key >> 16 == kAgendaWake) {
      Port& out = ports_[base + port];
      if (out.out_wake == entry.at) out.out_wake = Time::max();
      pop_top(agenda);
      prefetch_entry(base, agenda);
      try_output(r, port);
      continue;
    }
    const uint32_t in_gp = base + port;
    LinkQueue& q = link_queues_[in_gp];
    const uint32_t pk = q.first;
    Packet& p = packets_[pk];
    q.first = p.next;
    if (q.first == kNoId) {
      q.last = kNoId;
      pop_top(agenda);
    } else {
      replace_top(agenda, AgendaEntry{p.next_ready, entry.key});  // the link's next head
    }
    prefetch_entry(base, agenda);
    arrive(r, in_gp, pk, p.vc);
  }
  stepping_ = kNoId;
  now_ = t;
  if (!agenda.empty()) schedule_step(r, agenda.front().at);
}

// An output's requesters are a singly linked list, newest first: asking writes only the
// requester's own entry and the output's head. Withdrawing walks the list from the head; it
// happens only in try_output, right after the same walk, so the entries are in cache.
void PacketNetwork::request(uint32_t out_gp, uint32_t iv) {
  Port& out = ports_[out_gp];
  vc_[iv].req_next = out.req_head;
  out.req_head = iv;
}

void PacketNetwork::unrequest(uint32_t out_gp, uint32_t iv) {
  uint32_t* link = &ports_[out_gp].req_head;
  while (*link != iv)
    link = &vc_[*link].req_next;
  *link = vc_[iv].req_next;
  vc_[iv].req_next = kNoId;
}

int PacketNetwork::pick_vc(const int32_t* out_credits, const Packet& p) const {
  // VC allocation: the allowed downstream VC with the most free space that holds the whole packet.
  int vc = -1;
  for (uint32_t v = p.vc_lo; v < p.vc_hi; ++v) {
    const int32_t c = out_credits[v];
    if (c >= static_cast<int32_t>(p.wire) && (vc < 0 || c > out_credits[vc])) vc = static_cast<int>(v);
  }
  return vc;
}

void PacketNetwork::wake(RouterId r, uint32_t out_port, Time t) {
  if (reference_) [[unlikely]] {
    ref_wake(kRouterWake, r, out_port, t);
    return;
  }
  Port& port = ports_[topo_.port_base(r) + out_port];
  if (port.out_wake >= now_ && port.out_wake <= t) return;
  port.out_wake = t;
  if (steps_) {
    plan(r, t, kAgendaWake << 16 | out_port);
    return;
  }
  engine_.schedule_canonical(t, kinds_[kRouterWake], r, static_cast<uint16_t>(out_port));
}

void PacketNetwork::try_output(RouterId r, uint32_t out_port) {
  const uint32_t base = topo_.port_base(r);
  const uint32_t gp = base + out_port;
  Port& out = ports_[gp];
  const Time now = now_;
  if (out.out_busy > now) {
    if (out.req_head != kNoId) wake(r, out_port, out.out_busy);
    return;
  }
  absorb_port(gp, now);
  const int32_t* out_credits = &credits_[vc_index(gp, 0)];
  const uint32_t slots = topo_.ports(r) << vc_shift_;
  const uint32_t first_iv = vc_index(base, 0);
  bool credit_blocked = false;
  Time retry = Time::max();
  uint32_t best = kNoId;
  int best_vc = -1;
  uint32_t best_rank = 0;
  scratch_.clear();
  for (uint32_t iv = out.req_head; iv != kNoId; iv = vc_[iv].req_next) {
    const Port& in = ports_[iv >> vc_shift_];
    if (in.in_busy > now) {
      retry = simcore::min(retry, in.in_busy);
      continue;
    }
    const Packet& p = packets_[vc_[iv].fifo_head];
    const int vc = pick_vc(out_credits, p);
    if (vc < 0) {
      credit_blocked = true;
      // Duato: an adaptive packet never waits on adaptive VCs; it takes the escape network.
      if (routing_.algo() == RoutingAlgo::kAdaptive && !p.state.escape) scratch_.push_back(iv);
      continue;
    }
    bool better;
    if (age_arbitration_) {
      const Packet& b = best == kNoId ? p : packets_[vc_[best].fifo_head];
      better = best == kNoId || p.born < b.born || (p.born == b.born && iv < best);
    } else {
      // Round-robin: distance from the slot after the last one granted.
      const uint32_t slot = iv - first_iv;
      const uint32_t rank = slot > out.rr ? slot - out.rr - 1 : slot + slots - out.rr - 1;
      better = best == kNoId || rank < best_rank;
      if (better) best_rank = rank;
    }
    if (better) {
      best = iv;
      best_vc = vc;
    }
  }
  out.credit_blocked = credit_blocked;
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
    if (vc_[iv].fifo_head == kNoId) continue;
    Packet& p = packets_[vc_[iv].fifo_head];
    if (p.state.escape || base + p.out_port != gp) continue;
    unrequest(gp, iv);
    p.state.escape = 1;
    become_head(r, iv >> vc_shift_, iv & ((1u << vc_shift_) - 1));
  }
}

void PacketNetwork::grant(RouterId r, uint32_t out_gp, uint32_t iv, uint32_t vc) {
  const uint32_t in_gp = iv >> vc_shift_;
  const uint32_t in_vc = iv & ((1u << vc_shift_) - 1);
  unrequest(out_gp, iv);
  PortVc& in_vcs = vc_[iv];
  const uint32_t pk = in_vcs.fifo_head;
  Packet& p = packets_[pk];
  in_vcs.fifo_head = p.next;
  if (in_vcs.fifo_head == kNoId) in_vcs.fifo_tail = kNoId;

  Port& out = ports_[out_gp];
  Port& in = ports_[in_gp];
  const Time head = now_;
  const Time tail = simcore::max(head + serialise(p.wire, out), p.tail + t_tail_);
  out.out_busy = tail;
  in.in_busy = tail;
  credits_[vc_index(out_gp, vc)] -= static_cast<int32_t>(p.wire);
  const uint32_t base = topo_.port_base(r);
  out.rr = iv - vc_index(base, 0);
  if (stats_) {
    LinkStats& ls = link_stats_[out_gp];
    ls.bytes += p.wire;
    ++ls.packets;
    ls.busy += tail - head;
  }
  ++totals_.packet_hops;

  // The input buffer this packet leaves is free once its tail has gone: credit flows back.
  const Time due = tail + in.latency;
  if (reference_) [[unlikely]] {
    ref_granted(r, in, in_vc, p.wire, due, tail);
  } else {
    if (in.kind == PeerKind::kRouter) {
      const uint32_t up_gp = topo_.port_base(in.peer) + in.peer_port;
      if (!mine(in.peer)) [[unlikely]] {
        out_[plan_->router_part[in.peer]].credits.push_back(
            CreditNote{due, up_gp, in.peer, in.peer_port, in_vc, p.wire});
      } else {
        return_credit(up_gp, due, in_vc, p.wire);
        if (ports_[up_gp].credit_blocked) wake(in.peer, in.peer_port, due);
      }
    } else {
      nic_ring(in.peer, [&](auto& q) { q.push(due, in_vc, p.wire, overflow_); });
      if (nics_[in.peer].credit_blocked) nic_wake(in.peer, due);
    }
    if (out.req_head != kNoId) wake(r, out_gp - base, tail);
  }
  p.tail = tail + out.latency;
  if (out.kind == PeerKind::kRouter) {
    send_to_router(out.peer, out.peer_port, pk, vc, head + out.latency + t_head_);
  } else {
    if (reference_) [[unlikely]] {
      engine_.schedule_canonical(head + out.latency, kinds_[kNicArrive], out.peer, 0, pk);
    } else {
      on_nic_arrive(out.peer, pk, head + out.latency);
    }
  }
  if (in_vcs.fifo_head != kNoId) become_head(r, in_gp, in_vc);
}

// ---------------------------------------------------------------- partitioned runs

void PacketNetwork::join_partition(const PartitionPlan& plan, uint32_t part) {
  if (reference_) throw std::logic_error("router.reference mode cannot be partitioned");
  plan_ = &plan;
  part_ = part;
  out_.assign(plan.parts, Outbox{});
}

void PacketNetwork::announce(uint32_t m) {
  const Message& msg = messages_[m];
  Outbox& box = out_[plan_->router_part[topo_.endpoint_router(msg.dst)]];
  box.messages.push_back(MessageNote{msg.cookie, msg.posted, msg.src, msg.dst, msg.packets, msg.seq, msg.response});
  // The sink's description of the message, behind its length (nothing for an FMA response).
  const size_t at = box.notes.size();
  box.notes.append(sizeof(uint64_t), '\0');
  if (!msg.response) sink_.pack_message(msg.cookie, box.notes);
  const uint64_t n = box.notes.size() - at - sizeof(uint64_t);
  std::memcpy(box.notes.data() + at, &n, sizeof n);
}

void PacketNetwork::export_packet(RouterId peer, uint32_t peer_port, uint32_t pk, uint32_t vc, Time ready) {
  Packet& p = packets_[pk];
  if (!p.msg_is_seq) {
    // A message this partition sent and delivers, or delivers for another: the packet may come
    // back, and then finds its record by (source, number).
    Message& msg = messages_[p.msg];
    if (!msg.keyed) {
      by_key_.emplace(message_key(msg.src, msg.seq), p.msg);
      msg.keyed = true;
    }
    p.msg = msg.seq;
    p.msg_is_seq = true;
  }
  out_[plan_->router_part[peer]].packets.push_back(PacketNote{p, ready, peer, peer_port, vc});
  free_packet(pk);
}

namespace {

// Crossings travel as a count and the records' bytes, per kind: plain values of one build.
template <class T>
void pack_records(std::vector<T>& records, std::string& out) {
  static_assert(std::is_trivially_copyable_v<T>);
  const uint64_t n = records.size();
  out.append(reinterpret_cast<const char*>(&n), sizeof n);
  out.append(reinterpret_cast<const char*>(records.data()), n * sizeof(T));
  records.clear();
}

template <class T, class F>
void take_records(std::string_view& in, F&& apply) {
  uint64_t n = 0;
  if (in.size() < sizeof n) throw std::logic_error("partition crossings: truncated record count");
  std::memcpy(&n, in.data(), sizeof n);
  in.remove_prefix(sizeof n);
  if (in.size() / sizeof(T) < n) throw std::logic_error("partition crossings: truncated records");
  for (uint64_t i = 0; i < n; ++i) {
    T record;
    std::memcpy(static_cast<void*>(&record), in.data() + i * sizeof(T), sizeof(T));
    apply(record);
  }
  in.remove_prefix(n * sizeof(T));
}

}  // namespace

Time PacketNetwork::pack_crossings(uint32_t to, std::string& out) {
  Outbox& box = out_[to];
  // A credit may wake its output when due, a packet's head is ready at its time; a message's
  // news makes nothing happen by itself.
  Time earliest = Time::max();
  for (const CreditNote& n : box.credits)
    earliest = simcore::min(earliest, n.due);
  for (const PacketNote& n : box.packets)
    earliest = simcore::min(earliest, n.ready);
  pack_records(box.messages, out);
  const uint64_t notes = box.notes.size();
  out.append(reinterpret_cast<const char*>(&notes), sizeof notes);
  out.append(box.notes);
  box.notes.clear();
  pack_records(box.credits, out);
  pack_records(box.packets, out);
  return earliest;
}

void PacketNetwork::take_crossings(std::string_view in, Time window_end) {
  now_ = window_end;
  take_records<MessageNote>(in, [&](const MessageNote& n) {
    const uint32_t m = alloc_message();
    Message& msg = messages_[m];
    msg.cookie = n.cookie;
    msg.posted = n.posted;
    msg.src = n.src;
    msg.dst = n.dst;
    msg.packets = n.packets;
    msg.seq = n.seq;
    msg.response = n.response;
    msg.sent_done = true;  // the source reports it sent
    msg.keyed = true;
    by_key_.emplace(message_key(n.src, n.seq), m);
    taken_.push_back(m);
  });
  // What the source's sink said of each message, in the same order: this sink's cookie for it.
  uint64_t notes = 0;
  if (in.size() < sizeof notes) throw std::logic_error("partition crossings: truncated message notes");
  std::memcpy(&notes, in.data(), sizeof notes);
  in.remove_prefix(sizeof notes);
  if (in.size() < notes) throw std::logic_error("partition crossings: truncated message notes");
  std::string_view said = in.substr(0, notes);
  in.remove_prefix(notes);
  for (uint32_t m : taken_) {
    uint64_t n = 0;
    if (said.size() < sizeof n) throw std::logic_error("partition crossings: a message without its note");
    std::memcpy(&n, said.data(), sizeof n);
    said.remove_prefix(sizeof n);
    if (said.size() < n) throw std::logic_error("partition crossings: a truncated message note");
    if (!messages_[m].response) messages_[m].cookie = sink_.take_message(messages_[m].cookie, said.substr(0, n));
    said.remove_prefix(n);
  }
  taken_.clear();
  take_records<CreditNote>(in, [&](const CreditNote& n) {
    return_credit(n.up_gp, n.due, n.vc, n.bytes);
    if (ports_[n.up_gp].credit_blocked) wake(n.router, n.port, n.due);
  });
  take_records<PacketNote>(in, [&](const PacketNote& n) {
    const uint32_t pk = alloc_packet();
    Packet& p = packets_[pk];
    p = n.packet;
    if (mine_endpoint(p.dst)) {
      const auto it = by_key_.find(message_key(p.src, p.msg));
      if (it == by_key_.end()) {
        throw std::logic_error(fmt::format("partition {}: a packet from endpoint {} (message {}) arrived unannounced",
                                           part_, p.src, p.msg));
      }
      p.msg = it->second;
      p.msg_is_seq = false;
    }
    send_to_router(n.peer, n.peer_port, pk, n.vc, n.ready);
  });
  if (!in.empty()) throw std::logic_error("partition crossings: bytes left over");
}

uint32_t PacketNetwork::event_router(const Event& e) const {
  switch (e.kind - kinds_.begin) {
    case kCreditArrive:
    case kRouterWake:
    case kHeadReady:
    case kRouterStep:
      return e.target;
    default:  // the NIC's events: its endpoint's router
      return e.target < topo_.endpoints() ? topo_.endpoint_router(e.target) : kNoId;
  }
}

std::string PacketNetwork::describe_stuck(size_t limit) const {
  std::string out;
  size_t lines = 0;
  for (RouterId r = 0; r < topo_.routers() && lines < limit; ++r) {
    for (uint32_t port = 0; port < topo_.ports(r) && lines < limit; ++port) {
      const uint32_t gp = topo_.port_base(r) + port;
      for (uint32_t v = 0; v < vcs_ && lines < limit; ++v) {
        uint32_t count = 0;
        for (uint32_t pk = vc_[vc_index(gp, v)].fifo_head; pk != kNoId; pk = packets_[pk].next)
          ++count;
        if (count == 0) continue;
        const Packet& h = packets_[vc_[vc_index(gp, v)].fifo_head];
        const uint32_t out_gp = topo_.port_base(r) + h.out_port;
        std::string credit;
        for (uint32_t dv = h.vc_lo; dv < h.vc_hi; ++dv) {
          credit += fmt::format("{}{}", credit.empty() ? "" : "/", credits_[vc_index(out_gp, dv)]);
        }
        out += fmt::format(
            "  router {} in-port {} vc {}: {} packet(s); head to endpoint {} waits for out-port {} "
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
