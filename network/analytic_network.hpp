// Analytic backend: the zero-load time of each message, computed in closed form from the same
// machine description, with no contention between messages and no buffer limits. It is the
// oracle the packet-level model must agree with on an idle network, and a fast backend when
// contention does not matter. With analytic.nic_contention, messages also share the NICs. A
// source NIC sends its messages whole, first in first out: a message's packets take the link
// when the previous message's last packet has left (its DMA reads ahead, as in the packet
// model, so it does not pay the DMA latency again). A destination NIC's ejection side is a
// calendar: each message needs it for its ejection time (its wire bytes at the ejection link or
// the switch, or its payload at the receive DMA, whichever is slowest) ending at its zero-load
// delivery, and takes the first free stretch that long from there on, so a message arriving at
// an idle NIC is not held behind one booked earlier that arrives later. Links inside the
// network stay uncontended.
//
// For each packet j along the path (NIC, routers 1..n, NIC) it evaluates the cut-through
// pipeline recurrence of docs/network-model.md:
//     h_i(j) = max(h_{i-1}(j) + L_{i-1} + t_head, E_i(j-1))
//     E_i(j) = max(h_i(j) + w_j/B_i, h_i(j) + w_j/B_sw, E_{i-1}(j) + L_{i-1} + t_st)
// plus the transmit and receive DMA stages. Once the pipeline is steady the remaining packets are
// added in closed form, so a message costs O(hops x pipeline fill), not O(packets x hops).
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "mgen/net/network.hpp"

namespace mgen::net {

enum AnalyticEventKind : uint16_t {
  kAnalyticSent = 16,  // data = slot
  kAnalyticDelivered,
  kAnalyticKindEnd,
};

class AnalyticNetwork {
 public:
  AnalyticNetwork(simcore::Engine& engine, const NetworkConfig& config, const Topology& topology,
                  const Routing& routing, MessageSink& sink);

  void inject(EndpointId src, EndpointId dst, Bytes size, uint64_t cookie);
  void dispatch(const simcore::Event& e);
  const NetworkTotals& totals() const { return totals_; }
  const std::vector<LinkStats>& router_link_stats() const { return link_stats_; }
  uint64_t messages_in_flight() const { return live_; }

  struct Timing {
    Time sent;       // tail of the last packet leaves the source NIC
    Time delivered;  // last byte written to destination memory
    uint32_t router_hops = 0;
  };
  // When a source NIC's DMA engine and injection link are next free.
  struct SourceNic {
    Time dma_free, link_free;
  };
  // The zero-load timing of one message injected at `start`; no side effects.
  Timing zero_load(EndpointId src, EndpointId dst, Bytes size, Time start) const {
    SourceNic idle{start, start};
    return zero_load(src, dst, size, start, idle);
  }
  // The same behind the source NIC's earlier messages (`source`, updated to after this one).
  Timing zero_load(EndpointId src, EndpointId dst, Bytes size, Time start, SourceNic& source) const;

 private:
  struct Stage {
    uint32_t out_gp;
    Bandwidth bw;
    Time latency;  // of the output link
  };
  void path(EndpointId src, EndpointId dst, std::vector<Stage>& out) const;
  // Books `length` of destination `dst`'s ejection side in its first free stretch from `from`
  // on; returns the end. Bookings over by `now` are dropped (no later request reaches back).
  Time book_ejection(EndpointId dst, Time from, Time length, Time now);

  simcore::Engine& engine_;
  const Topology& topo_;
  const Routing& routing_;
  MessageSink& sink_;
  Time t_head_, t_tail_;
  Bandwidth switch_bw_, dma_bw_;
  Time dma_latency_;
  uint64_t payload_max_;
  uint32_t header_;
  std::vector<uint64_t> cookies_;
  std::vector<uint32_t> free_;
  std::vector<Time> posted_;
  uint64_t live_ = 0;
  mutable std::vector<Stage> scratch_;
  mutable std::vector<Time> busy_;
  mutable std::vector<Time> rate_, svc_;
  std::vector<LinkStats> link_stats_;
  NetworkTotals totals_;
  // analytic.nic_contention: each source NIC's state and each destination NIC's ejection
  // bookings (start -> end, disjoint, adjacent ones merged).
  bool nic_contention_;
  std::vector<SourceNic> source_;
  std::vector<std::map<Time, Time>> ejection_;
};

}  // namespace mgen::net
