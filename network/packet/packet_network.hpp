// Packet-level model: input-queued virtual-cut-through routers with credit flow control.
//
// Timing (docs/network-model.md has the derivation). For a packet of `w` wire bytes granted an
// output at time h (its head departs), with output link bandwidth B, crossbar bandwidth B_sw,
// and its tail due in the input buffer at time T_in:
//     tail departure   E = max(h + w/B, h + w/B_sw, T_in + t_st)
//     downstream head  ready for allocation at h + L + t_rc + t_va + t_sa + t_st
//     downstream tail  T_in' = E + L
// Header and tail times are exact for a cut-through pipeline without simulating flits: the tail
// can leave no earlier than it arrived plus the switch traversal, and no earlier than the link
// (or crossbar) can serialise the packet behind its head.
//
// Flow control: an output may send to a downstream VC only if that VC has credit for the whole
// packet (virtual cut-through); the credit comes back over the link when the packet's tail has
// left the downstream buffer. A returning credit is a timestamped entry on the link, not an
// event: the upstream absorbs every credit due by the time it arbitrates, and only an output
// that is actually waiting for credit is woken when one arrives. Fairness: round-robin over
// input VCs, or oldest packet first.
// Idle routers schedule nothing: an output is re-examined only when a packet asks for it, a
// credit returns, or a wake-up was set for the moment its link or a requesting input frees.
// router.reference turns these shortcuts off (packet_reference.cpp); a test checks that the
// predictions are the same to the picosecond.
//
// Router steps (router.trains, where a router's horizon holds a full packet): a router's own
// events - heads ready at its inputs, wake-ups of its outputs - are not engine events but
// entries of the router's agenda, and one engine event (kRouterStep) runs all of them that fall
// before the router's horizon, in the order the engine would have run them. Nothing yet unknown
// can reach a router sooner than its horizon (docs/network-model.md, "Router steps").
#pragma once

#include <cstddef>
#include <cstdint>
#include <new>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "mgen/net/backend.hpp"
#include "mgen/net/partition.hpp"
#include "packet/credit_ring.hpp"

namespace mgen::net {

// The backend's own event kinds, counted from the first of the block the engine reserved for
// it. Same-time events run in the order of their kind (then target, port, data), never in the
// order they happened to be scheduled in (Engine::schedule_canonical): so the answer does not
// depend on the fast path's bookkeeping, and the reference mode, which schedules many more
// events, gives the same one. Credits that are back count at that picosecond; an output
// whose link, input or credit frees serves the packets already waiting before those whose
// heads arrive then; a NIC sends before a response posted at that picosecond joins its queue.
// Routers and NICs only affect each other through events a link latency ahead, so the order
// between different routers and NICs does not matter.
enum PacketEventKind : uint16_t {
  kCreditArrive,     // reference mode: target router, port = output, data = VC slot | bytes << 32
  kNicCreditArrive,  // reference mode: target endpoint, data = VC | bytes << 32
  kRouterWake,       // target router, port = output port
  kHeadReady,        // target router, port = input port, data = packet | vc << 32 | (lookahead out port + 1) << 40
  kNicWake,          // target endpoint
  kNicArrive,        // reference mode: target endpoint, data = packet (its head reaches the NIC)
  kFmaRespond,       // target destination endpoint, data = the requester endpoint
  kMsgSent,          // target source endpoint, data = message | its sequence number << 32
  kMsgDelivered,     // target destination endpoint, data = message | its sequence number << 32
  kRouterStep,       // router steps: target router; runs its agenda up to its horizon
  kPacketKindEnd,
};

class PacketNetwork final : public Backend {
 public:
  explicit PacketNetwork(const BackendContext& context);

  // An entry of a router's agenda (router steps): a wake-up of an output or the next head on an
  // input link, due at `at`; ordered by time, then wake-ups before heads, then port.
  struct AgendaEntry {
    Time at;
    uint32_t key;
    bool operator>(const AgendaEntry& o) const { return at != o.at ? at > o.at : key > o.key; }
  };

  void inject(EndpointId src, EndpointId dst, Bytes size, uint64_t cookie) override;
  void dispatch(const simcore::Event& e) override;
  void prefetch(const simcore::Event& e) const override;

  NetworkTotals totals() const override { return totals_; }
  const std::vector<LinkStats>* router_link_stats() const override { return stats_ ? &link_stats_ : nullptr; }
  const std::vector<LinkStats>* nic_link_stats() const override { return stats_ ? &nic_stats_ : nullptr; }
  uint64_t in_flight() const override { return live_packets_; }
  std::string describe_stuck(size_t limit) const override;
  uint32_t event_router(const simcore::Event& e) const override;

