// The backend registry, swept: every backend is built from its row, schedules only the event
// kinds reserved for it, delivers every message of a contended burst (and reports it in its
// totals), and an unknown name is refused with the list of known ones.
#include <catch2/catch.hpp>

#include <set>
#include <string>

#include "harness.hpp"

using namespace mgen::test;

TEST_CASE("every registered backend delivers a contended burst using only its own event kinds", "[backend]") {
  REQUIRE(backend_registry().size() >= 3);
  std::set<std::string> names;
  for (const BackendEntry& b : backend_registry()) {
    INFO(b.name);
    CHECK(names.insert(b.name).second);
    CHECK(std::string(b.description).size() > 10);
    CHECK(find_backend(b.name) == &b);
    NetworkConfig c = simple_config("torus");
    c.backend = b.name;
    c.analytic.nic_contention = true;  // the analytic backend's only contention: the NICs
    Harness h(c);
    // Another owner's kinds come after the network's: none of them is the network's.
    const mgen::simcore::KindRange other = h.engine.reserve_kinds(4);
    CHECK(other.end - other.begin == 4);
    for (uint16_t k = other.begin; k < other.end; ++k)
      CHECK_FALSE(h.net.owns(k));
    CHECK(std::string(h.net.backend_name()) == b.name);
    // Everyone sends 3 packets' worth to endpoint 0 and to its mirror: contention at the hot spot.
    const EndpointId n = h.net.topology().endpoints();
    uint64_t bytes = 0;
    for (EndpointId e = 1; e < n; ++e) {
      h.send(e, 0, 5000);
      h.send(e, n - e, 777);
      bytes += 5777;
    }
    uint64_t foreign = 0;
    h.engine.run([&](const mgen::simcore::Event& e) {
      if (!h.net.owns(e.kind)) ++foreign;
      h.net.dispatch(e);
    });
    CHECK(foreign == 0);
    CHECK(h.net.packets_in_flight() == 0);
    for (const auto& [id, r] : h.records) {
      CHECK(r.sent <= r.delivered);
      CHECK(r.delivered < Time::max());
    }
    const NetworkTotals t = h.net.totals();
    CHECK(t.messages_injected == 2 * (n - 1));
    CHECK(t.messages_delivered == 2 * (n - 1));
    CHECK(t.payload_bytes == bytes);
    // The hot spot serialises: the last delivery to endpoint 0 is far beyond one message's
    // zero-load time, whatever the backend's contention model.
    Time last;
    for (const auto& [id, r] : h.records)
      last = mgen::simcore::max(last, r.delivered);
    CHECK(last > h.net.zero_load(1, 0, Bytes(5000)).delivered * 4);
  }
}

TEST_CASE("an unknown backend is refused, naming every registered one", "[backend]") {
  NetworkConfig c = simple_config("torus");
  c.backend = "flowz";
  std::string known;
  for (const BackendEntry& b : backend_registry())
    known += (known.empty() ? "auto, " : ", ") + std::string(b.name);
  CHECK_THROWS_WITH(validate(c), "unknown backend 'flowz' (known: " + known + ")");
  CHECK(find_backend("flowz") == nullptr);
}
