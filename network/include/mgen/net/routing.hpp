// Routing functions: pure functions of (topology, router, destination, the packet's routing
// state, and - for adaptive choices only - the router's free output credits). They are
// unit-tested without an engine. Deadlock rules live here: dateline virtual-channel classes
// on tori, an escape class for minimal adaptive routing, up*/down* order on fat trees.
#pragma once

#include <cstdint>
#include <vector>

#include "mgen/net/fast_div.hpp"
#include "mgen/net/topology.hpp"

namespace mgen::net {

// splitmix64's finalizer: a stateless hash that spreads packets over ports and paths.
constexpr uint32_t mix_hash(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return static_cast<uint32_t>(x ^ (x >> 31));
}

enum class RoutingAlgo : uint8_t { kDor, kHashed, kAdaptive, kDmodk, kRandom, kAdaptiveUp };

struct RoutingEntry {
  const char* name;
  const char* description;
  RoutingAlgo algo;
  bool for_cube;  // mesh and torus
  bool for_tree;  // fat tree and crossbar
};
const std::vector<RoutingEntry>& routing_registry();

// Per-packet routing state, carried with the packet from hop to hop.
struct RouteState {
  uint8_t dim = 0xff;   // dimension the packet is travelling in
  uint8_t crossed = 0;  // crossed the dateline in that dimension
  uint8_t escape = 0;   // adaptive routing: the packet fell back to the escape (DOR) network
  bool operator==(const RouteState&) const = default;
};

// Where the packet goes next: an output port and the range of downstream VCs it may take.
struct Route {
  uint16_t port = 0;
  uint8_t vc_lo = 0;
  uint8_t vc_hi = 1;  // exclusive
};

class Routing {
 public:
  // Resolves config.routing (empty = the topology's default) and checks the VC count it needs.
  Routing(const Topology& topology, const RouterConfig& config);

  RoutingAlgo algo() const { return algo_; }
  const char* name() const;
  uint32_t vcs() const { return vcs_; }
  bool adaptive() const { return algo_ == RoutingAlgo::kAdaptive || algo_ == RoutingAlgo::kAdaptiveUp; }
  // The route depends on the router, the destination and the routing state only (never on the
  // packet's hash or on credits), so every packet of a message takes the same path.
  bool per_destination() const { return algo_ == RoutingAlgo::kDor || algo_ == RoutingAlgo::kDmodk; }
  // VCs a NIC may inject into at the first router.
  Route injection_vcs() const;

  // The next hop from router `r` towards endpoint `dst`. `state` is updated as if the packet
  // takes this hop. `free_credits` (indexed port * vcs + vc, for router r) is read only by
  // adaptive algorithms and may be null, in which case they behave deterministically.
  Route route(RouterId r, EndpointId dst, uint32_t hash, RouteState& state, const int32_t* free_credits,
              uint32_t wire_bytes) const;

 private:
  // Minimal adaptive on a mesh or torus, with its dimension-order escape network.
  Route adaptive_cube(RouterId r, RouterId target, EndpointId dst, uint32_t hash, RouteState& state,
                      const int32_t* free_credits, uint32_t wire_bytes) const;
  Route route_tree(RouterId r, EndpointId dst, uint32_t hash, const int32_t* free_credits) const;
  Route dimension_order(RouterId r, RouterId target, EndpointId dst, uint32_t hash, RouteState& state,
                        bool hashed) const;

  // Per dimension, what dimension-order routing reads on every hop, in one place.
  struct Dim {
    uint32_t k = 1;     // routers along the dimension
    FastDiv channels;   // parallel links per direction
    uint32_t port = 0;  // port of channel 0 going + (going - adds `channels`)
  };

  // Fat trees, per level l (index 1..h): the divisions d-mod-k routing makes on every hop,
  // each by a constant of the level.
  struct TreeLevel {
    FastDiv below;       // nodes_below(l): the subtree a destination is in at this level
    FastDiv below_prev;  // nodes_below(l - 1)
    FastDiv down;        // down_count(l): the destination's digit at this level
    FastDiv stride;      // up_stride(l)
    FastDiv ups;         // up_count(l) (1 at the top, which has no up ports)
    uint32_t down_ports = 0;
  };

  const Topology* topo_;
  std::vector<Dim> dim_;
  FastDiv nics_per_node_;
  std::vector<TreeLevel> tree_levels_;
  RoutingAlgo algo_;
  uint32_t vcs_;
  bool dateline_;
  uint32_t escape_vcs_ = 0;  // adaptive on cubes: VCs [0, escape_vcs_) form the escape network
};

}  // namespace mgen::net