  // Partitioned runs (mgen/net/partition.hpp). Three things cross a cut, each at least the
  // lookahead ahead: a packet granted onto a link into another partition (it reaches that
  // partition's router a link latency and the head delay later), a credit returned to an
  // upstream router there (due a link latency after the grant), and the news of a message to
  // an endpoint there (injected now; its first packet crosses a cut later still). They wait in
  // an outbox per partition and are applied at the window's end exactly as the serial run
  // applies them at once; the receiving partition numbers the messages it delivers after their
  // source's (source, number). Router steps end at the window's end.
  bool partitionable() const override { return !reference_; }
  bool canonical() const override { return true; }
  void join_partition(const PartitionPlan& plan, uint32_t part) override;
  void set_window_end(Time end) override { window_end_ = end; }
  Time pack_crossings(uint32_t to, std::string& out) override;
  void take_crossings(std::string_view bytes, Time window_end) override;

 private:
  // The body of the constructor reads the machine through these names.
  PacketNetwork(const BackendContext& c, const NetworkConfig& config, const Topology& topology, const Routing& routing);

  // Packets, messages and NICs are one cache line each, aligned to it: a vector of 64-byte
  // structs from malloc starts 16 bytes into a line, and every element then spans two.
  struct alignas(64) Packet {
    Time tail;        // when the tail is (or will be) in the buffer the packet occupies
    Time born;        // age arbitration: when it would have left an idle source NIC
    Time next_ready;  // router steps, on a link: when the head of the packet behind it is ready at the next router
    uint32_t msg = 0;
    uint32_t next = kNoId;  // FIFO link within an input VC or on a link (router steps), or free-list link
    EndpointId dst = 0;
    uint32_t hash = 0;
    uint32_t wire = 0;
    uint32_t payload = 0;
    uint16_t out_port = 0;  // route chosen when the packet became head of its VC
    uint8_t vc_lo = 0, vc_hi = 1;
    uint8_t vc = 0;
    bool routed = false;  // lookahead: out_port and the VC range are already those of the next router
    RouteState state;
    // Partitioned runs: `msg` is the message's number at its source (not a slot of this
    // partition) while the packet is in a partition that neither sent nor delivers it.
    bool msg_is_seq = false;
    EndpointId src = 0;
  };
  struct alignas(64) Message {
    uint64_t cookie = 0;
    uint64_t remaining = 0;  // bytes not yet packetised
    Time posted;
    Time held_at;  // sent a packet ahead: when it rejoins the round robin
    EndpointId src = 0, dst = 0;
    uint32_t packets = 0, sent = 0, received = 0;
    uint32_t seq = 0;
    uint32_t next = kNoId;  // NIC round-robin ring, held list, or free-list link
    bool sent_done = false, delivered = false;
    bool response = false;  // an FMA response: one packet of response_ bytes, nothing to report
    bool keyed = false;     // partitioned runs: found by (source, number) in by_key_
  };
  struct alignas(64) Nic {
    Time link_busy, dma_free, rx_dma_free;
    Time wake_at = Time::max();
    uint32_t ring_head = kNoId, ring_tail = kNoId;
    // Messages sent a packet ahead (try_inject), in the order of those packets' times, linked
    // by Message::next: each rejoins the round robin at its packet's time (settle).
    uint32_t held_head = kNoId, held_tail = kNoId;
    Time held_at = Time::max();  // the first held message's time (read without loading it)
    bool credit_blocked = false;
    // Messages this NIC has injected (FMA responses too): a message's sequence number. Counted
    // per NIC, not for the whole network, so that a network cut into partitions numbers every
    // message as a serial run does.
    uint32_t messages = 0;
  };
  // Hot state of one router port, both directions, in one cache line: a hop reads the input
  // side of the port it arrived on and the output side of the port it leaves by.
  struct alignas(64) Port {
    Time out_busy;                // output link free at
    Time out_wake = Time::max();  // pending wake-up of this output
    Time in_busy;                 // input's crossbar connection free at
    Time latency;                 // of the link behind the port (copied from the topology)
    Time full_ser;                // a full packet on min(link, crossbar)
    Time response_ser;            // an FMA response on min(link, crossbar)
    uint32_t peer = kNoId;        // router or endpoint at the other end
    uint16_t peer_port = 0;
    PeerKind kind = PeerKind::kUnconnected;
    uint8_t credit_blocked = 0;  // a requester waits for credit on this output
    uint32_t req_head = kNoId;   // first input VC requesting this output
    uint32_t rr = 0;             // last input VC slot granted (router-local)
  };
  static_assert(sizeof(Port) <= 64, "one cache line per port");
  static_assert(sizeof(Packet) == 64 && sizeof(Message) == 64 && sizeof(Nic) == 64, "one cache line each");
  // Per (port, VC), the input side: the FIFO and the links of the output's request list. The
  // output side's credit (free bytes in the downstream VC) is in credits_, at the same index:
  // an output's VCs' credits share a line, and a port's input VCs fill a power-of-two block of
  // 16-byte entries in a line-aligned array, so that neither spans two lines.
  struct alignas(16) PortVc {
    uint32_t fifo_head = kNoId, fifo_tail = kNoId;
    uint32_t req_next = kNoId;  // the next (older) requester of the same output
  };
  static_assert(sizeof(PortVc) == 16, "four input VCs per cache line");
  // A std::vector allocator that starts the array on a cache line (malloc's blocks start 16
  // bytes into one).
  template <class T>
  struct LineAllocator {
    using value_type = T;
    LineAllocator() = default;
    template <class U>
    explicit LineAllocator(const LineAllocator<U>&) {}
    T* allocate(size_t n) { return static_cast<T*>(::operator new (n * sizeof(T), std::align_val_t{64})); }
    void deallocate(T* p, size_t n) { ::operator delete (p, n * sizeof(T), std::align_val_t{64}); }
    bool operator==(const LineAllocator&) const { return true; }
  };

