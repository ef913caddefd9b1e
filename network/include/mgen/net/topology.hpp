// A topology is data built once: routers, their ports, the link behind every output port and
// where each NIC (endpoint) attaches. Routing functions (routing.hpp) read it; nothing here
// changes during a simulation.
//
// Port numbering. Every link is bidirectional and symmetric: if output port p of router r
// leads to input port q of router s, then output port q of s leads to input port p of r.
// Credits for an input port therefore travel back along the same pair.
//   torus/mesh router: [0, T) terminals (T = nodes_per_router * nics_per_node), then for each
//     dimension with more than one router: `channels` ports in + direction, then `channels` in -.
//   fat-tree switch at level l: [0, down) towards level l-1 (NICs at level 1), then [down, down+up)
//     towards level l+1.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "mgen/net/config.hpp"

namespace mgen::net {

using RouterId = uint32_t;
using EndpointId = uint32_t;
using NodeId = uint32_t;
inline constexpr uint32_t kNoId = 0xffffffffu;

enum class TopologyKind : uint8_t { kMesh, kTorus, kFatTree, kCrossbar };

enum class PeerKind : uint8_t { kUnconnected, kRouter, kEndpoint };

// The output link behind one router port.
struct PortLink {
  uint32_t peer = kNoId;  // router or endpoint id
  uint16_t peer_port = 0;
  PeerKind kind = PeerKind::kUnconnected;
  uint8_t dim = 0xff;     // torus/mesh: dimension; fat tree: 0 = down, 1 = up
  uint8_t dir = 0;        // torus/mesh: 0 = +, 1 = -
  uint8_t channel = 0;    // index among parallel links in the same direction
  bool dateline = false;  // torus: this link wraps around (k-1 -> 0 or 0 -> k-1)
  Bandwidth bandwidth;
  Time latency;
};

class Topology {
 public:
  // Builds the topology named by config.topology.kind; throws ConfigError for impossible ones.
  static Topology build(const NetworkConfig& config);

  TopologyKind kind() const { return kind_; }
  const std::string& kind_name() const { return kind_name_; }
  uint32_t routers() const { return static_cast<uint32_t>(port_base_.size() - 1); }
  uint32_t nodes() const { return nodes_; }
  uint32_t nics_per_node() const { return nics_per_node_; }
  uint32_t endpoints() const { return nodes_ * nics_per_node_; }
  NodeId node_of(EndpointId e) const { return e / nics_per_node_; }

  uint32_t ports(RouterId r) const { return port_base_[r + 1] - port_base_[r]; }
  uint32_t port_base(RouterId r) const { return port_base_[r]; }
  uint32_t total_ports() const { return port_base_.back(); }
  uint32_t max_ports() const { return max_ports_; }
  const PortLink& link(RouterId r, uint32_t port) const { return links_[port_base_[r] + port]; }
  const PortLink& link_at(uint32_t global_port) const { return links_[global_port]; }
  uint64_t router_links() const;  // unidirectional router-to-router links

  RouterId endpoint_router(EndpointId e) const { return endpoint_router_[e]; }
  uint16_t endpoint_port(EndpointId e) const { return endpoint_port_[e]; }
  Bandwidth endpoint_bandwidth() const { return endpoint_bw_; }
  Time endpoint_latency() const { return endpoint_latency_; }

  // --- torus / mesh geometry ---
  const std::vector<uint32_t>& dims() const { return dims_; }
  const std::vector<uint32_t>& channels() const { return channels_; }
  bool wraps() const { return kind_ == TopologyKind::kTorus; }
  uint32_t terminals_per_router() const { return terminals_; }
  uint32_t coord(RouterId r, uint32_t dim) const { return coords_[size_t{r} * dims_.size() + dim]; }
  // All of a router's coordinates, one per dimension.
  const uint16_t* coords(RouterId r) const { return &coords_[size_t{r} * dims_.size()]; }
  RouterId router_at(const std::vector<uint32_t>& coords) const;
  // Port for (dimension, direction 0 = + / 1 = -, channel); kNoId for a size-1 dimension.
  uint32_t torus_port(uint32_t dim, uint32_t dir, uint32_t channel) const;

  // --- fat tree geometry (levels numbered from 1 at the leaves) ---
  uint32_t levels() const { return static_cast<uint32_t>(down_.size()); }
  uint32_t level_of(RouterId r) const { return tree_place_[r].level; }
  uint32_t down_count(uint32_t level) const { return down_[level - 1]; }
  uint32_t up_count(uint32_t level) const { return level < levels() ? up_[level - 1] : 0; }
  uint32_t down_ports(uint32_t level) const { return level == 1 ? down_[0] * nics_per_node_ : down_[level - 1]; }
  // Nodes below a level-l switch share the digits above l; this is that shared prefix.
  uint32_t subtree_of(RouterId r) const { return tree_place_[r].subtree; }
  // prod_{i<=l} m_i: nodes below one level-l switch.
  uint32_t nodes_below(uint32_t level) const { return nodes_below_[level]; }
  // prod_{i=2..l} w_i: how d-mod-k spreads destinations over the up ports of level l.
  uint32_t up_stride(uint32_t level) const { return up_stride_[level]; }

  // --- summary ---
  // Router-to-router hops on the minimal path between the routers of two endpoints.
  uint32_t router_hops(EndpointId a, EndpointId b) const;
  uint32_t diameter() const;              // maximum router_hops over all endpoint pairs
  Bandwidth bisection_bandwidth() const;  // one direction, across the narrowest balanced cut
  std::string describe() const;

 private:
  void add_routers(uint32_t count, uint32_t ports_each);
  void connect(RouterId a, uint32_t pa, RouterId b, uint32_t pb, Bandwidth bw, Time latency, uint8_t dim);
  void attach_endpoint(EndpointId e, RouterId r, uint32_t port);
  static Topology build_torus(const NetworkConfig& config, bool wrap);
  static Topology build_fat_tree(const NetworkConfig& config, std::vector<uint32_t> down, std::vector<uint32_t> up,
                                 TopologyKind kind);

  TopologyKind kind_ = TopologyKind::kTorus;
  std::string kind_name_;
  uint32_t nodes_ = 0;
  uint32_t nics_per_node_ = 1;
  uint32_t max_ports_ = 0;
  std::vector<uint32_t> port_base_{0};
  std::vector<PortLink> links_;
  std::vector<RouterId> endpoint_router_;
  std::vector<uint16_t> endpoint_port_;
  Bandwidth endpoint_bw_;
  Time endpoint_latency_;

  std::vector<uint32_t> dims_, channels_, stride_, dim_port_offset_;
  std::vector<uint16_t> coords_;  // per router and dimension: routing reads these on every hop
  std::vector<Bandwidth> dim_bw_;
  uint32_t terminals_ = 0;

  std::vector<uint32_t> down_, up_;
  std::vector<uint32_t> level_base_;   // first router id of each level (index 1..h), plus end
  std::vector<uint32_t> nodes_below_;  // index 0..h
  std::vector<uint32_t> up_stride_;    // index 1..h
  std::vector<uint32_t> a_count_;      // prod_{i>l} m_i, index 0..h
  // Per switch, its level and subtree: routing reads both on every hop.
  struct TreePlace {
    uint32_t level = 0, subtree = 0;
  };
  std::vector<TreePlace> tree_place_;
};

// The topology registry: one row per kind, printed by `mgen info`.
struct TopologyEntry {
  const char* name;
  const char* description;
};
const std::vector<TopologyEntry>& topology_registry();

}  // namespace mgen::net
