#include "mgen/net/topology.hpp"

#include "mgen/net/topology_size.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

namespace mgen::net {
namespace {

constexpr uint64_t kMaxRouters = 1ull << 26;
constexpr uint64_t kMaxEndpoints = 1ull << 30;
constexpr uint64_t kMaxPortsPerRouter = 4096;

// a * b, or the largest uint64_t when that overflows: sizes beyond every limit stay beyond it.
uint64_t times(uint64_t a, uint64_t b) {
  return b != 0 && a > std::numeric_limits<uint64_t>::max() / b ? std::numeric_limits<uint64_t>::max() : a * b;
}

uint64_t product(const std::vector<uint32_t>& v) {
  uint64_t p = 1;
  for (uint32_t x : v)
    p = times(p, x);
  return p;
}

Bandwidth scaled(Bandwidth bw, uint64_t k) {
  return Bandwidth::bytes_per_second(bw.bytes_per_s() * k);
}

// The checks of a mesh or torus, and its size; build_torus makes what this describes.
struct CubePlan {
  uint64_t routers = 0, nodes = 0;
  uint32_t ports = 0;  // per router
  std::vector<uint32_t> channels;
};

CubePlan plan_cube(const NetworkConfig& config) {
  const TopologyConfig& t = config.topology;
  const size_t nd = t.dims.size();
  if (nd < 1 || nd > 6)
    throw ConfigError("topology.dims", fmt::format("{} dimensions; mesh and torus take 1 to 6", nd));
  for (uint32_t k : t.dims) {
    if (k == 0) throw ConfigError("topology.dims", "every dimension needs at least one router");
    if (k > 65535) throw ConfigError("topology.dims", fmt::format("{} routers in one dimension; at most 65535", k));
  }
  CubePlan p;
  p.routers = product(t.dims);
  if (p.routers > kMaxRouters)
    throw ConfigError("topology.dims", fmt::format("{} routers is more than the {} supported", p.routers, kMaxRouters));
  if (!t.channels.empty() && t.channels.size() != nd) {
    throw ConfigError("topology.channels", fmt::format("{} values for {} dimensions", t.channels.size(), nd));
  }
  if (t.link_bandwidth.size() != 1 && t.link_bandwidth.size() != nd) {
    throw ConfigError("topology.link_bandwidth",
                      fmt::format("give one bandwidth or one per dimension ({}), not {}", nd, t.link_bandwidth.size()));
  }
  if (t.nodes_per_router == 0) throw ConfigError("topology.nodes_per_router", "must be at least 1");
  p.nodes = p.routers * t.nodes_per_router;
  if (times(p.nodes, config.nic.nics_per_node) > kMaxEndpoints) {
    throw ConfigError("topology.dims", fmt::format("{} endpoints is more than the {} supported",
                                                   p.nodes * config.nic.nics_per_node, kMaxEndpoints));
  }
  p.channels = t.channels.empty() ? std::vector<uint32_t>(nd, 1) : t.channels;
  for (size_t d = 0; d < nd; ++d) {
    if (p.channels[d] == 0 || p.channels[d] > 255) {
      throw ConfigError("topology.channels",
                        fmt::format("dimension {} has {} channels; 1 to 255 allowed", d, p.channels[d]));
    }
  }
  uint64_t ports = uint64_t{t.nodes_per_router} * config.nic.nics_per_node;
  for (size_t d = 0; d < nd; ++d) {
    if (t.dims[d] > 1) ports += 2 * p.channels[d];
  }
  if (ports > kMaxPortsPerRouter)
    throw ConfigError("topology.nodes_per_router", fmt::format("{} ports per router is too many", ports));
  p.ports = static_cast<uint32_t>(ports);
  return p;
}

// The fat tree a configuration describes: its own down/up, or a crossbar's single switch.
struct TreeShape {
  std::vector<uint32_t> down, up;
  TopologyKind kind;
};

TreeShape tree_shape(const TopologyConfig& t) {
  if (t.kind == "crossbar") {
    if (t.crossbar_nodes == 0) throw ConfigError("topology.nodes", "a crossbar needs `nodes` >= 1");
    return {{t.crossbar_nodes}, {}, TopologyKind::kCrossbar};
  }
  if (t.down.empty()) throw ConfigError("topology.down", "a fat tree needs `down` (children per switch, per level)");
  if (t.up.size() + 1 != t.down.size()) {
    throw ConfigError("topology.up", fmt::format("a {}-level fat tree needs {} `up` values (parents per switch of "
                                                 "levels 1..{}), got {}",
                                                 t.down.size(), t.down.size() - 1, t.down.size() - 1, t.up.size()));
  }
  return {t.down, t.up, TopologyKind::kFatTree};
}

// The checks of a fat tree, and its size: switches and ports per switch, level by level.
struct TreePlan {
  uint64_t nodes = 0;
  std::vector<uint64_t> switches, ports;  // index l-1 for level l
};

TreePlan plan_tree(const NetworkConfig& config, const TreeShape& shape) {
  const TopologyConfig& t = config.topology;
  const std::vector<uint32_t>& down = shape.down;
  const std::vector<uint32_t>& up = shape.up;
  const uint32_t levels = static_cast<uint32_t>(down.size());
  if (levels > 8) throw ConfigError("topology.down", fmt::format("{} levels; at most 8 supported", levels));
  for (uint32_t m : down) {
    if (m == 0) throw ConfigError("topology.down", "every level needs at least one child per switch");
  }
  for (uint32_t w : up) {
    if (w == 0) throw ConfigError("topology.up", "every switch below the top needs at least one parent");
  }
  if (t.link_bandwidth.size() > 1 && t.link_bandwidth.size() != levels - 1) {
    throw ConfigError("topology.link_bandwidth", fmt::format("a {}-level fat tree takes one bandwidth or one per "
                                                             "level of links ({})",
                                                             levels, levels - 1));
  }
  TreePlan p;
  p.nodes = product(down);
  const uint64_t nics = config.nic.nics_per_node;
  if (times(p.nodes, nics) > kMaxEndpoints) {
    throw ConfigError("topology.down",
                      fmt::format("{} endpoints is more than the {} supported", times(p.nodes, nics), kMaxEndpoints));
  }
  // Level l has prod_{i>l} m_i * prod_{i=2..l} w_i switches (XGFT), each with m_l down ports
  // (m_1 * NICs at the leaves) and w_{l+1} up ports.
  uint64_t total = 0;
  for (uint32_t l = 1; l <= levels; ++l) {
    uint64_t count = 1;
    for (uint32_t i = l; i < levels; ++i)
      count = times(count, down[i]);
    for (uint32_t i = 2; i <= l; ++i)
      count = times(count, up[i - 2]);
    const uint64_t ports = (l == 1 ? down[0] * nics : down[l - 1]) + (l < levels ? up[l - 1] : 0);
    if (ports > kMaxPortsPerRouter)
      throw ConfigError("topology.down", fmt::format("level {} switches would have {} ports", l, ports));
    total += std::min(count, kMaxRouters + 1);
    if (total > kMaxRouters) throw ConfigError("topology.down", fmt::format("more than {} switches", kMaxRouters));
    p.switches.push_back(count);
    p.ports.push_back(ports);
  }
  return p;
}

void check_kind(const TopologyConfig& t) {
  for (const auto& e : topology_registry()) {
    if (t.kind == e.name) return;
  }
  std::string known;
  for (const auto& e : topology_registry())
    known += std::string(known.empty() ? "" : ", ") + e.name;
  throw ConfigError("topology.kind", fmt::format("unknown topology '{}' (known: {})", t.kind, known));
}

}  // namespace

TopologySize topology_size(const NetworkConfig& config) {
  validate(config);
  const TopologyConfig& t = config.topology;
  check_kind(t);
  TopologySize s;
  if (t.kind == "torus" || t.kind == "mesh") {
    const CubePlan p = plan_cube(config);
    s.routers = p.routers;
    s.ports = p.routers * p.ports;
    s.nodes = p.nodes;
  } else {
    const TreePlan p = plan_tree(config, tree_shape(t));
    for (size_t l = 0; l < p.switches.size(); ++l) {
      s.routers += p.switches[l];
      s.ports += p.switches[l] * p.ports[l];
    }
    s.nodes = p.nodes;
  }
  s.endpoints = s.nodes * config.nic.nics_per_node;
  return s;
}

const std::vector<TopologyEntry>& topology_registry() {
  static const std::vector<TopologyEntry> table = {
      {"torus", "k-ary n-cube with wraparound links, 1-6 dimensions, per-dimension size, channels and bandwidth"},
      {"mesh", "k-ary n-mesh without wraparound, 1-6 dimensions"},
      {"fattree", "extended generalized fat tree XGFT: k-ary n-trees and oversubscribed multi-level trees"},
      {"crossbar", "a single switch with every node on one port"},
  };
  return table;
}

void Topology::add_routers(uint32_t count, uint32_t ports_each) {
  for (uint32_t i = 0; i < count; ++i)
    port_base_.push_back(port_base_.back() + ports_each);
  links_.resize(port_base_.back());
  max_ports_ = std::max(max_ports_, ports_each);
}

void Topology::connect(RouterId a, uint32_t pa, RouterId b, uint32_t pb, Bandwidth bw, Time latency, uint8_t dim) {
  PortLink& la = links_[port_base_[a] + pa];
  la.peer = b;
  la.peer_port = static_cast<uint16_t>(pb);
  la.kind = PeerKind::kRouter;
  la.bandwidth = bw;
  la.latency = latency;
  la.dim = dim;
  PortLink& lb = links_[port_base_[b] + pb];
  lb.peer = a;
  lb.peer_port = static_cast<uint16_t>(pa);
  lb.kind = PeerKind::kRouter;
  lb.bandwidth = bw;
  lb.latency = latency;
  lb.dim = dim;
}

void Topology::attach_endpoint(EndpointId e, RouterId r, uint32_t port) {
  PortLink& l = links_[port_base_[r] + port];
  l.peer = e;
  l.peer_port = 0;
  l.kind = PeerKind::kEndpoint;
  l.bandwidth = endpoint_bw_;
  l.latency = endpoint_latency_;
  endpoint_router_[e] = r;
  endpoint_port_[e] = static_cast<uint16_t>(port);
}

Topology Topology::build(const NetworkConfig& config) {
  validate(config);
  const TopologyConfig& t = config.topology;
  check_kind(t);
  if (t.kind == "torus") return build_torus(config, true);
  if (t.kind == "mesh") return build_torus(config, false);
  TreeShape shape = tree_shape(t);
  return build_fat_tree(config, std::move(shape.down), std::move(shape.up), shape.kind);
}

Topology Topology::build_torus(const NetworkConfig& config, bool wrap) {
  const TopologyConfig& t = config.topology;
  const CubePlan plan = plan_cube(config);
  Topology topo;
  topo.kind_ = wrap ? TopologyKind::kTorus : TopologyKind::kMesh;
  topo.kind_name_ = wrap ? "torus" : "mesh";
  const size_t nd = t.dims.size();
  const uint64_t routers = plan.routers;
  topo.dims_ = t.dims;
  topo.channels_ = plan.channels;
  for (size_t d = 0; d < nd; ++d)
    topo.dim_bw_.push_back(t.link_bandwidth.size() == 1 ? t.link_bandwidth[0] : t.link_bandwidth[d]);
  topo.nodes_ = static_cast<uint32_t>(plan.nodes);
  topo.nics_per_node_ = config.nic.nics_per_node;
  topo.endpoint_bw_ = config.nic.link_bandwidth;
  topo.endpoint_latency_ = config.nic.link_latency;
  topo.terminals_ = t.nodes_per_router * config.nic.nics_per_node;

  uint32_t ports = topo.terminals_;
  uint32_t stride = 1;
  for (size_t d = 0; d < nd; ++d) {
    topo.stride_.push_back(stride);
    stride *= t.dims[d];
    topo.dim_port_offset_.push_back(ports);
    if (t.dims[d] > 1) ports += 2 * topo.channels_[d];
  }
  topo.add_routers(static_cast<uint32_t>(routers), ports);
  topo.coords_.resize(routers * nd);
  for (RouterId r = 0; r < routers; ++r) {
    for (size_t d = 0; d < nd; ++d)
      topo.coords_[r * nd + d] = static_cast<uint16_t>((r / topo.stride_[d]) % t.dims[d]);
  }
  topo.endpoint_router_.resize(topo.endpoints());
  topo.endpoint_port_.resize(topo.endpoints());

  for (RouterId r = 0; r < routers; ++r) {
    for (uint32_t term = 0; term < topo.terminals_; ++term) {
      topo.attach_endpoint(r * topo.terminals_ + term, r, term);
    }
    for (size_t d = 0; d < nd; ++d) {
      const uint32_t k = t.dims[d];
      if (k == 1) continue;
      const uint32_t c = topo.coord(r, static_cast<uint32_t>(d));
      if (c + 1 == k && !wrap) continue;
      // Connect r's + port to its + neighbour's - port; each link is made once, from its + end.
      const RouterId next = c + 1 == k ? r - c * topo.stride_[d] : r + topo.stride_[d];
      for (uint32_t ch = 0; ch < topo.channels_[d]; ++ch) {
        const uint32_t plus = topo.torus_port(static_cast<uint32_t>(d), 0, ch);
        const uint32_t minus = topo.torus_port(static_cast<uint32_t>(d), 1, ch);
        topo.connect(r, plus, next, minus, topo.dim_bw_[d], t.link_latency, static_cast<uint8_t>(d));
        PortLink& fwd = topo.links_[topo.port_base_[r] + plus];
        PortLink& back = topo.links_[topo.port_base_[next] + minus];
        fwd.dir = 0;
        back.dir = 1;
        fwd.channel = back.channel = static_cast<uint8_t>(ch);
        fwd.dateline = back.dateline = (c + 1 == k);
      }
    }
  }
  return topo;
}

Topology Topology::build_fat_tree(const NetworkConfig& config, std::vector<uint32_t> down, std::vector<uint32_t> up,
                                  TopologyKind kind) {
  const TopologyConfig& t = config.topology;
  Topology topo;
  topo.kind_ = kind;
  topo.kind_name_ = kind == TopologyKind::kCrossbar ? "crossbar" : "fattree";
  const TreePlan plan = plan_tree(config, TreeShape{down, up, kind});
  const uint32_t h = static_cast<uint32_t>(down.size());
  const Bandwidth bw = t.link_bandwidth.empty() ? config.nic.link_bandwidth : t.link_bandwidth[0];
  const uint64_t nodes = plan.nodes;
  topo.down_ = down;
  topo.up_ = up;
  topo.nodes_ = static_cast<uint32_t>(nodes);
  topo.nics_per_node_ = config.nic.nics_per_node;
  topo.endpoint_bw_ = config.nic.link_bandwidth;
  topo.endpoint_latency_ = config.nic.link_latency;

  // a_count[l] = prod_{i>l} m_i; nodes_below[l] = prod_{i<=l} m_i; up_stride[l] = prod_{i<l} w.
  topo.a_count_.assign(h + 1, 1);
  topo.nodes_below_.assign(h + 1, 1);
  topo.up_stride_.assign(h + 1, 1);
  for (uint32_t l = h; l-- > 0;)
    topo.a_count_[l] = topo.a_count_[l + 1] * down[l];
  for (uint32_t l = 1; l <= h; ++l)
    topo.nodes_below_[l] = topo.nodes_below_[l - 1] * down[l - 1];
  for (uint32_t l = 2; l <= h; ++l)
    topo.up_stride_[l] = topo.up_stride_[l - 1] * up[l - 2];

  topo.level_base_.assign(h + 2, 0);
  uint64_t total = 0;
  for (uint32_t l = 1; l <= h; ++l) {
    topo.level_base_[l] = static_cast<uint32_t>(total);
    const uint64_t count = plan.switches[l - 1];
    total += count;
    topo.add_routers(static_cast<uint32_t>(count), static_cast<uint32_t>(plan.ports[l - 1]));
  }
  topo.level_base_[h + 1] = static_cast<uint32_t>(total);
  topo.tree_place_.resize(total);
  for (uint32_t l = 1; l <= h; ++l) {
    for (RouterId r = topo.level_base_[l]; r < topo.level_base_[l + 1]; ++r)
      topo.tree_place_[r] = TreePlace{l, (r - topo.level_base_[l]) % topo.a_count_[l]};
  }
  topo.endpoint_router_.resize(topo.endpoints());
  topo.endpoint_port_.resize(topo.endpoints());

  const uint32_t nics = topo.nics_per_node_;
  for (uint32_t n = 0; n < nodes; ++n) {
    const RouterId leaf = topo.level_base_[1] + n / down[0];
    for (uint32_t nic = 0; nic < nics; ++nic)
      topo.attach_endpoint(n * nics + nic, leaf, (n % down[0]) * nics + nic);
  }
  for (uint32_t l = 1; l < h; ++l) {
    const uint32_t a_l = topo.a_count_[l];
    const uint32_t b_l = topo.up_stride_[l];
    const Bandwidth level_bw = t.link_bandwidth.size() > 1 ? t.link_bandwidth[l - 1] : bw;
    for (uint32_t i = 0; i < a_l * b_l; ++i) {
      const uint32_t a = i % a_l;
      const uint32_t b = i / a_l;
      for (uint32_t j = 0; j < up[l - 1]; ++j) {
        const uint32_t parent_a = a / down[l];
        const uint32_t parent_b = b + b_l * j;
        const RouterId parent = topo.level_base_[l + 1] + parent_a + topo.a_count_[l + 1] * parent_b;
        const RouterId child = topo.level_base_[l] + i;
        topo.connect(child, topo.down_ports(l) + j, parent, a % down[l], level_bw, t.link_latency, 1);
        topo.links_[topo.port_base_[parent] + a % down[l]].dim = 0;
        topo.links_[topo.port_base_[child] + topo.down_ports(l) + j].channel = static_cast<uint8_t>(j & 0xff);
      }
    }
  }
  return topo;
}

RouterId Topology::router_at(const std::vector<uint32_t>& coords) const {
  RouterId r = 0;
  for (size_t d = 0; d < dims_.size(); ++d)
    r += coords[d] * stride_[d];
  return r;
}

uint32_t Topology::torus_port(uint32_t dim, uint32_t dir, uint32_t channel) const {
  if (dims_[dim] == 1) return kNoId;
  return dim_port_offset_[dim] + dir * channels_[dim] + channel;
}

uint64_t Topology::router_links() const {
  uint64_t n = 0;
  for (const PortLink& l : links_)
    n += l.kind == PeerKind::kRouter;
  return n;
}

uint32_t Topology::router_hops(EndpointId a, EndpointId b) const {
  if (kind_ == TopologyKind::kTorus || kind_ == TopologyKind::kMesh) {
    const RouterId ra = endpoint_router(a);
    const RouterId rb = endpoint_router(b);
    uint32_t hops = 0;
    for (uint32_t d = 0; d < dims_.size(); ++d) {
      const uint32_t ca = coord(ra, d);
      const uint32_t cb = coord(rb, d);
      const uint32_t delta = ca > cb ? ca - cb : cb - ca;
      hops += wraps() ? std::min(delta, dims_[d] - delta) : delta;
    }
    return hops;
  }
  const NodeId na = node_of(a);
  const NodeId nb = node_of(b);
  uint32_t l = 1;
  while (na / nodes_below_[l] != nb / nodes_below_[l])
    ++l;
  return 2 * (l - 1);
}

uint32_t Topology::diameter() const {
  if (kind_ == TopologyKind::kTorus || kind_ == TopologyKind::kMesh) {
    uint32_t d = 0;
    for (uint32_t k : dims_)
      d += wraps() ? k / 2 : k - 1;
    return d;
  }
  uint32_t top = 1;
  for (uint32_t l = 1; l <= levels(); ++l) {
    if (down_[l - 1] > 1) top = l;
  }
  return 2 * (top - 1);
}

Bandwidth Topology::bisection_bandwidth() const {
  const uint64_t endpoint_cut = endpoints() / 2;
  Bandwidth best = scaled(endpoint_bw_, endpoint_cut);
  if (kind_ == TopologyKind::kTorus || kind_ == TopologyKind::kMesh) {
    for (uint32_t d = 0; d < dims_.size(); ++d) {
      if (dims_[d] < 2) continue;
      const uint64_t rows = routers() / dims_[d];
      const Bandwidth cut = scaled(dim_bw_[d], rows * channels_[d] * (wraps() ? 2 : 1));
      best = std::min(best, cut);
    }
    return best;
  }
  for (uint32_t l = 2; l <= levels(); ++l) {
    const uint64_t below = level_base_[l] - level_base_[l - 1];
    const uint64_t links = below * up_[l - 2];
    best = std::min(best, scaled(link(level_base_[l - 1], down_ports(l - 1)).bandwidth, links / 2));
  }
  return best;
}

std::string Topology::describe() const {
  if (kind_ == TopologyKind::kTorus || kind_ == TopologyKind::kMesh) {
    std::string shape;
    for (size_t d = 0; d < dims_.size(); ++d)
      shape += (d ? "x" : "") + std::to_string(dims_[d]);
    return fmt::format("{} {}, {} node(s) per router", kind_name_, shape, terminals_ / nics_per_node_);
  }
  if (kind_ == TopologyKind::kCrossbar) return fmt::format("crossbar with {} nodes", nodes_);
  std::string d, u;
  for (size_t i = 0; i < down_.size(); ++i)
    d += (i ? "," : "") + std::to_string(down_[i]);
  for (size_t i = 0; i < up_.size(); ++i)
    u += (i ? "," : "") + std::to_string(up_[i]);
  return fmt::format("fat tree, {} levels, down [{}], up [{}]", down_.size(), d, u);
}

}  // namespace mgen::net
