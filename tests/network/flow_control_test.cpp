// Contention, fairness and credit flow control against closed forms.
#include <catch2/catch.hpp>

#include <random>
#include <vector>

#include "harness.hpp"

using namespace mgen::test;
using mgen::simcore::transfer_time;

namespace {
Time ser(uint64_t bytes, Bandwidth bw = Bandwidth::gigabytes_per_second(4)) {
  return transfer_time(Bytes(bytes), bw);
}

// Random traffic between the 64 endpoints, injected in bursts with the engine run for up to
// `max_gap_ns` between messages, then drained. Returns every message's sent and delivered
// times, in ps.
std::vector<int64_t> random_bursts(Harness& h, uint64_t seed, int messages, uint64_t max_bytes, uint64_t max_gap_ns) {
  std::mt19937_64 rng(seed);
  for (int i = 0; i < messages; ++i) {
    h.send(static_cast<EndpointId>(rng() % 64), static_cast<EndpointId>(rng() % 64), rng() % max_bytes);
    h.engine.run([&](const mgen::simcore::Event& e) { h.net.dispatch(e); },
                 h.engine.now() + Time::ns(static_cast<int64_t>(rng() % max_gap_ns)));
  }
  h.run();
  std::vector<int64_t> out;
  for (const auto& [id, r] : h.records) {
    out.push_back(r.sent.count_ps());
    out.push_back(r.delivered.count_ps());
  }
  return out;
}
}  // namespace

TEST_CASE("two flows sharing a link get half of it each", "[contention]") {
  NetworkConfig c = simple_config("mesh");
  c.topology.dims = {2};
  c.topology.nodes_per_router = 2;  // endpoints 0,1 on router 0; 2,3 on router 1
  const uint64_t packets = 400, bytes = packets * 2048;

  Harness alone(c);
  const uint64_t solo = alone.send(0, 2, bytes);
  alone.run();

  Harness h(c);
  const uint64_t a = h.send(0, 2, bytes);
  const uint64_t b = h.send(1, 3, bytes);
  h.run();
  const Time ta = h.latency(a), tb = h.latency(b);
  // Round-robin alternates packets on the shared X link: both finish together, at twice the
  // solo streaming time.
  CHECK(std::max(ta, tb) - std::min(ta, tb) <= ser(2080));
  const Time fixed = alone.latency(solo) - ser(2080) * static_cast<int64_t>(packets);
  const Time shared = ser(2080) * static_cast<int64_t>(2 * packets);
  CHECK(std::max(ta, tb) >= fixed + shared);
  CHECK(std::max(ta, tb) <= fixed + shared + ser(2080) * 2);
  // The shared link was busy for exactly the serialisation of both messages.
  for (const LinkInfo& l : h.net.links()) {
    if (l.name == "router 0 +X -> router 1") CHECK(l.stats.busy == ser(2080) * static_cast<int64_t>(2 * packets));
  }
}

TEST_CASE("an N-to-1 hotspot is limited by the receiver", "[contention]") {
  const uint64_t senders = 8, packets = 100;
  SECTION("ejection link") {
    Harness h(simple_config("crossbar"));
    for (EndpointId s = 1; s <= senders; ++s)
      h.send(s, 0, packets * 2048);
    h.run();
    Time last;
    for (const auto& [id, r] : h.records)
      last = std::max(last, r.delivered);
    const Time streaming = ser(2080) * static_cast<int64_t>(senders * packets);
    CHECK(last >= streaming);
    CHECK(last <= streaming + Time::ns(1000));  // plus one path latency
  }
  SECTION("receive DMA") {
    NetworkConfig c = simple_config("crossbar");
    const Bandwidth dma = Bandwidth::gigabytes_per_second(1);
    c.nic.dma_bandwidth = dma;
    Harness h(c);
    for (EndpointId s = 1; s <= senders; ++s)
      h.send(s, 0, packets * 2048);
    h.run();
    Time last;
    for (const auto& [id, r] : h.records)
      last = std::max(last, r.delivered);
    const Time draining = ser(2048, dma) * static_cast<int64_t>(senders * packets);
    CHECK(last >= draining);
    CHECK(last <= draining + ser(2048, dma) * 2 + Time::ns(1000));
  }
}

TEST_CASE("full buffers push back on the senders", "[flow-control]") {
  const uint64_t senders = 8, packets = 200;
  Harness solo(simple_config("crossbar"));
  const uint64_t s = solo.send(1, 0, packets * 2048);
  solo.run();
  const Time alone = solo.records[s].sent;

  Harness h(simple_config("crossbar"));
  for (EndpointId e = 1; e <= senders; ++e)
    h.send(e, 0, packets * 2048);
  h.run();
  // Without back-pressure every sender would be done after `alone`; with it, a sender can only
  // run ahead of the receiver by the buffers between them (one 32 KiB VC pair + 64 KiB NIC).
  const Time drain = ser(2080) * static_cast<int64_t>(senders * packets);
  const Time slack = ser(2080) * static_cast<int64_t>(2 * 32768 / 2080 + 65536 / 2080 + 2) * senders;
  for (const auto& [id, r] : h.records) {
    CHECK(r.sent > alone * 4);
    CHECK(r.sent >= drain - slack);
  }
}

