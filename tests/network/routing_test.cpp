#include <catch2/catch.hpp>

#include <functional>
#include <map>
#include <random>
#include <set>

#include "harness.hpp"

using namespace mgen::test;

namespace {

struct Hop {
  uint32_t out_gp;  // global output port taken
  Route route;
};

// Follows a routing function from src to dst without an engine.
std::vector<Hop> walk(const Topology& t, const Routing& routing, EndpointId src, EndpointId dst, uint32_t hash,
                      const std::vector<int32_t>* credits = nullptr) {
  std::vector<Hop> hops;
  RouteState state;
  RouterId r = t.endpoint_router(src);
  for (int guard = 0; guard < 1000; ++guard) {
    const int32_t* view = credits ? &(*credits)[size_t{t.port_base(r)} * routing.vcs()] : nullptr;
    const Route route = routing.route(r, dst, hash, state, view, 2080);
    const uint32_t gp = t.port_base(r) + route.port;
    hops.push_back(Hop{gp, route});
    const PortLink& l = t.link_at(gp);
    if (l.kind == PeerKind::kEndpoint) {
      REQUIRE(l.peer == dst);
      return hops;
    }
    REQUIRE(l.kind == PeerKind::kRouter);
    r = l.peer;
  }
  FAIL("route did not terminate");
  return hops;
}

// Every routing on every topology, with 4 VCs and parallel links on the torus.
std::vector<std::pair<NetworkConfig, std::string>> combos() {
  std::vector<std::pair<NetworkConfig, std::string>> out = all_routings();
  for (auto& [c, label] : out) {
    c.router.vcs = 4;
    c.topology.channels = c.topology.kind == "torus" ? std::vector<uint32_t>{2, 1, 2} : std::vector<uint32_t>{};
  }
  return out;
}

}  // namespace

TEST_CASE("every routing reaches every destination on a minimal path", "[routing]") {
  std::mt19937_64 rng(3);
  for (const auto& [config, label] : combos()) {
    INFO(label);
    const Topology t = Topology::build(config);
    const Routing routing(t, config.router);
    std::vector<int32_t> credits(size_t{t.total_ports()} * routing.vcs());
    for (EndpointId a = 0; a < t.endpoints(); ++a) {
      for (EndpointId b = 0; b < t.endpoints(); ++b) {
        for (int trial = 0; trial < 2; ++trial) {
          for (int32_t& c : credits)
            c = static_cast<int32_t>(rng() % 8000);
          const auto hops = walk(t, routing, a, b, static_cast<uint32_t>(rng()), trial ? &credits : nullptr);
          REQUIRE(hops.size() == t.router_hops(a, b) + 1);
          for (const Hop& h : hops) {
            REQUIRE(h.route.vc_lo < h.route.vc_hi);
            REQUIRE(h.route.vc_hi <= routing.vcs());
          }
        }
      }
    }
  }
}

TEST_CASE("routing names that do not fit the topology are refused", "[routing][errors]") {
  NetworkConfig c = simple_config("torus");
  c.router.routing = "dmodk";
  const Topology t = Topology::build(c);
  CHECK_THROWS_AS(Routing(t, c.router), ConfigError);
  c.router.routing = "adaptive";
  c.router.vcs = 2;  // needs 2 escape + 1 adaptive on a torus
  CHECK_THROWS_AS(Routing(t, c.router), ConfigError);
  c.router.routing = "dor";
  c.router.vcs = 1;  // dateline needs two classes
  CHECK_THROWS_AS(Routing(t, c.router), ConfigError);
  c.router.routing = "bogus";
  c.router.vcs = 2;
  CHECK_THROWS_WITH(Routing(t, c.router), Catch::Contains("valid: dor, hashed, adaptive"));
}

