// Analytic backend: the zero-load time of each message (ZeroLoadModel), computed in closed form
// from the same machine description, with no contention between messages and no buffer limits.
// It is the oracle the packet-level model must agree with on an idle network, and a fast backend
// when contention does not matter. With analytic.nic_contention, messages also share the NICs. A
// source NIC sends its messages whole, first in first out: a message's packets take the link
// when the previous message's last packet has left (its DMA reads ahead, as in the packet
// model, so it does not pay the DMA latency again). A destination NIC's ejection side is a
// calendar: each message needs it for its ejection time (its wire bytes at the ejection link or
// the switch, or its payload at the receive DMA, whichever is slowest) ending at its zero-load
// delivery, and takes the first free stretch that long from there on, so a message arriving at
// an idle NIC is not held behind one booked earlier that arrives later. Links inside the
// network stay uncontended.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "analytic/zero_load.hpp"
#include "mgen/net/backend.hpp"

namespace mgen::net {

class AnalyticNetwork final : public Backend {
 public:
  enum EventKind : uint16_t {
    kSent,       // data = slot
    kDelivered,  // data = slot
    kKindCount,
  };

  explicit AnalyticNetwork(const BackendContext& context);

  void inject(EndpointId src, EndpointId dst, Bytes size, uint64_t cookie) override;
  void dispatch(const simcore::Event& e) override;
  NetworkTotals totals() const override { return totals_; }
  const std::vector<LinkStats>* router_link_stats() const override { return &link_stats_; }
  uint64_t in_flight() const override { return live_; }

 private:
  // Books `length` of destination `dst`'s ejection side in its first free stretch from `from`
  // on; returns the end. Bookings over by `now` are dropped (no later request reaches back).
  Time book_ejection(EndpointId dst, Time from, Time length, Time now);

  simcore::Engine& engine_;
  const Topology& topo_;
  MessageSink& sink_;
  simcore::KindRange kinds_;
  ZeroLoadModel model_;
  Bandwidth switch_bw_, dma_bw_;
  Time dma_latency_;
  std::vector<uint64_t> cookies_;
  std::vector<uint32_t> free_;
  std::vector<Time> posted_;
  uint64_t live_ = 0;
  std::vector<LinkStats> link_stats_;
  NetworkTotals totals_;
  // analytic.nic_contention: each source NIC's state and each destination NIC's ejection
  // bookings (start -> end, disjoint, adjacent ones merged).
  bool nic_contention_;
  std::vector<ZeroLoadModel::SourceNic> source_;
  std::vector<std::map<Time, Time>> ejection_;
};

}  // namespace mgen::net