TEST_CASE("a one-packet buffer throttles a stream to the credit round trip", "[flow-control]") {
  NetworkConfig c = simple_config("mesh");
  c.topology.dims = {3};
  c.nic.link_latency = Time::us(1);  // the NIC-to-router credit loop dominates
  c.router.vc_buffer = Bytes(2080);  // exactly one packet per VC
  c.router.vcs = 1;
  const Time head = Time::ns(140);
  auto time_for = [&](uint64_t packets) {
    Harness h(c);
    const uint64_t id = h.send(0, 2, packets * 2048);
    h.run();
    return h.latency(id);
  };
  // Next packet leaves the NIC when the previous one's credit is back: two NIC link latencies,
  // the router's head delay and one serialisation per packet.
  const Time period = Time::us(2) + head + ser(2080);
  CHECK(time_for(30) - time_for(10) == period * 20);
}

TEST_CASE("parking lot: round-robin is locally fair, age arbitration globally fair", "[contention]") {
  // Endpoints 0, 1 and 2 of a 4-router line all stream to endpoint 3. Round-robin at router 2
  // gives the local flow half the link and the two through-flows a quarter each, so the local
  // flow finishes at 2M/B and the others at 3M/B. Oldest-first gives each a third: all finish
  // together at 3M/B.
  const uint64_t packets = 300;
  auto finish = [&](const char* arbitration) {
    NetworkConfig c = simple_config("mesh");
    c.topology.dims = {4};
    c.router.arbitration = arbitration;
    Harness h(c);
    std::vector<Time> out;
    for (EndpointId s = 0; s < 3; ++s)
      h.send(s, 3, packets * 2048);
    h.run();
    for (const auto& [id, r] : h.records)
      out.push_back(r.delivered);
    return out;
  };
  const double m = static_cast<double>((ser(2080) * static_cast<int64_t>(packets)).count_ps());
  const std::vector<Time> rr = finish("round_robin");
  CHECK(rr[2].count_ps() / m == Approx(2.0).epsilon(0.03));
  CHECK(rr[0].count_ps() / m == Approx(3.0).epsilon(0.03));
  CHECK(rr[1].count_ps() / m == Approx(3.0).epsilon(0.03));
  const std::vector<Time> age = finish("age");
  for (const Time& t : age)
    CHECK(t.count_ps() / m == Approx(3.0).epsilon(0.03));
}

TEST_CASE("two runs of the same traffic are bit-identical", "[determinism]") {
  auto run = [](const std::string& routing) {
    NetworkConfig c = simple_config("torus");
    c.router.routing = routing;
    c.router.vcs = 3;
    c.router.vc_buffer = Bytes(4160);
    Harness h(c);
    std::vector<int64_t> out = random_bursts(h, 42, 3000, 20000, 50);
    for (const LinkInfo& l : h.net.links())
      out.push_back(l.stats.busy.count_ps());
    out.push_back(static_cast<int64_t>(h.engine.events_processed()));
    return out;
  };
  for (const char* routing : {"dor", "hashed", "adaptive"}) {
    INFO(routing);
    CHECK(run(routing) == run(routing));
  }
}

TEST_CASE("the event calendar's bucket width changes the speed and never a picosecond", "[determinism][engine]") {
  // Every backend, the same bursty traffic, with the calendar at the width the model picks and
  // at 1 ns, 4 ns, 16 ns and 262 ns: the same sent and delivered times and the same events.
  auto run = [](const std::string& backend, int shift) {
    NetworkConfig c = simple_config("torus");
    c.backend = backend;
    c.analytic.nic_contention = backend == "analytic";
    Harness h(c);
    if (shift >= 0) h.engine.set_bucket_shift(static_cast<unsigned>(shift));
    std::vector<int64_t> out = random_bursts(h, 5, 2000, 30000, 80);
    out.push_back(static_cast<int64_t>(h.engine.events_processed()));
    return out;
  };
  for (const BackendEntry& b : backend_registry()) {
    INFO(b.name);
    const std::vector<int64_t> picked = run(b.name, -1);
    for (int shift : {10, 12, 14, 18})
      CHECK(run(b.name, shift) == picked);
    // The model picks by backend: packet hops a nanosecond apart (2^10 ps), messages wider.
    NetworkConfig c = simple_config("torus");
    c.backend = b.name;
    CHECK(Harness(c).engine.bucket_shift() == b.bucket_shift);
    CHECK(b.bucket_shift == (std::string(b.name) == "packet" ? 10u : 14u));
  }
}