  // routers
  void on_head_ready(RouterId r, uint32_t in_port, uint32_t pk, uint32_t vc);
  void arrive(RouterId r, uint32_t in_gp, uint32_t pk, uint32_t vc);
  // Puts packet `pk`, granted downstream VC `vc`, on the link to router `peer`'s input port
  // `peer_port`, where its head is ready at `ready`: one kHeadReady event, or with router steps
  // the tail of that link's queue (an agenda entry when it is the queue's first packet).
  void send_to_router(RouterId peer, uint32_t peer_port, uint32_t pk, uint32_t vc, Time ready);
  // Router steps: router r's agenda entry `key` (kAgendaWake or kAgendaHead << 16 | port) is due
  // at t; a step is scheduled unless r is the router stepping now (it looks at its own agenda).
  void plan(RouterId r, Time t, uint32_t key);
  void schedule_step(RouterId r, Time t);  // the router's next step, at t (step_at_)
  // Runs router r's agenda from t up to (not including) t + its horizon.
  void step(RouterId r, Time t);
  void prefetch_entry(uint32_t base, const std::vector<AgendaEntry>& agenda) const;
  void become_head(RouterId r, uint32_t in_gp, uint32_t vc);
  // Lookahead routing (deterministic routings): the route at router `r`, computed one hop early.
  void route_ahead(RouterId r, Packet& p) const;
  // A kHeadReady event's data. The output port in the top bits only serves prefetching; it never
  // decides an order: two heads cannot reach one input port at the same picosecond.
  static uint64_t head_ready_data(uint32_t pk, uint32_t vc, const Packet& p) {
    return pk | uint64_t{vc} << 32 | (p.routed ? uint64_t{p.out_port} + 1 : 0) << 40;
  }
  void try_output(RouterId r, uint32_t out_port);
  void grant(RouterId r, uint32_t out_gp, uint32_t iv, uint32_t vc);
  Time serialise(uint32_t wire, const Port& out) const;
  void wake(RouterId r, uint32_t out_port, Time t);
  void request(uint32_t out_gp, uint32_t iv);
  void unrequest(uint32_t out_gp, uint32_t iv);
  int pick_vc(const int32_t* out_credits, const Packet& p) const;
  // Credits on their way back: one ring per router output port and per NIC injection link,
  // narrow or wide for the whole network (wide_rings_); `f` gets the ring.
  template <class F>
  decltype(auto) port_ring(uint32_t gp, F&& f) {
    return wide_rings_ ? f(wide_port_rings_[gp]) : f(narrow_port_rings_[gp]);
  }
  template <class F>
  decltype(auto) nic_ring(EndpointId e, F&& f) {
    return wide_rings_ ? f(wide_nic_rings_[e]) : f(narrow_nic_rings_[e]);
  }
  void prefetch_port_ring(uint32_t gp) const {
    if (wide_rings_) {
      wide_port_rings_[gp].prefetch();
    } else {
      narrow_port_rings_[gp].prefetch();
    }
  }
  void return_credit(uint32_t gp, Time due, uint32_t vc, uint32_t bytes) {
    port_ring(gp, [&](auto& q) { q.push(due, vc, bytes, overflow_); });
  }
  // Adds every credit due by `now` to the counters of output port `gp`.
  void absorb_port(uint32_t gp, Time now) {
    port_ring(gp, [&](auto& q) {
      if (q.count) q.absorb(&credits_[size_t{gp} << vc_shift_], 1, now, overflow_);
    });
  }
  Time next_credit(uint32_t gp) {
    return port_ring(gp, [](const auto& q) { return q.next(); });
  }
  uint32_t vc_index(uint32_t gp, uint32_t vc) const { return (gp << vc_shift_) | vc; }
  // Reference mode (packet_reference.cpp): credits as events, every wake-up scheduled.
  void ref_return_credit(RouterId r, uint32_t out_port, Time due, uint32_t vc, uint32_t bytes);
  void ref_return_nic_credit(EndpointId e, Time due, uint32_t vc, uint32_t bytes);
  void ref_credit_arrives(const simcore::Event& e);
  void ref_granted(RouterId r, const Port& in, uint32_t in_vc, uint32_t wire, Time due, Time tail);
  void ref_wake(PacketEventKind kind, uint32_t target, uint32_t port, Time t);
  void ref_woken(const simcore::Event& e);
  // nics
  void try_inject(EndpointId e);
  bool send_packet(EndpointId e, bool ahead);
  void settle(EndpointId e);
  void nic_wake(EndpointId e, Time t);
  void inject_response(EndpointId from, EndpointId to);
  void enqueue(EndpointId e, uint32_t m);
  void on_nic_arrive(EndpointId e, uint32_t pk, Time at);
  void finish(uint32_t m);
  // A kMsgSent event's data: same-time events at one endpoint run in the order the messages were
  // injected there, not in the order of their (recycled) slots, which depends on when FMA
  // responses are freed and so on the mode (reference, per packet, steps) and the partitioning.
  uint64_t message_data(uint32_t m) const { return uint64_t{messages_[m].seq} << 32 | m; }
  // A kMsgDelivered event's data: same-time deliveries at one endpoint run in the order their
  // last packets reached its NIC (deliveries_ counts them per endpoint).
  uint64_t delivery_data(EndpointId e, uint32_t m) { return uint64_t{deliveries_[e]++} << 32 | m; }

