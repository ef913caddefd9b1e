// Heavy all-to-all load with tiny buffers: deadlock-free routings must drain every packet;
// a torus without dateline VCs must (and does) deadlock, and the network says where.
#include <catch2/catch.hpp>

#include "harness.hpp"

using namespace mgen::test;

namespace {

void all_to_all(Harness& h, uint64_t bytes) {
  const uint32_t n = h.net.topology().endpoints();
  for (EndpointId a = 0; a < n; ++a) {
    for (EndpointId b = 0; b < n; ++b) {
      if (a != b) h.send(a, b, bytes);
    }
  }
}

}  // namespace

TEST_CASE("all-to-all on tori drains with dateline, hashed and adaptive routing", "[deadlock]") {
  for (const std::vector<uint32_t>& dims : {std::vector<uint32_t>{4, 4}, {3, 5}, {4, 4, 4}, {8}}) {
    for (const char* routing : {"dor", "hashed", "adaptive"}) {
      NetworkConfig c = simple_config("torus");
      c.topology.dims = dims;
      c.topology.channels.assign(dims.size(), 1);
      c.topology.channels[0] = 2;
      c.router.routing = routing;
      c.router.vcs = std::string(routing) == "adaptive" ? 3 : 2;
      c.router.vc_buffer = Bytes(2080);  // one packet per VC: maximal pressure
      c.nic.rx_buffer = Bytes(2080);
      Harness h(c);
      all_to_all(h, 3 * 2048);
      INFO(routing << " on " << h.net.topology().describe());
      REQUIRE_NOTHROW(h.run());
      const uint64_t n = h.net.topology().endpoints();
      CHECK(h.net.totals().messages_delivered == n * (n - 1));
    }
  }
}

TEST_CASE("all-to-all on fat trees and meshes drains", "[deadlock]") {
  for (const char* kind : {"fattree", "mesh", "crossbar"}) {
    for (const char* routing : {"", "adaptive_up", "random"}) {
      const bool tree = std::string(kind) != "mesh";
      if (!tree && std::string(routing) != "") continue;
      NetworkConfig c = simple_config(kind);
      c.topology.dims = {4, 4};
      c.router.routing = routing;
      c.router.vcs = 1;
      c.router.vc_buffer = Bytes(2080);
      c.nic.rx_buffer = Bytes(2080);
      Harness h(c);
      all_to_all(h, 3 * 2048);
      INFO(kind << " " << routing);
      REQUIRE_NOTHROW(h.run());
    }
  }
}

TEST_CASE("a torus without dateline VCs deadlocks, and the report names the stuck buffers", "[deadlock]") {
  NetworkConfig c = simple_config("torus");
  c.topology.dims = {6};
  c.router.dateline = false;
  c.router.vcs = 1;
  c.router.vc_buffer = Bytes(2080);
  c.nic.rx_buffer = Bytes(2080);
  Harness h(c);
  for (EndpointId a = 0; a < 6; ++a)
    h.send(a, (a + 2) % 6, 64 * 2048);  // every flow turns the ring the same way
  try {
    h.run();
    FAIL("expected a deadlock");
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    CHECK_THAT(what, Catch::Contains("deadlocked"));
    CHECK_THAT(what, Catch::Contains("waits for out-port"));
  }
  // The same pattern with the dateline drains.
  c.router.dateline = true;
  c.router.vcs = 2;
  Harness ok(c);
  for (EndpointId a = 0; a < 6; ++a)
    ok.send(a, (a + 2) % 6, 64 * 2048);
  CHECK_NOTHROW(ok.run());
}