namespace {

// Channel dependency graph of DOR over (output port, VC class): Dally & Seitz — routing is
// deadlock-free if this graph has no cycle.
bool dependency_graph_has_cycle(const NetworkConfig& config) {
  const Topology t = Topology::build(config);
  const Routing routing(t, config.router);
  std::map<std::pair<uint32_t, uint32_t>, std::set<std::pair<uint32_t, uint32_t>>> edges;
  for (EndpointId a = 0; a < t.endpoints(); ++a) {
    for (EndpointId b = 0; b < t.endpoints(); ++b) {
      const auto hops = walk(t, routing, a, b, 0);
      for (size_t i = 1; i < hops.size(); ++i) {
        edges[{hops[i - 1].out_gp, hops[i - 1].route.vc_lo}].insert({hops[i].out_gp, hops[i].route.vc_lo});
      }
    }
  }
  std::map<std::pair<uint32_t, uint32_t>, int> color;  // 0 new, 1 on stack, 2 done
  std::function<bool(std::pair<uint32_t, uint32_t>)> dfs = [&](std::pair<uint32_t, uint32_t> n) {
    color[n] = 1;
    for (const auto& m : edges[n]) {
      if (color[m] == 1) return true;
      if (color[m] == 0 && dfs(m)) return true;
    }
    color[n] = 2;
    return false;
  };
  for (const auto& [node, _] : edges) {
    if (color[node] == 0 && dfs(node)) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("dateline VCs make dimension-order routing on a torus acyclic", "[routing][deadlock]") {
  NetworkConfig c = simple_config("torus");
  c.topology.dims = {5, 4};
  CHECK_FALSE(dependency_graph_has_cycle(c));
  c.router.routing = "hashed";
  CHECK_FALSE(dependency_graph_has_cycle(c));
  // Without the dateline the rings close on themselves.
  c.router.routing = "dor";
  c.router.dateline = false;
  c.router.vcs = 1;
  CHECK(dependency_graph_has_cycle(c));
  // A mesh needs no dateline.
  c.topology.kind = "mesh";
  CHECK_FALSE(dependency_graph_has_cycle(c));
}

TEST_CASE("fat-tree routes go up, then only down", "[routing]") {
  NetworkConfig c = simple_config("fattree");
  for (const char* algo : {"dmodk", "random", "adaptive_up"}) {
    c.router.routing = algo;
    const Topology t = Topology::build(c);
    const Routing routing(t, c.router);
    std::vector<int32_t> credits(size_t{t.total_ports()} * routing.vcs(), 100);
    for (EndpointId a = 0; a < t.endpoints(); ++a) {
      for (EndpointId b = 0; b < t.endpoints(); ++b) {
        bool descending = false;
        for (const Hop& h : walk(t, routing, a, b, a * 131 + b, &credits)) {
          const bool up = t.link_at(h.out_gp).kind == PeerKind::kRouter && t.link_at(h.out_gp).dim == 1;
          if (!up) descending = true;
          REQUIRE(!(descending && up));
        }
      }
    }
  }
}

TEST_CASE("d-mod-k sends all traffic for one destination through one top switch, balanced", "[routing]") {
  NetworkConfig c = simple_config("fattree");  // 4-ary 3-tree: 16 top switches
  c.router.routing = "dmodk";
  const Topology t = Topology::build(c);
  const Routing routing(t, c.router);
  std::map<RouterId, int> load;
  for (EndpointId b = 0; b < t.endpoints(); ++b) {
    std::set<RouterId> tops;
    for (EndpointId a = 0; a < t.endpoints(); ++a) {
      if (t.router_hops(a, b) != 4) continue;
      for (const Hop& h : walk(t, routing, a, b, 0)) {
        const PortLink& l = t.link_at(h.out_gp);
        if (l.kind == PeerKind::kRouter && t.level_of(l.peer) == 3) tops.insert(l.peer);
      }
    }
    REQUIRE(tops.size() == 1);
    ++load[*tops.begin()];
  }
  REQUIRE(load.size() == 16);
  for (const auto& [top, n] : load)
    CHECK(n == 4);
}