  // Partitioned runs.
  struct MessageNote {  // a message to an endpoint of another partition
    uint64_t cookie;
    Time posted;
    EndpointId src, dst;
    uint32_t packets, seq;
    bool response;
  };
  struct CreditNote {  // a credit returned to a router output of another partition
    Time due;
    uint32_t up_gp;
    RouterId router;
    uint32_t port, vc, bytes;
  };
  struct PacketNote {  // a packet granted onto a link into another partition
    Packet packet;
    Time ready;
    RouterId peer;
    uint32_t peer_port, vc;
  };
  struct Outbox {
    std::vector<MessageNote> messages;
    std::string notes;  // per message, what the sink says of it (MessageSink::pack_message): length, bytes
    std::vector<CreditNote> credits;
    std::vector<PacketNote> packets;
  };
  // Whether this partition drives router r (endpoint e's NIC): always, in a serial run.
  bool mine(RouterId r) const { return plan_ == nullptr || plan_->router_part[r] == part_; }
  bool mine_endpoint(EndpointId e) const { return plan_ == nullptr || mine(topo_.endpoint_router(e)); }
  static uint64_t message_key(EndpointId src, uint32_t seq) { return uint64_t{src} << 32 | seq; }
  void export_packet(RouterId peer, uint32_t peer_port, uint32_t pk, uint32_t vc, Time ready);
  void announce(uint32_t m);

  uint32_t alloc_packet();
  void free_packet(uint32_t pk);
  uint32_t alloc_message();

  simcore::Engine& engine_;
  const Topology& topo_;
  const Routing& routing_;
  MessageSink& sink_;
  simcore::KindRange kinds_;
  uint32_t vcs_;
  Time t_head_;  // routing + VC allocation + switch allocation + switch traversal
  Time t_tail_;  // switch traversal: what the tail pays after it arrives
  Bandwidth switch_bw_;
  Bandwidth dma_bw_;
  Time dma_latency_;
  uint64_t payload_max_;
  uint32_t header_;
  bool fma_;           // FMA transport: every arriving put is answered
  uint32_t response_;  // bytes of an FMA response
  bool age_arbitration_;
  Route injection_;
  Time full_packet_time_;  // a full packet on the NIC link
  Time full_dma_time_;     // a full payload through the DMA engine
  // DMA time of a payload, without a division for full ones.
  Time dma_time(uint32_t payload) const {
    return payload == payload_max_ ? full_dma_time_ : simcore::transfer_time(Bytes(payload), dma_bw_);
  }
  bool stats_;       // per-link statistics kept (BackendContext::link_stats)
  bool reference_;   // router.reference: the slow mode the fast paths are tested against
  bool lookahead_;   // routing does not read credits: route one hop ahead (not in reference mode)
  bool steps_;       // router.trains: router steps, with lookahead routing
  bool same_route_;  // routing per destination: a car behind one of its own message copies its route
  // The time the network's decisions are taken at: the event's, or during a train the time a
  // car is granted (later than the event, and earlier than anything that could interfere).
  Time now_;

