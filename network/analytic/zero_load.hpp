// The zero-load time of one message in closed form: the cut-through pipeline recurrence of
// docs/network-model.md evaluated packet by packet along the message's route (NIC, routers
// 1..n, NIC), with no other traffic. It is the analytic backend's timing and, for every backend,
// the oracle (NetworkModel::zero_load) the packet model must agree with on an idle network.
//
// For each packet j along the path:
//     h_i(j) = max(h_{i-1}(j) + L_{i-1} + t_head, E_i(j-1))
//     E_i(j) = max(h_i(j) + w_j/B_i, h_i(j) + w_j/B_sw, E_{i-1}(j) + L_{i-1} + t_st)
// plus the transmit and receive DMA stages. Once the pipeline is steady the remaining packets are
// added in closed form, so a message costs O(hops x pipeline fill), not O(packets x hops).
#pragma once

#include <cstdint>
#include <vector>

#include "mgen/net/config.hpp"
#include "mgen/net/routing.hpp"
#include "mgen/net/topology.hpp"

namespace mgen::net {

class ZeroLoadModel {
 public:
  ZeroLoadModel(const NetworkConfig& config, const Topology& topology, const Routing& routing);

  struct Timing {
    Time sent;       // tail of the last packet leaves the source NIC
    Time delivered;  // last byte written to destination memory
    uint32_t router_hops = 0;
  };
  // When a source NIC's DMA engine and injection link are next free.
  struct SourceNic {
    Time dma_free, link_free;
  };
  // One router output a message crosses: its global port, and the link behind it.
  struct Stage {
    uint32_t out_gp;
    Bandwidth bw;
    Time latency;
  };

  // The zero-load timing of one message injected at `start`. Not thread-safe: it reuses
  // scratch space, and leaves the route in path().
  Timing zero_load(EndpointId src, EndpointId dst, Bytes size, Time start) const {
    SourceNic idle{start, start};
    return zero_load(src, dst, size, start, idle);
  }
  // The same behind the source NIC's earlier messages (`source`, updated to after this one).
  Timing zero_load(EndpointId src, EndpointId dst, Bytes size, Time start, SourceNic& source) const;
  // The route of the last message timed.
  const std::vector<Stage>& path() const { return scratch_; }

  uint64_t payload_max() const { return payload_max_; }
  uint32_t header() const { return header_; }

 private:
  void route(EndpointId src, EndpointId dst, std::vector<Stage>& out) const;

  const Topology& topo_;
  const Routing& routing_;
  Time t_head_, t_tail_;
  Bandwidth switch_bw_, dma_bw_;
  Time dma_latency_;
  uint64_t payload_max_;
  uint32_t header_;
  mutable std::vector<Stage> scratch_;
  mutable std::vector<Time> busy_;
  mutable std::vector<Time> rate_, svc_;
};

}  // namespace mgen::net
