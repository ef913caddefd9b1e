// Analytic backend: the zero-load time of each message, computed in closed form from the same
// machine description, with no contention between messages and no buffer limits. It is the
// oracle the packet-level model must agree with on an idle network, and a fast backend when
// contention does not matter. With analytic.nic_contention, messages also queue at the NICs
// (first in, first out, in injection order): a message starts when its source NIC has sent the
// previous one, and is delivered no earlier than the destination NIC can take it after the
// previous one (its wire bytes at the ejection link, or its payload at the DMA, whichever is
// slower). Links inside the network stay uncontended.
//
// For each packet j along the path (NIC, routers 1..n, NIC) it evaluates the cut-through
// pipeline recurrence of docs/network-model.md:
//     h_i(j) = max(h_{i-1}(j) + L_{i-1} + t_head, E_i(j-1))
//     E_i(j) = max(h_i(j) + w_j/B_i, h_i(j) + w_j/B_sw, E_{i-1}(j) + L_{i-1} + t_st)
// plus the transmit and receive DMA stages. Once the pipeline is steady the remaining packets are
// added in closed form, so a message costs O(hops x pipeline fill), not O(packets x hops).
#pragma once

#include <cstdint>
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
  // The zero-load timing of one message injected at `start`; no side effects.
  Timing zero_load(EndpointId src, EndpointId dst, Bytes size, Time start) const;

 private:
  struct Stage {
    uint32_t out_gp;
    Bandwidth bw;
    Time latency;  // of the output link
  };
  void path(EndpointId src, EndpointId dst, std::vector<Stage>& out) const;

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
  // analytic.nic_contention: when each NIC's injection and ejection sides are next free.
  bool nic_contention_;
  std::vector<Time> inject_free_, eject_free_;
};

}  // namespace mgen::net
