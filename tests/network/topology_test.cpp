#include <catch2/catch.hpp>

#include <deque>

#include "harness.hpp"

using namespace mgen::test;

namespace {

// Router-to-router hop distances by breadth-first search over the built links: an independent
// check of the closed forms in Topology.
std::vector<uint32_t> bfs(const Topology& t, RouterId from) {
  std::vector<uint32_t> dist(t.routers(), kNoId);
  std::deque<RouterId> queue{from};
  dist[from] = 0;
  while (!queue.empty()) {
    const RouterId r = queue.front();
    queue.pop_front();
    for (uint32_t p = 0; p < t.ports(r); ++p) {
      const PortLink& l = t.link(r, p);
      if (l.kind != PeerKind::kRouter || dist[l.peer] != kNoId) continue;
      dist[l.peer] = dist[r] + 1;
      queue.push_back(l.peer);
    }
  }
  return dist;
}

std::vector<NetworkConfig> shapes() {
  std::vector<NetworkConfig> out;
  auto torus = [&](std::vector<uint32_t> dims, const std::string& kind = "torus", uint32_t conc = 1,
                   uint32_t nics = 1) {
    NetworkConfig c = simple_config(kind);
    c.topology.dims = std::move(dims);
    c.topology.nodes_per_router = conc;
    c.nic.nics_per_node = nics;
    out.push_back(c);
  };
  torus({4, 4, 4});
  torus({5, 3});
  torus({2, 3, 1, 2});
  torus({7});
  torus({2, 2, 2, 2, 2, 3});
  torus({4, 3, 2}, "mesh");
  torus({3, 3}, "torus", 2, 2);
  NetworkConfig ft = simple_config("fattree");
  out.push_back(ft);
  ft.topology.down = {8, 4};
  ft.topology.up = {2};
  out.push_back(ft);
  ft.topology.down = {2, 3, 2, 2};
  ft.topology.up = {2, 1, 3};
  ft.nic.nics_per_node = 2;
  out.push_back(ft);
  out.push_back(simple_config("crossbar"));
  return out;
}

}  // namespace

TEST_CASE("every link is wired symmetrically and every endpoint attached once", "[topology]") {
  for (const NetworkConfig& c : shapes()) {
    const Topology t = Topology::build(c);
    INFO(t.describe());
    for (RouterId r = 0; r < t.routers(); ++r) {
      for (uint32_t p = 0; p < t.ports(r); ++p) {
        const PortLink& l = t.link(r, p);
        if (l.kind == PeerKind::kRouter) {
          const PortLink& back = t.link(l.peer, l.peer_port);
          REQUIRE(back.kind == PeerKind::kRouter);
          REQUIRE(back.peer == r);
          REQUIRE(back.peer_port == p);
          REQUIRE(back.bandwidth == l.bandwidth);
        } else if (l.kind == PeerKind::kEndpoint) {
          REQUIRE(t.endpoint_router(l.peer) == r);
          REQUIRE(t.endpoint_port(l.peer) == p);
        }
      }
    }
    for (EndpointId e = 0; e < t.endpoints(); ++e) {
      const PortLink& l = t.link(t.endpoint_router(e), t.endpoint_port(e));
      REQUIRE(l.kind == PeerKind::kEndpoint);
      REQUIRE(l.peer == e);
    }
  }
}

TEST_CASE("hop counts and diameter match breadth-first search", "[topology]") {
  for (const NetworkConfig& c : shapes()) {
    const Topology t = Topology::build(c);
    INFO(t.describe());
    uint32_t diameter = 0;
    for (EndpointId a = 0; a < t.endpoints(); ++a) {
      const std::vector<uint32_t> dist = bfs(t, t.endpoint_router(a));
      for (EndpointId b = 0; b < t.endpoints(); ++b) {
        REQUIRE(t.router_hops(a, b) == dist[t.endpoint_router(b)]);
        diameter = std::max(diameter, dist[t.endpoint_router(b)]);
      }
    }
    CHECK(t.diameter() == diameter);
  }
}

TEST_CASE("sizes of the standard shapes", "[topology]") {
  NetworkConfig c = simple_config("torus");
  c.topology.dims = {17, 8, 24};
  c.topology.nodes_per_router = 2;
  c.topology.channels = {2, 1, 2};
  Topology hopper = Topology::build(c);
  CHECK(hopper.routers() == 3264);
  CHECK(hopper.nodes() == 6528);
  CHECK(hopper.diameter() == 24);  // PPT §6: 8 + 4 + 12
  CHECK(hopper.ports(0) == 2 + 2 * 2 + 2 * 1 + 2 * 2);

  NetworkConfig ft = simple_config("fattree");  // 4-ary 3-tree
  const Topology tree = Topology::build(ft);
  CHECK(tree.nodes() == 64);
  CHECK(tree.routers() == 3 * 16);
  CHECK(tree.diameter() == 4);
}

TEST_CASE("bisection bandwidth closed forms", "[topology]") {
  const uint64_t gb4 = 4000000000ULL;
  NetworkConfig c = simple_config("torus");
  c.topology.dims = {4, 4};
  // Cutting a 4x4 torus in half crosses 4 rows x 2 (wraparound) links.
  CHECK(Topology::build(c).bisection_bandwidth().bytes_per_s() == 8 * gb4);
  c.topology.kind = "mesh";
  CHECK(Topology::build(c).bisection_bandwidth().bytes_per_s() == 4 * gb4);
  NetworkConfig ft = simple_config("fattree");  // full bisection: N/2 links
  CHECK(Topology::build(ft).bisection_bandwidth().bytes_per_s() == 32 * gb4);
  ft.topology.down = {16, 8};
  ft.topology.up = {4};  // 4:1 oversubscribed leaves: 8 leaves x 4 uplinks / 2
  CHECK(Topology::build(ft).bisection_bandwidth().bytes_per_s() == 16 * gb4);
}

TEST_CASE("impossible topologies are refused with the key at fault", "[topology][errors]") {
  auto key_of = [](NetworkConfig c) -> std::string {
    try {
      Topology::build(c);
    } catch (const ConfigError& e) {
      return e.key();
    }
    return "accepted";
  };
  NetworkConfig c = simple_config("torus");
  c.topology.dims = {};
  CHECK(key_of(c) == "topology.dims");
  c.topology.dims = {2, 2, 2, 2, 2, 2, 2};
  CHECK(key_of(c) == "topology.dims");
  c.topology.dims = {4, 0};
  CHECK(key_of(c) == "topology.dims");
  c.topology.dims = {4, 4};
  c.topology.channels = {1};
  CHECK(key_of(c) == "topology.channels");
  c.topology.channels = {};
  c.topology.link_bandwidth = {Bandwidth::gigabytes_per_second(1), Bandwidth::gigabytes_per_second(1),
                               Bandwidth::gigabytes_per_second(1)};
  CHECK(key_of(c) == "topology.link_bandwidth");
  c = simple_config("fattree");
  c.topology.up = {4};
  CHECK(key_of(c) == "topology.up");
  c.topology.up = {4, 0};
  CHECK(key_of(c) == "topology.up");
  c = simple_config("crossbar");
  c.topology.crossbar_nodes = 0;
  CHECK(key_of(c) == "topology.nodes");
  c = simple_config("hypercube");
  CHECK(key_of(c) == "topology.kind");
  c = simple_config("torus");
  c.router.vc_buffer = Bytes(1000);
  CHECK(key_of(c) == "router.vc_buffer");
  c = simple_config("torus");
  c.nic.link_bandwidth = Bandwidth::bytes_per_second(0);
  CHECK(key_of(c) == "nic.link_bandwidth");
}