  // Per global port (router port_base + port), and per (global port, VC).
  std::vector<Port> ports_;
  // Credit rings per output port and per NIC, of one width for the whole network: wide if some
  // link's credit round trip (twice its latency) lasts more than four full packets.
  bool wide_rings_ = false;
  std::vector<packet::NarrowRing> narrow_port_rings_;
  std::vector<packet::WideRing> wide_port_rings_;
  std::vector<packet::NarrowRing> narrow_nic_rings_;
  std::vector<packet::WideRing> wide_nic_rings_;
  // Per port, VCs at a power-of-two stride (1 << vc_shift_): input side, output credits.
  std::vector<PortVc, LineAllocator<PortVc>> vc_;
  std::vector<int32_t, LineAllocator<int32_t>> credits_;
  uint32_t vc_shift_ = 0;
  std::vector<LinkStats> link_stats_;  // per output port
  // Per port, the other end of its link: a router's global port (for an input, the upstream
  // output its credits go back to; for an output, the downstream input), an endpoint marked
  // with kEndpointEnd, or kNoId. Compact, so the prefetch can read it without waiting.
  static constexpr uint32_t kEndpointEnd = 0x80000000u;
  std::vector<uint32_t> upstream_;
  std::vector<packet::CreditOverflow> overflow_;
  // Router steps. Per router input port, the packets on the link that feeds it, in the order
  // their heads arrive (linked by Packet::next); the last one's message and route at the next
  // router, which a packet of the same message behind it copies (same_route_). Per router, how
  // far ahead of the present it is certain that no packet yet unknown can arrive and no credit
  // yet unknown can be due (the least link latency into it plus the head delay, and the least
  // credit return latency of its outputs); its agenda (a binary heap of (time, key): wake-ups
  // before heads at one picosecond, then by port, as the engine orders kRouterWake and
  // kHeadReady), and the time of its next step (Time::max() if none is scheduled).
  struct alignas(32) LinkQueue {
    uint32_t first = kNoId, last = kNoId;
    EndpointId dst = 0;   // the last packet's destination,
    RouteState in_state;  // its routing state as it arrives,
    uint16_t port = 0;    // and its route at the next router
    uint8_t vc_lo = 0, vc_hi = 0;
    RouteState state;
  };
  static_assert(sizeof(LinkQueue) == 32, "two link queues per cache line");
  static constexpr uint32_t kAgendaWake = 0, kAgendaHead = 1;
  std::vector<LinkQueue> link_queues_;
  std::vector<Time> horizon_;
  std::vector<std::vector<AgendaEntry>> agenda_;
  std::vector<Time> step_at_;
  RouterId stepping_ = kNoId;

  std::vector<Nic> nics_;
  std::vector<int32_t> nic_credits_;  // per endpoint and VC: credit at the first router's input
  std::vector<uint32_t> deliveries_;  // per endpoint: messages delivered (delivery_data)
  std::vector<LinkStats> nic_stats_;

  std::vector<Packet> packets_;
  uint32_t free_packets_ = kNoId;
  uint64_t live_packets_ = 0;
  std::vector<Message> messages_;
  uint32_t free_messages_ = kNoId;
  // Partitioned runs: the plan (null in a serial run), this partition, the window's end, an
  // outbox per partition, and the messages a packet arriving from elsewhere may belong to.
  const PartitionPlan* plan_ = nullptr;
  uint32_t part_ = 0;
  Time window_end_ = Time::max();
  std::vector<Outbox> out_;
  std::unordered_map<uint64_t, uint32_t> by_key_;
  std::vector<uint32_t> taken_;  // take_crossings' scratch: the messages it just took
  std::vector<uint32_t> scratch_;
  std::vector<int32_t> credit_view_;  // adaptive routing's view of a router's free credits
  // Reference mode: the wake-ups pending, as (time, kind, target, port).
  std::set<std::tuple<int64_t, uint32_t, uint32_t, uint32_t>> ref_wakes_;
  NetworkTotals totals_;
};

}  // namespace mgen::net
