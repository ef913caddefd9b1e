#include "mgen/net/routing.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>

namespace mgen::net {
namespace {

bool is_cube(TopologyKind k) {
  return k == TopologyKind::kTorus || k == TopologyKind::kMesh;
}

}  // namespace

const std::vector<RoutingEntry>& routing_registry() {
  static const std::vector<RoutingEntry> table = {
      {"dor", "dimension-order (X, then Y, ...), shortest direction, dateline VCs on tori; link fixed per destination",
       RoutingAlgo::kDor, true, false},
      {"hashed", "dimension-order with the parallel link and tie direction chosen by a per-packet hash (Gemini hashed)",
       RoutingAlgo::kHashed, true, false},
      {"adaptive", "minimal adaptive over all productive directions, falling back to a DOR escape VC (Duato)",
       RoutingAlgo::kAdaptive, true, false},
      {"dmodk", "fat tree: up port = (destination / stride) mod k, then deterministic down (InfiniBand)",
       RoutingAlgo::kDmodk, false, true},
      {"random", "fat tree: up port chosen by a per-packet hash", RoutingAlgo::kRandom, false, true},
      {"adaptive_up", "fat tree: up port with the most free credit, ties to d-mod-k", RoutingAlgo::kAdaptiveUp, false,
       true},
  };
  return table;
}

Routing::Routing(const Topology& topology, const RouterConfig& config)
    : topo_(&topology), vcs_(config.vcs), dateline_(config.dateline) {
  const bool cube = is_cube(topology.kind());
  std::string name = config.routing.empty() ? (cube ? "dor" : "dmodk") : config.routing;
  const RoutingEntry* entry = nullptr;
  std::string valid;
  for (const RoutingEntry& e : routing_registry()) {
    if (cube ? e.for_cube : e.for_tree) valid += std::string(valid.empty() ? "" : ", ") + e.name;
    if (name == e.name) entry = &e;
  }
  if (entry == nullptr || !(cube ? entry->for_cube : entry->for_tree)) {
    throw ConfigError("router.routing", fmt::format("routing '{}' does not apply to a {} (valid: {})", name,
                                                    topology.kind_name(), valid));
  }
  algo_ = entry->algo;
  if (cube) {
    for (uint32_t d = 0; d < topology.dims().size(); ++d) {
      const uint32_t k = topology.dims()[d];
      dim_.push_back(Dim{k, FastDiv(topology.channels()[d]), k == 1 ? kNoId : topology.torus_port(d, 0, 0)});
    }
  }
  if (!cube) {
    nics_per_node_ = FastDiv(topology.nics_per_node());
    tree_levels_.resize(topology.levels() + 1);
    for (uint32_t l = 1; l <= topology.levels(); ++l) {
      TreeLevel& level = tree_levels_[l];
      level.below = FastDiv(topology.nodes_below(l));
      level.below_prev = FastDiv(topology.nodes_below(l - 1));
      level.down = FastDiv(topology.down_count(l));
      level.stride = FastDiv(topology.up_stride(l));
      level.ups = FastDiv(std::max(topology.up_count(l), 1u));
      level.down_ports = topology.down_ports(l);
    }
  }
  if (vcs_ < 1 || vcs_ > 64) throw ConfigError("router.vcs", fmt::format("{} virtual channels; 1 to 64 allowed", vcs_));
  const bool torus = topology.kind() == TopologyKind::kTorus && dateline_;
  if (algo_ == RoutingAlgo::kAdaptive) {
    escape_vcs_ = torus ? 2 : 1;
    if (vcs_ <= escape_vcs_) {
      throw ConfigError("router.vcs", fmt::format("adaptive routing on a {} needs at least {} VCs ({} escape + 1 "
                                                  "adaptive), got {}",
                                                  topology.kind_name(), escape_vcs_ + 1, escape_vcs_, vcs_));
    }
  } else if (torus && vcs_ < 2 && cube) {
    throw ConfigError("router.vcs", fmt::format("dimension-order routing on a torus needs 2 VCs (dateline classes), "
                                                "got {}",
                                                vcs_));
  }
}

const char* Routing::name() const {
  for (const RoutingEntry& e : routing_registry()) {
    if (e.algo == algo_) return e.name;
  }
  return "?";
}

Route Routing::injection_vcs() const {
  if (algo_ == RoutingAlgo::kAdaptive) return {0, static_cast<uint8_t>(escape_vcs_), static_cast<uint8_t>(vcs_)};
  const bool torus = topo_->kind() == TopologyKind::kTorus && dateline_;
  if (torus) return {0, 0, static_cast<uint8_t>(vcs_ / 2)};
  return {0, 0, static_cast<uint8_t>(vcs_)};
}

Route Routing::route(RouterId r, EndpointId dst, uint32_t hash, RouteState& state, const int32_t* free_credits,
                     uint32_t wire_bytes) const {
  const RouterId target = topo_->endpoint_router(dst);
  if (target == r) return {topo_->endpoint_port(dst), 0, 1};
  switch (algo_) {
    case RoutingAlgo::kDor:
    case RoutingAlgo::kHashed:
      return dimension_order(r, target, dst, hash, state, algo_ == RoutingAlgo::kHashed);
    case RoutingAlgo::kAdaptive:
      return adaptive_cube(r, target, dst, hash, state, free_credits, wire_bytes);
    default:
      return route_tree(r, dst, hash, free_credits);
  }
}

Route Routing::dimension_order(RouterId r, RouterId target, EndpointId dst, uint32_t hash, RouteState& state,
                               bool hashed) const {
  const Topology& t = *topo_;
  const bool torus = t.kind() == TopologyKind::kTorus;
  const uint16_t* here = t.coords(r);
  const uint16_t* there = t.coords(target);
  // The first dimension in which the coordinates differ, and below the way to go in it, are
  // found without a branch on the coordinates: which dimension and way it is changes from hop
  // to hop, and a branch on it was the router's most mispredicted (docs/PERFORMANCE.md).
  uint32_t differ = 0;
  for (uint32_t d = 0; d < dim_.size(); ++d)
    differ |= static_cast<uint32_t>(here[d] != there[d]) << d;
  if (differ == 0) return {t.endpoint_port(dst), 0, 1};
  const uint32_t d = static_cast<uint32_t>(std::countr_zero(differ));
  const uint32_t c = here[d];
  const uint32_t tc = there[d];
  const uint32_t k = dim_[d].k;
  uint32_t dir;
  if (!torus) {
    dir = static_cast<uint32_t>(tc < c);
  } else {
    const uint32_t twice = 2 * (tc >= c ? tc - c : tc + k - c);
    // Going + when that is shorter; both ways are minimal when it is half way round.
    const uint32_t tie = hashed ? (hash >> (d + 3)) & 1u : 0u;
    dir = static_cast<uint32_t>(twice > k) | (static_cast<uint32_t>(twice == k) & tie);
  }
  const uint32_t channels = dim_[d].channels.divisor();
  const uint32_t ch = channels == 1 ? 0 : dim_[d].channels.mod(hashed ? hash >> 10 : dst);
  const uint32_t port = dim_[d].port + dir * channels + ch;
  // The wraparound link (k-1 -> 0 going +, 0 -> k-1 going -) is the dateline; the class is
  // kept while the packet stays in one dimension.
  const uint32_t wraps = dir == 0 ? static_cast<uint32_t>(c + 1 == k) : static_cast<uint32_t>(c == 0);
  const uint32_t crossed = (static_cast<uint32_t>(state.dim == d) & state.crossed) | (torus && dateline_ ? wraps : 0u);
  state.crossed = static_cast<uint8_t>(crossed);
  state.dim = static_cast<uint8_t>(d);
  Route out{static_cast<uint16_t>(port), 0, static_cast<uint8_t>(vcs_)};
  if (algo_ == RoutingAlgo::kAdaptive) {
    // Escape network: one VC per dateline class.
    out.vc_lo = torus && dateline_ ? static_cast<uint8_t>(crossed) : 0;
    out.vc_hi = out.vc_lo + 1;
  } else if (torus && dateline_) {
    const uint32_t half = vcs_ / 2;
    out.vc_lo = static_cast<uint8_t>(crossed * half);
    out.vc_hi = static_cast<uint8_t>(half + crossed * (vcs_ - half));
  }
  return out;
}

Route Routing::adaptive_cube(RouterId r, RouterId target, EndpointId dst, uint32_t hash, RouteState& state,
                             const int32_t* free_credits, uint32_t wire_bytes) const {
  const Topology& t = *topo_;
  if (state.escape || free_credits == nullptr) return dimension_order(r, target, dst, hash, state, false);
  // Minimal adaptive: every productive (dimension, direction, channel); the one with the most
  // free adaptive-VC credit wins, ties to dimension order. No adaptive VC able to take the
  // whole packet anywhere -> escape network for the rest of the route.
  const bool torus = t.kind() == TopologyKind::kTorus;
  int64_t best_free = -1;
  Route best{};
  for (uint32_t d = 0; d < t.dims().size(); ++d) {
    const uint32_t c = t.coord(r, d);
    const uint32_t tc = t.coord(target, d);
    if (c == tc) continue;
    const uint32_t k = t.dims()[d];
    bool dirs[2] = {false, false};
    if (!torus) {
      dirs[tc > c ? 0 : 1] = true;
    } else {
      const uint32_t delta = tc >= c ? tc - c : tc + k - c;
      dirs[0] = 2 * delta <= k;
      dirs[1] = 2 * delta >= k;
    }
    for (uint32_t dir = 0; dir < 2; ++dir) {
      if (!dirs[dir]) continue;
      for (uint32_t ch = 0; ch < t.channels()[d]; ++ch) {
        const uint32_t port = t.torus_port(d, dir, ch);
        int64_t total = 0;
        bool fits = false;
        for (uint32_t v = escape_vcs_; v < vcs_; ++v) {
          const int32_t f = free_credits[port * vcs_ + v];
          total += f;
          fits = fits || f >= static_cast<int32_t>(wire_bytes);
        }
        if (fits && total > best_free) {
          best_free = total;
          best = Route{static_cast<uint16_t>(port), static_cast<uint8_t>(escape_vcs_), static_cast<uint8_t>(vcs_)};
        }
      }
    }
  }
  if (best_free < 0) {
    state.escape = 1;
    return dimension_order(r, target, dst, hash, state, false);
  }
  state.dim = 0xff;  // adaptive hops do not count towards a dateline
  state.crossed = 0;
  return best;
}

Route Routing::route_tree(RouterId r, EndpointId dst, uint32_t hash, const int32_t* free_credits) const {
  // The level's radices as multipliers: no division on this path.
  const Topology& t = *topo_;
  const NodeId n = nics_per_node_.div(dst);
  const TreeLevel& level = tree_levels_[t.level_of(r)];
  if (level.below.div(n) == t.subtree_of(r)) {
    // Down: the digit of the destination at this level. (Level 1 is handled by route().)
    const uint32_t port = level.down.mod(level.below_prev.div(n));
    return {static_cast<uint16_t>(port), 0, static_cast<uint8_t>(vcs_)};
  }
  const uint32_t ups = level.ups.divisor();
  const uint32_t dmodk = level.ups.mod(level.stride.div(n));
  uint32_t j = dmodk;
  if (algo_ == RoutingAlgo::kRandom) {
    j = level.ups.mod(mix_hash((uint64_t{hash} << 32) ^ r));
  } else if (algo_ == RoutingAlgo::kAdaptiveUp && free_credits != nullptr) {
    int64_t best = -1;
    for (uint32_t i = 0; i < ups; ++i) {
      const uint32_t cand = dmodk + i < ups ? dmodk + i : dmodk + i - ups;
      const uint32_t port = level.down_ports + cand;
      int64_t total = 0;
      for (uint32_t v = 0; v < vcs_; ++v)
        total += free_credits[port * vcs_ + v];
      if (total > best) {
        best = total;
        j = cand;
      }
    }
  }
  return {static_cast<uint16_t>(level.down_ports + j), 0, static_cast<uint8_t>(vcs_)};
}

}  // namespace mgen::net
