#include <catch2/catch.hpp>

#include <set>

#include "mgen/net/network.hpp"
#include "mgen/traffic/traffic.hpp"

using namespace mgen;
using simcore::Bandwidth;
using simcore::Bytes;
using simcore::Time;

namespace {

net::NetworkConfig small_torus() {
  net::NetworkConfig c;
  c.topology.dims = {4, 4, 4};
  return c;
}

}  // namespace

TEST_CASE("deterministic patterns are the permutations their definitions say", "[traffic]") {
  const net::NetworkConfig c = small_torus();
  const net::Topology t = net::Topology::build(c);
  const traffic::TrafficOptions o;
  std::set<uint32_t> seen;
  for (uint32_t s = 0; s < 64; ++s) {
    const uint32_t d = traffic::destination("transpose", t, s, 0, o);
    // 6-bit index (y2 y1 y0 x2 x1 x0) -> (x2 x1 x0 y2 y1 y0): an involution.
    CHECK(d == (((s & 7) << 3) | (s >> 3)));
    CHECK(traffic::destination("transpose", t, d, 0, o) == s);
    seen.insert(d);
    CHECK(traffic::destination("bitcomp", t, s, 0, o) == (~s & 63));
    const uint32_t n = traffic::destination("neighbor", t, s, 0, o);
    CHECK(t.router_hops(s, n) == 1);
    CHECK(t.coord(n, 0) == (t.coord(s, 0) + 1) % 4);
  }
  CHECK(seen.size() == 64);
}

TEST_CASE("uniform never picks the source; hotspot follows its fraction", "[traffic]") {
  const net::Topology t = net::Topology::build(small_torus());
  traffic::TrafficOptions o;
  o.hotspot = 5;
  o.hotspot_fraction = 0.25;
  uint64_t r = 1;
  int hot = 0;
  for (int i = 0; i < 40000; ++i) {
    r = r * 6364136223846793005ULL + 1442695040888963407ULL;
    CHECK(traffic::destination("uniform", t, 9, r, o) != 9);
    hot += traffic::destination("hotspot", t, 9, r, o) == 5;
  }
  CHECK(hot / 40000.0 == Approx(0.25 + 0.75 / 63).epsilon(0.05));
}

TEST_CASE("bad patterns are refused", "[traffic][errors]") {
  net::NetworkConfig c = small_torus();
  c.topology.dims = {3, 3};
  const net::Topology t = net::Topology::build(c);
  CHECK_THROWS_WITH(traffic::destination("transpose", t, 0, 0, {}), Catch::Contains("power-of-two"));
  CHECK_THROWS_WITH(traffic::destination("tornado2", t, 0, 0, {}), Catch::Contains("known: uniform"));
  traffic::TrafficOptions o;
  o.load = 0;
  CHECK_THROWS_AS(traffic::run_traffic(small_torus(), o), std::invalid_argument);
}

TEST_CASE("light load is accepted in full at near zero-load latency", "[traffic]") {
  const net::NetworkConfig c = small_torus();
  traffic::TrafficOptions o;
  o.load = 0.05;
  const traffic::TrafficResult r = traffic::run_traffic(c, o);
  CHECK_FALSE(r.saturated);
  CHECK(r.completed == r.measured);
  CHECK(r.accepted == Approx(0.05).epsilon(0.15));
  // Average zero-load latency of a full packet over uniform pairs, from the analytic oracle.
  struct Null : net::MessageSink {
    void on_message_sent(uint64_t, Time) override {}
    void on_message_delivered(uint64_t, Time) override {}
  } sink;
  simcore::Engine engine;
  net::NetworkModel net(engine, c, sink);
  double sum = 0;
  for (uint32_t a = 0; a < 64; ++a) {
    for (uint32_t b = 0; b < 64; ++b) {
      if (a != b) sum += net.zero_load(a, b, c.nic.packet_payload).delivered.nanoseconds();
    }
  }
  const double zero_load = sum / (64 * 63);
  CHECK(r.latency_mean_ns >= zero_load * 0.95);
  CHECK(r.latency_mean_ns <= zero_load * 1.25);
}

TEST_CASE("offering more than the injection links carry saturates", "[traffic]") {
  traffic::TrafficOptions o;
  o.load = 1.5;
  o.measure = Time::us(20);
  o.drain_limit = Time::us(20);
  const traffic::TrafficResult r = traffic::run_traffic(small_torus(), o);
  CHECK(r.saturated);
  CHECK(r.accepted < 1.05);
  o.pattern = "hotspot";  // 64 sources into one ejection link
  o.load = 0.1;
  CHECK(traffic::run_traffic(small_torus(), o).saturated);
}

TEST_CASE("traffic runs are reproducible", "[traffic][determinism]") {
  traffic::TrafficOptions o;
  o.load = 0.4;
  const traffic::TrafficResult a = traffic::run_traffic(small_torus(), o);
  const traffic::TrafficResult b = traffic::run_traffic(small_torus(), o);
  CHECK(a.events == b.events);
  CHECK(a.latency_mean_ns == b.latency_mean_ns);
  CHECK(a.latency_max_ns == b.latency_max_ns);
  CHECK(a.accepted == b.accepted);
  o.seed = 2;
  CHECK(traffic::run_traffic(small_torus(), o).events != a.events);
}

TEST_CASE("a permutation saturates at the inverse of its busiest channel's load", "[traffic][contention]") {
  // Independent bound: walk every source's route, count flows per link; with links as fast as
  // the injection links a permutation cannot be accepted above 1 / (max flows on one link).
  net::NetworkConfig c;
  c.topology.dims = {8, 8, 8};
  const net::Topology t = net::Topology::build(c);
  const net::Routing routing(t, c.router);
  for (const char* pattern : {"bitcomp", "transpose"}) {
    std::vector<int> flows(t.total_ports());
    for (uint32_t s = 0; s < t.endpoints(); ++s) {
      const uint32_t d = traffic::destination(pattern, t, s, 0, {});
      net::RouteState state;
      for (net::RouterId r = t.endpoint_router(s);;) {
        const uint32_t gp = t.port_base(r) + routing.route(r, d, 0, state, nullptr, 0).port;
        ++flows[gp];
        if (t.link_at(gp).kind != net::PeerKind::kRouter) break;
        r = t.link_at(gp).peer;
      }
    }
    const double bound = 1.0 / *std::max_element(flows.begin(), flows.end());
    INFO(pattern << ": channel-load bound " << bound);
    traffic::TrafficOptions o;
    o.pattern = pattern;
    o.load = std::min(1.0, bound * 1.6);
    o.drain_limit = Time::us(20);
    const traffic::TrafficResult r = traffic::run_traffic(c, o);
    CHECK(r.saturated);
    CHECK(r.accepted == Approx(bound).epsilon(0.06));
  }
}

TEST_CASE("benchmark mode times exactly the events asked for and accepts what is offered", "[traffic]") {
  // Below saturation a network delivers what its sources offer: the accepted load over the timed
  // stretch must match the offered 0.2 (Poisson sources, a few thousand messages: within 5%).
  traffic::TrafficOptions o;
  o.pattern = "neighbor";
  o.load = 0.2;
  o.warmup = Time::us(5);
  o.steady_events = 20000;
  const traffic::TrafficResult r = traffic::run_traffic(small_torus(), o);
  CHECK(r.steady_events == 20000);
  CHECK(r.steady_simulated > Time::zero());
  CHECK(r.steady_accepted == Approx(0.2).epsilon(0.05));
  CHECK(r.steady_hops > 0);
  CHECK(r.steady_cpu_s >= 0);
  // The same run again gives the same events and hops: the mode is deterministic.
  const traffic::TrafficResult again = traffic::run_traffic(small_torus(), o);
  CHECK(again.steady_hops == r.steady_hops);
  CHECK(again.steady_simulated == r.steady_simulated);
}
