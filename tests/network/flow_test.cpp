// The flow backend against closed forms: one message on an idle network takes exactly the
// zero-load pipeline; flows sharing resources get their max-min shares (two on one link, N to
// one receiver, a parking lot with unequal shares, a rate that rises when a competitor ends);
// and the incremental solver agrees with re-solving every flow from scratch.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <tuple>
#include <vector>

#include "harness.hpp"

using namespace mgen::test;
using mgen::simcore::transfer_time;

namespace {

// Exact max-min: every change solved when it happens (no pacing, no mice, no head-of-line
// waits; their own tests below).
NetworkConfig flow_config(const std::string& kind) {
  NetworkConfig c = simple_config(kind);
  c.backend = "flow";
  c.flow.solve_pace = Time::zero();
  c.flow.mouse_bytes = Bytes(0);
  c.flow.hol_wait = 0;
  return c;
}

// Wire bytes of a message, and its bandwidth time alone at 4 GB/s (250 ps per byte).
uint64_t wire(uint64_t bytes) {
  const uint64_t packets = bytes == 0 ? 1 : (bytes + 2047) / 2048;
  return bytes + 32 * packets;
}
Time alone(uint64_t bytes) {
  return Time::ps(static_cast<int64_t>(wire(bytes) * 250));
}

}  // namespace

TEST_CASE("flow: one message on an idle network takes the zero-load closed form", "[flow]") {
  for (auto [c, label] : all_routings()) {
    c.backend = "flow";
    {
      for (const uint64_t bytes : {0ul, 1ul, 2048ul, 5000ul, 1ul << 20}) {
        for (const auto& [a, b] : {std::pair{0u, 1u}, {3u, 60u}, {15u, 2u}}) {
          INFO(label << ", " << bytes << " B from " << a << " to " << b);
          Harness h(c);
          const EndpointId n = h.net.topology().endpoints();
          const uint64_t id = h.send(a % n, b % n, bytes);
          h.run();
          const auto zl = h.net.zero_load(a % n, b % n, Bytes(bytes));
          CHECK(h.records[id].sent == zl.sent);
          CHECK(h.records[id].delivered == zl.delivered);
        }
      }
    }
  }
}

TEST_CASE("flow: a sender faster than the route reports sent before its bytes are through", "[flow]") {
  // Router links at half the NIC's rate: the NIC is done sending long before the bottleneck is,
  // so sent comes from the milestone inside the bandwidth phase, not after it. Alone and beside
  // a second message (which stretches both phases), sent stays before delivered.
  NetworkConfig c = flow_config("torus");
  c.topology.link_bandwidth = {Bandwidth::gigabytes_per_second(2)};
  for (const uint64_t bytes : {100ul, 2048ul, 1ul << 20}) {
    INFO(bytes << " B");
    Harness h(c);
    const uint64_t id = h.send(0, 21, bytes);
    h.run();
    const auto zl = h.net.zero_load(0, 21, Bytes(bytes));
    CHECK(h.records[id].sent == zl.sent);
    CHECK(h.records[id].delivered == zl.delivered);
    Harness g(c);
    const uint64_t a = g.send(0, 21, bytes), b = g.send(1, 22, bytes);
    g.run();
    for (const uint64_t m : {a, b}) {
      CHECK(g.records[m].sent < g.records[m].delivered);
      CHECK(g.records[m].delivered >= zl.delivered);
    }
  }
}

TEST_CASE("flow: hand-computed zero-load latency across the torus", "[flow]") {
  // 4x4x4 torus, endpoint 0 at (0,0,0) to endpoint 21 at (1,1,1): 3 router links, 4 routers.
  Harness h(flow_config("torus"));
  const uint64_t id = h.send(0, 21, 5000);
  h.run();
  const Time head = Time::ns(140);
  // Head: two NIC links, three router links, four routers; then the last two packets stream
  // behind the first (the 1 TB/s DMA is never the bottleneck).
  const Time expected = Time::ns(10) * 2 + Time::ps(600) * 3 + head * 4 +
                        transfer_time(Bytes(2080), Bandwidth::gigabytes_per_second(4)) * 2 +
                        transfer_time(Bytes(5000 - 4096 + 32), Bandwidth::gigabytes_per_second(4));
  CHECK(h.latency(id) == expected);
}

TEST_CASE("flow: two flows on one link get half each", "[flow]") {
  // Endpoint 0 sends to 1 and to 2 at once: they share its injection link.
  Harness h(flow_config("crossbar"));
  const uint64_t bytes = 64 * 2048;
  const uint64_t a = h.send(0, 1, bytes), b = h.send(0, 2, bytes);
  h.run();
  const Time zl = h.net.zero_load(0, 1, Bytes(bytes)).delivered;
  // Each moves its bytes at half speed: one more bandwidth time than alone.
  CHECK(h.latency(a) == zl + alone(bytes));
  CHECK(h.latency(b) == zl + alone(bytes));
}

TEST_CASE("flow: N to one is limited by the receiver", "[flow]") {
  for (const uint32_t n : {2u, 3u, 7u, 15u}) {
    INFO(n << " senders");
    Harness h(flow_config("crossbar"));
    const uint64_t bytes = 10 * 2048;
    std::vector<uint64_t> ids;
    for (uint32_t s = 1; s <= n; ++s)
      ids.push_back(h.send(s, 0, bytes));
    h.run();
    const Time zl = h.net.zero_load(1, 0, Bytes(bytes)).delivered;
    // The ejection link is shared n ways: n bandwidth times instead of one (to the picosecond,
    // up to rounding of 1/n).
    for (uint64_t id : ids) {
      const int64_t expected = (zl + alone(bytes) * (n - 1)).count_ps();
      CHECK(std::llabs(h.latency(id).count_ps() - expected) <= 2);
    }
    // The receiver's link was busy for all of it: n x bytes at 4 GB/s.
    Time last;
    for (uint64_t id : ids)
      last = mgen::simcore::max(last, h.records[id].delivered);
    CHECK(last >= alone(bytes) * n);
  }
}

TEST_CASE("flow: a parking lot gets exact max-min shares, and rates rise when competitors end", "[flow]") {
  // A line of four routers (mesh 4x1x1), two endpoints on each: router k holds 2k and 2k+1.
  NetworkConfig c = flow_config("mesh");
  c.topology.dims = {4};
  c.topology.nodes_per_router = 2;
  Harness h(c);
  const uint64_t s = 60 * 2048;
  // The long flow crosses links r0->r1, r1->r2, r2->r3. Link r1->r2 also carries two short flows,
  // so it is the long flow's bottleneck at 1/3; r0->r1 and r2->r3 each carry the long flow and one
  // short flow, which gets the remaining 2/3 (max-min, not 1/2).
  const uint64_t longf = h.send(0, 6, s);
  const uint64_t mid1 = h.send(2, 4, s), mid2 = h.send(3, 5, s);
  const uint64_t left = h.send(1, 2, s), right = h.send(5, 7, s);
  h.run();
  const Time x = alone(s);
  auto near = [](Time got, Time want) { return std::llabs(got.count_ps() - want.count_ps()) <= 3; };
  const Time zl_left = h.net.zero_load(1, 2, Bytes(s)).delivered;
  const Time zl_mid = h.net.zero_load(2, 4, Bytes(s)).delivered;
  const Time zl_long = h.net.zero_load(0, 6, Bytes(s)).delivered;
  // The 2/3 flows take 1.5 bandwidth times; the 1/3 flows 3, even after the 2/3 ones end (their
  // bottleneck r1->r2 stays shared three ways).
  CHECK(near(h.latency(left), zl_left + Time::ps(x.count_ps() / 2)));
  CHECK(near(h.latency(right), h.net.zero_load(5, 7, Bytes(s)).delivered + Time::ps(x.count_ps() / 2)));
  CHECK(near(h.latency(mid1), zl_mid + x * 2));
  CHECK(near(h.latency(mid2), h.net.zero_load(3, 5, Bytes(s)).delivered + x * 2));
  CHECK(near(h.latency(longf), zl_long + x * 2));

  // A rate that rises: two flows on one injection link, one three times as long. The short one
  // ends after two bandwidth times (half speed); the long one has done one of its three and
  // finishes the other two at full speed: four in all.
  Harness g(flow_config("crossbar"));
  const uint64_t small = 16 * 2048;
  const uint64_t a = g.send(0, 1, small), b = g.send(0, 2, 3 * small);
  g.run();
  const Time xs = alone(small);
  CHECK(g.latency(a) == g.net.zero_load(0, 1, Bytes(small)).delivered + xs);
  CHECK(g.latency(b) == g.net.zero_load(0, 2, Bytes(3 * small)).delivered + xs);
}

TEST_CASE("flow: a shift around a ring equals the packet model with oldest-first arbitration", "[flow]") {
  // A ring of 8 routers, one endpoint each; every endpoint sends 256 KiB to the one s hops ahead
  // (the same direction for all: DOR takes + for the tie at s = 4), all at once. Every link
  // carries s flows, one injected there and s - 1 passing through; max-min gives each 1/s. The
  // packet model with oldest-first arbitration (globally fair: a packet waits no longer than
  // older ones) agrees message by message. With the default round robin it does not for s >= 3:
  // an output serves its injection input and its through input in turn, half each, so the
  // injected flow outruns the s - 1 through flows, the through buffers fill and their heads
  // block the packets behind them (on the default 8x8x8 torus, 512 KiB: 362 us at s = 3
  // against 161 us; docs/validation.md). The flow backend models the fair sharing only.
  const uint64_t bytes = 256 * 1024;
  for (uint32_t s = 1; s <= 4; ++s) {
    NetworkConfig c = flow_config("torus");
    c.topology.dims = {8};
    NetworkConfig p = simple_config("torus");
    p.topology.dims = {8};
    p.router.arbitration = "age";
    Harness flow(c), packet(p);
    for (uint32_t e = 0; e < 8; ++e) {
      flow.send(e, (e + s) % 8, bytes);
      packet.send(e, (e + s) % 8, bytes);
    }
    flow.run();
    packet.run();
    for (uint64_t id = 0; id < 8; ++id) {
      INFO("shift " << s << ", message " << id << ": flow " << flow.latency(id).count_ps() << " ps, packet "
                    << packet.latency(id).count_ps() << " ps");
      const double err = std::abs(
          static_cast<double>(flow.latency(id).count_ps()) / static_cast<double>(packet.latency(id).count_ps()) - 1);
      CHECK(err < 0.002);
    }
    // s bandwidth times of the message, as max-min has it.
    CHECK(flow.latency(0) == flow.net.zero_load(0, s, Bytes(bytes)).delivered + alone(bytes) * (s - 1));
  }
}

TEST_CASE("flow: head-of-line waits divide an input's capacity by its closed form", "[flow]") {
  // One crossbar router. Endpoints 0 and 1 each send to 2 and 3: each injection input feeds two
  // outputs, and each output is fed by two inputs, so an input's head packet waits while the
  // other input uses its output. Its capacity is its link's / (1 + w (1 - 1/2)), shared by its
  // two flows. An input waits only when two or more of its outputs are fed by other inputs too.
  const uint64_t bytes = 64 * 2048;
  for (const double w : {0.0, 0.29, 0.6}) {
    INFO("hol_wait " << w);
    NetworkConfig c = flow_config("crossbar");
    c.flow.hol_wait = w;
    Harness h(c);
    const uint64_t a = h.send(0, 2, bytes), b = h.send(0, 3, bytes);
    const uint64_t d = h.send(1, 2, bytes), e = h.send(1, 3, bytes);
    h.run();
    const Time zl = h.net.zero_load(0, 2, Bytes(bytes)).delivered;
    // Each flow moves at 1 / (2 (1 + w / 2)) of the link: its bandwidth time stretches by that.
    const double stretch = 2 * (1 + w / 2);
    const int64_t expected = zl.count_ps() + std::llround(static_cast<double>(alone(bytes).count_ps()) * (stretch - 1));
    for (uint64_t id : {a, b, d, e})
      CHECK(std::llabs(h.latency(id).count_ps() - expected) <= 2);

    // One sender to the same two outputs: nobody else feeds them, half each as without waits.
    Harness one(c);
    const uint64_t x = one.send(0, 2, bytes), y = one.send(0, 3, bytes);
    one.run();
    CHECK(one.latency(x) == zl + alone(bytes));
    CHECK(one.latency(y) == zl + alone(bytes));
    // Endpoint 0 to 2 and 3, endpoint 1 to 2: endpoint 0's input feeds one output that another
    // input feeds and one that nobody else does; its head's waits for the first fall in the
    // turns it takes at the second (a ring's shift by 2 in the packet model loses nothing so),
    // so no wait: half each, as without waits.
    Harness mixed(c);
    const uint64_t m1 = mixed.send(0, 2, bytes), m2 = mixed.send(0, 3, bytes), m3 = mixed.send(1, 2, bytes);
    mixed.run();
    for (uint64_t id : {m1, m2, m3})
      CHECK(std::llabs(mixed.latency(id).count_ps() - (zl + alone(bytes)).count_ps()) <= 2);
    // Two senders to one output: each input feeds one output, so its head never blocks
    // another output; the receiver's link is shared as without waits.
    Harness fan(c);
    const uint64_t p = fan.send(0, 2, bytes), q = fan.send(1, 2, bytes);
    fan.run();
    CHECK(std::llabs(fan.latency(p).count_ps() - (zl + alone(bytes)).count_ps()) <= 2);
    CHECK(std::llabs(fan.latency(q).count_ps() - (zl + alone(bytes)).count_ps()) <= 2);
  }
}

TEST_CASE("flow: head-of-line waits bring a fat tree's neighbour exchange to the packet model", "[flow]") {
  // Every endpoint of the 4-ary 3-tree sends 256 KiB to each of its next k on a ring and
  // receives from the k before it, all at once (bench/flow/kreg.c, docs/validation.md). No link
  // carries more than its max-min share, and max-min alone is 12-20% faster than the packet
  // model here: the inputs' head packets wait for outputs other inputs use. hol_wait was fitted
  // on one crossbar (kreg on 16 endpoints of one switch, one sender skewed by 10 ns); this
  // machine, three levels of switches, was not used to fit it.
  const uint64_t bytes = 256 * 1024;
  for (const uint32_t k : {2u, 3u, 4u}) {
    NetworkConfig packet_config = simple_config("fattree");
    NetworkConfig flow_hol = flow_config("fattree");
    flow_hol.flow.hol_wait = 0.29;
    NetworkConfig flow_pure = flow_config("fattree");
    auto last = [&](const NetworkConfig& c) {
      Harness h(c);
      for (uint32_t e = 0; e < 64; ++e)
        for (uint32_t i = 1; i <= k; ++i)
          h.send(e, (e + i) % 64, bytes);
      h.run();
      Time t;
      for (const auto& [id, r] : h.records)
        t = mgen::simcore::max(t, r.delivered);
      return static_cast<double>(t.count_ps());
    };
    const double packet = last(packet_config), hol = last(flow_hol), pure = last(flow_pure);
    INFO("k " << k << ": packet " << packet << " ps, flow " << hol << " ps, without waits " << pure << " ps");
    // Measured (2026-11-28): k = 2, 3, 4 within 1.7%, 6.2%, 4.2% of the packet model; without
    // waits 13.7%, 20.2%, 19.4% faster.
    CHECK(std::abs(hol / packet - 1) < 0.07);
    CHECK(pure / packet < 0.9);  // what the waits correct
  }
}

TEST_CASE("flow: links are shared a packet at a time, as the routers' round robin does", "[flow]") {
  // A one-packet message (a rendezvous request: 8 B of payload, 40 B on the wire) leaves beside a
  // long message of full packets. Taking turns a packet each, it waits one full packet of the
  // other: its bandwidth time is 2080 + 40 bytes at 4 GB/s, not a share of its own 40.
  Harness h(flow_config("crossbar"));
  const uint64_t big = h.send(0, 1, 200 * 2048);
  const uint64_t small = h.send(0, 2, 8);
  h.run();
  const Time expected = h.net.zero_load(0, 2, Bytes(8)).delivered + alone(2048);
  CHECK(std::llabs(h.latency(small).count_ps() - expected.count_ps()) <= 3);
  // The long one lost one packet's worth of its link to it.
  CHECK(std::llabs(h.latency(big).count_ps() -
                   (h.net.zero_load(0, 1, Bytes(200 * 2048)).delivered + alone(8)).count_ps()) <= 3);
}

namespace {

using Send = std::tuple<Time, EndpointId, EndpointId, uint64_t>;  // at, source, destination, bytes

// Injects each message at its time (`sends` in order of time) and runs the network until idle.
void run_sends(Harness& h, const std::vector<Send>& sends) {
  const uint16_t kind_send = h.engine.reserve_kinds(1).begin;
  for (size_t i = 0; i < sends.size(); ++i)
    h.engine.schedule(std::get<0>(sends[i]), kind_send, 0, 0, i);
  h.engine.run([&](const mgen::simcore::Event& e) {
    if (e.kind == kind_send) {
      const auto& [at, s, d, bytes] = sends[e.data];
      h.send(s, d, bytes);
    } else {
      h.net.dispatch(e);
    }
  });
  REQUIRE(h.net.packets_in_flight() == 0);
}

// Waves of random messages, some at the same picosecond, of many sizes, on any backend; the
// delivery times, and (when asked) the sizes.
std::vector<Time> waves(const NetworkConfig& c, std::vector<uint64_t>* sizes = nullptr) {
  Harness h(c);
  const EndpointId n = h.net.topology().endpoints();
  std::mt19937 rng(7);
  std::vector<Send> sends;
  for (int i = 0; i < 600; ++i) {
    const Time at = Time::ns(static_cast<int64_t>(rng() % 40) * 250);
    const EndpointId s = rng() % n;
    EndpointId d = rng() % n;
    if (d == s) d = (d + 1) % n;
    const uint64_t bytes = (rng() % 4 == 0) ? 8 : (rng() % 200) * 1000 + 1;
    sends.emplace_back(at, s, d, bytes);
  }
  std::sort(sends.begin(), sends.end());
  run_sends(h, sends);
  if (sizes != nullptr) {
    for (const Send& m : sends)
      sizes->push_back(std::get<3>(m));
  }
  std::vector<Time> delivered;
  for (const auto& [id, r] : h.records)
    delivered.push_back(r.delivered - r.injected);
  return delivered;
}

// The waves on the flow backend.
std::vector<Time> random_waves(const std::string& kind, bool reference, double tolerance, Time pace = Time::zero(),
                               uint64_t pace_from = 0, uint64_t mouse_bytes = 0, double hol_wait = 0) {
  NetworkConfig c = flow_config(kind);
  c.flow.mouse_bytes = Bytes(mouse_bytes);
  c.flow.hol_wait = hol_wait;
  c.flow.reference = reference;
  c.flow.tolerance = tolerance;
  c.flow.solve_pace = pace;
  c.flow.pace_from = pace_from;
  return waves(c);
}

}  // namespace

TEST_CASE("flow: a mouse alone takes the closed form when its sender is faster than its route", "[flow]") {
  // Router links slower than the NIC: sent comes before the bytes are through (ls < 0), from
  // the mouse's own pace. Every size a mouse can have, at two link rates, to the picosecond
  // (a division by the work once put sent a picosecond late: 213 B at 3 GB/s).
  for (const uint64_t gbs : {2ul, 3ul}) {
    NetworkConfig c = flow_config("torus");
    c.flow.mouse_bytes = Bytes(256);
    c.topology.link_bandwidth = {Bandwidth::gigabytes_per_second(gbs)};
    for (uint64_t bytes = 0; bytes <= 256; ++bytes) {
      INFO(gbs << " GB/s, " << bytes << " B");
      Harness h(c);
      const uint64_t id = h.send(0, 21, bytes);
      h.run();
      const auto zl = h.net.zero_load(0, 21, Bytes(bytes));
      CHECK(h.net.totals().mice == 1);
      CHECK(h.records[id].sent == zl.sent);
      CHECK(h.records[id].delivered == zl.delivered);
    }
  }
}

TEST_CASE("flow: a mouse takes the share it finds and leaves the other flows' rates alone", "[flow]") {
  NetworkConfig c = flow_config("crossbar");
  c.flow.mouse_bytes = Bytes(256);
  {
    // Beside a long message: the mouse waits one full packet of it, as exact max-min says (the
    // test above), without a solve; the long one keeps its rate (it is not charged the mouse's
    // 40 bytes, which exact max-min charges it).
    Harness h(c);
    const uint64_t big = h.send(0, 1, 200 * 2048);
    const uint64_t small = h.send(0, 2, 8);
    h.run();
    const Time expected = h.net.zero_load(0, 2, Bytes(8)).delivered + alone(2048);
    CHECK(std::llabs(h.latency(small).count_ps() - expected.count_ps()) <= 3);
    CHECK(h.latency(big) == h.net.zero_load(0, 1, Bytes(200 * 2048)).delivered);
    CHECK(h.net.totals().solves == 1);
    CHECK(h.net.totals().mice == 1);
  }
  for (const uint32_t n : {2u, 7u, 15u}) {
    // n mice into one receiver at once: they take turns at its ejection link, so the k-th is
    // through after k of their packets and the last when exact max-min (all n sharing the link
    // until the end) has every one through.
    INFO(n << " mice");
    Harness h(c), exact(flow_config("crossbar"));
    std::vector<uint64_t> ids, exact_ids;
    for (uint32_t s = 1; s <= n; ++s) {
      ids.push_back(h.send(s, 0, 8));
      exact_ids.push_back(exact.send(s, 0, 8));
    }
    h.run();
    exact.run();
    const Time zl = h.net.zero_load(1, 0, Bytes(8)).delivered;
    for (uint32_t k = 0; k < n; ++k)
      CHECK(h.latency(ids[k]) == zl + alone(8) * k);
    CHECK(std::llabs(h.latency(ids.back()).count_ps() - exact.latency(exact_ids.back()).count_ps()) <= 2);
    CHECK(h.net.totals().solves == 0);
    CHECK(h.net.totals().mice == n);
  }
  {
    // flow.mouse_bytes = 0 solves every message, empty ones too.
    Harness h(flow_config("crossbar"));
    h.send(0, 1, 0);
    h.run();
    CHECK(h.net.totals().solves == 1);
    CHECK(h.net.totals().mice == 0);
  }
}

TEST_CASE("flow: an input whose waits end gets its whole link back", "[flow]") {
  // An input's capacity moves in steps of at least 3% of its link, so a small wait may be left
  // as it is; a wait of zero must not be. Endpoint 0's first two messages share their outputs
  // with endpoint 11's (waits: its capacity drops), ten more to outputs nobody else uses
  // dilute the wait to 2.4% of the link, then the first two end (no wait left, a step under 3%).
  // Afterwards a lone message from endpoint 0 takes the closed form to the picosecond (before
  // the fix it ran at 97.6% of its link, for good).
  NetworkConfig c = flow_config("crossbar");
  c.flow.hol_wait = 0.29;
  Harness h(c);
  std::vector<Send> sends = {{Time::zero(), 11, 1, 400000},
                             {Time::zero(), 11, 2, 400000},
                             {Time::zero(), 0, 1, 65536},
                             {Time::zero(), 0, 2, 65536}};
  for (EndpointId d = 3; d <= 12; ++d)
    sends.emplace_back(Time::ns(d), 0, d, 100000);
  const Time late = Time::ms(2);
  sends.emplace_back(late, 0, 5, 65536);
  run_sends(h, sends);
  const uint64_t lone = sends.size() - 1;
  CHECK(h.records[lone].injected == late);
  CHECK(h.latency(lone) == h.net.zero_load(0, 5, Bytes(65536)).delivered);
}

TEST_CASE("flow: mice in random waves stay near exact max-min", "[flow]") {
  // The waves with their 8-byte messages as mice, against exact max-min solving them too, and
  // both against the packet backend (simple_config: the same machine).
  for (const std::string kind : {"torus", "fattree"}) {
    INFO(kind);
    std::vector<uint64_t> sizes;
    const std::vector<Time> packet = waves(simple_config(kind), &sizes);
    const std::vector<Time> exact = random_waves(kind, true, 0);
    const std::vector<Time> mice = random_waves(kind, false, 0, Time::zero(), 0, 256);
    REQUIRE(mice.size() == exact.size());
    REQUIRE(packet.size() == exact.size());
    double worst_long = 0, mouse_exact = 0, mouse_mice = 0;
    size_t n_mouse = 0;
    auto err = [](Time a, Time b) {
      return std::abs(static_cast<double>(a.count_ps() - b.count_ps())) / static_cast<double>(b.count_ps());
    };
    for (size_t i = 0; i < exact.size(); ++i) {
      if (sizes[i] <= 256) {
        mouse_exact += err(exact[i], packet[i]);
        mouse_mice += err(mice[i], packet[i]);
        ++n_mouse;
      } else {
        worst_long = std::max(worst_long, err(mice[i], exact[i]));
      }
    }
    mouse_exact /= static_cast<double>(n_mouse);
    mouse_mice /= static_cast<double>(n_mouse);
    INFO("long messages against exact: worst " << worst_long << "; mice against packet: mean error " << mouse_mice
                                               << " (exact max-min " << mouse_exact << ") over " << n_mouse);
    // Measured (2026-11-27): long messages within 0.54% (torus) and 0.88% (fat tree) of exact
    // max-min; the mice's mean error against the packet backend 49.7% and 52.5%, exact
    // max-min's 51.8% and 55.8% (a one-packet message under load is where a fluid model is
    // weakest, timed either way).
    CHECK(n_mouse > 100);
    CHECK(worst_long <= 0.01);
    CHECK(mouse_mice <= mouse_exact);
  }
}

TEST_CASE("flow: incremental sharing equals re-solving every flow", "[flow]") {
  for (const std::string kind : {"torus", "fattree"}) {
    for (const double hol : {0.0, 0.29}) {
      INFO(kind << ", hol_wait " << hol);
      // Exact max-min (no tolerance) against the reference mode, which re-solves every flow; with
      // head-of-line waits too, whose capacities change as flows come and go.
      const std::vector<Time> incremental = random_waves(kind, false, 0, Time::zero(), 0, 0, hol);
      const std::vector<Time> reference = random_waves(kind, true, 0, Time::zero(), 0, 0, hol);
      REQUIRE(incremental.size() == reference.size());
      size_t differ = 0;
      for (size_t i = 0; i < incremental.size(); ++i) {
        // The two solvers sum the same rates in other orders: allow a few picoseconds of rounding.
        const int64_t d = incremental[i].count_ps() - reference[i].count_ps();
        if (std::llabs(d) > 5) ++differ;
      }
      CHECK(differ == 0);
    }
  }
}

TEST_CASE("flow: the solver's epochs start again without changing a prediction", "[flow]") {
  // The solver marks flows and resources with 32-bit round numbers; a long run wraps them (FT
  // class D at 4,096 ranks makes hundreds of millions of solves), and a stale mark that meets
  // the new count would take a flow for one being solved, or a resource for one already
  // seeded. With the count wrapping after 40 to 1,000 rounds (the waves hold up to about 480
  // flow slots, so up to 300 the marks are cleared before almost every solve, at 600 and 1,000
  // after the count has built up over many), every delivery time equals the run that never
  // wraps, exact max-min and the defaults alike. Without the renumbering, or without clearing
  // the seeding marks, some differ.
  for (const std::string kind : {"torus", "fattree"}) {
    for (const bool exact : {true, false}) {
      NetworkConfig c = exact ? flow_config(kind) : simple_config(kind);
      c.backend = "flow";
      const std::vector<Time> once = waves(c);
      for (const uint32_t limit : {40u, 100u, 300u, 600u, 1000u}) {
        INFO(kind << (exact ? ", exact" : ", defaults") << ", epochs wrap at " << limit);
        c.flow.epoch_limit = limit;
        CHECK(waves(c) == once);
      }
    }
  }
}

TEST_CASE("flow: the solver's tolerance bounds the error against exact max-min", "[flow]") {
  for (const std::string kind : {"torus", "fattree"}) {
    INFO(kind);
    const std::vector<Time> exact = random_waves(kind, true, 0);
    for (const double tolerance : {0.001, 0.01}) {
      INFO("tolerance " << tolerance);
      const std::vector<Time> loose = random_waves(kind, false, tolerance);
      REQUIRE(loose.size() == exact.size());
      double worst = 0;
      size_t moved = 0;
      for (size_t i = 0; i < exact.size(); ++i) {
        const double e = static_cast<double>(exact[i].count_ps());
        const double err = std::abs(static_cast<double>(loose[i].count_ps()) - e) / e;
        worst = std::max(worst, err);
        if (err > 1e-9) ++moved;
      }
      // Measured (2026-11-27): worst 0.14% (torus) and 0.55% (fat tree) at 0.001, 0.40% and
      // 0.82% at 0.01; at 0.02 short messages moved by 12% and 21%, which is why the key stops
      // at 0.01.
      INFO("worst " << worst << ", " << moved << " of " << exact.size() << " messages moved");
      CHECK(worst <= 0.01);
      // and the tolerance is used: some messages do move (a test that could not fail otherwise)
      CHECK(moved > 0);
    }
  }
}

TEST_CASE("flow: a change re-solves only the flows it can affect, and the totals count that work", "[flow]") {
  // Max-min shares change only through shared resources: a start or an end re-solves the flows
  // that share a resource with it, not the network. Messages of 32 packets on a crossbar; the
  // second one starts halfway through the first, at one bandwidth time / 2.
  const uint64_t bytes = 32 * 2048;
  auto run = [&](EndpointId src2, EndpointId dst2) {
    Harness h(flow_config("crossbar"));
    run_sends(h, {{Time(), 0, 1, bytes}, {Time::ps(alone(bytes).count_ps() / 2), src2, dst2, bytes}});
    return h.net.totals();
  };
  {
    Harness h(flow_config("crossbar"));
    h.send(0, 1, bytes);
    h.run();
    CHECK(h.net.totals().solves == 1);  // its start; its end leaves no flow behind
    CHECK(h.net.totals().flows_resolved == 1);
  }
  {
    // Disjoint routes (2 -> 3 shares nothing with 0 -> 1): each start solves its own flow only.
    const NetworkTotals t = run(2, 3);
    CHECK(t.solves == 2);
    CHECK(t.flows_resolved == 2);
  }
  {
    // Both leave endpoint 0: the second start re-solves both (1 + 2), and the first one's end
    // frees the shared injection link for the second (1 more).
    const NetworkTotals t = run(0, 2);
    CHECK(t.solves == 3);
    CHECK(t.flows_resolved == 4);
  }
  {
    // Other backends do no such work.
    NetworkConfig c = flow_config("crossbar");
    c.backend = "packet";
    Harness h(c);
    h.send(0, 1, bytes);
    h.run();
    CHECK(h.net.totals().solves == 0);
    CHECK(h.net.totals().flows_resolved == 0);
  }
}

namespace {

// A linear all-to-all whose sends are posted one by one (an MPI send overhead apart): every
// endpoint of a crossbar sends `bytes` to every other, the k-th send at k x gap; deliveries
// (latency of each message) and the network's totals.
std::pair<std::vector<Time>, NetworkTotals> posted_all_to_all(Time pace, uint32_t n, uint64_t bytes, Time gap) {
  NetworkConfig c = flow_config("crossbar");
  c.flow.solve_pace = pace;
  c.flow.pace_from = 0;  // every solve is followed by a paced wait
  Harness h(c);
  REQUIRE(h.net.topology().endpoints() >= n);
  std::vector<Send> sends;
  for (uint32_t k = 1; k < n; ++k) {
    for (uint32_t s = 0; s < n; ++s)
      sends.emplace_back(gap * static_cast<int64_t>(k) + Time::ps(1013 * s), s, (s + k) % n, bytes);
  }
  run_sends(h, sends);
  std::vector<Time> latency;
  for (const auto& [id, r] : h.records)
    latency.push_back(r.delivered - r.injected);
  return {latency, h.net.totals()};
}

}  // namespace

TEST_CASE("flow: pacing bounds the solver's work under dense posts, and its error", "[flow]") {
  // 16 endpoints post 15 sends of 16 KiB each, 200 ns apart; one alone needs about 4.2 us, so
  // sends pile up at every NIC (up to 15 in flight each) and every start and end changes the
  // shares of the flows of two NICs. Exact max-min solves every change; paced, a solve waits
  // 100 ps per flow in flight (at most 2% of the time its flows still need).
  const auto [exact, te] = posted_all_to_all(Time::zero(), 16, 16 << 10, Time::ns(200));
  const auto [paced, tp] = posted_all_to_all(Time::ps(100), 16, 16 << 10, Time::ns(200));
  REQUIRE(exact.size() == paced.size());
  double worst = 0;
  Time last_exact, last_paced;
  for (size_t i = 0; i < exact.size(); ++i) {
    const double e = static_cast<double>(exact[i].count_ps());
    worst = std::max(worst, std::abs(static_cast<double>(paced[i].count_ps()) - e) / e);
    last_exact = mgen::simcore::max(last_exact, exact[i]);
    last_paced = mgen::simcore::max(last_paced, paced[i]);
  }
  INFO("solves " << te.solves << " -> " << tp.solves << ", flows re-solved " << te.flows_resolved << " -> "
                 << tp.flows_resolved << ", worst " << worst);
  // Measured (2026-11-27): solves 463 -> 148, flows re-solved 30,382 -> 9,877, worst 0.09%;
  // since full solves take the flows in slot order (their sums in another order): 464 -> 145,
  // 29,669 -> 9,981. Pacing re-solves well under half as many flows.
  CHECK(tp.flows_resolved * 5 < te.flows_resolved * 2);
  CHECK(tp.solves * 3 < te.solves);
  CHECK(worst <= 0.02);
  CHECK(worst > 0);  // pacing did act: a test that could not fail otherwise
  const double slowest = std::abs(static_cast<double>(last_paced.count_ps() - last_exact.count_ps())) /
                         static_cast<double>(last_exact.count_ps());
  CHECK(slowest <= 0.005);
}

TEST_CASE("flow: paced, random waves of short and long messages stay near exact max-min", "[flow]") {
  // Random waves of long and 8-byte messages. A start waits for the paced solve only when the
  // wait is at most 2% of the time it expects to take, so a short message among long ones is
  // solved at once. What pacing changes then reaches other messages only through the shares it
  // moved a little earlier or later. Every solve paced (pace_from 0), and the default (only
  // after solves of at least 256 flows: the waves' same-picosecond starts make some).
  for (const std::string kind : {"torus", "fattree"}) {
    const std::vector<Time> exact = random_waves(kind, true, 0);
    for (const uint64_t from : {0, 256}) {
      INFO(kind << ", pace_from " << from);
      const std::vector<Time> paced = random_waves(kind, false, 0.01, Time::ps(100), from);
      REQUIRE(paced.size() == exact.size());
      double worst = 0;
      size_t over = 0;
      for (size_t i = 0; i < exact.size(); ++i) {
        const double e = static_cast<double>(exact[i].count_ps());
        const double err = std::abs(static_cast<double>(paced[i].count_ps()) - e) / e;
        over += err > 0.02;
        worst = std::max(worst, err);
      }
      // Measured (2026-11-27), every solve paced: 3 (torus) and 10 (fat tree) of 600 messages
      // beyond 2%, worst 5.0% and 11.5% (an 8-byte message held behind long ones whose shares
      // moved); by default none beyond 2%, worst 0.48% and 0.94% (the tolerance's own error
      // against exact max-min is 0.40% and 0.82% here).
      INFO("worst " << worst << ", " << over << " of " << exact.size() << " beyond 2%");
      CHECK(over * 50 <= exact.size());
      CHECK(worst <= (from == 0 ? 0.15 : 0.02));
    }
  }
}

TEST_CASE("flow: a torus's dense exchange is within 15% of packet routers whose buffers hold it", "[flow]") {
  // Every endpoint of an 8x8 torus sends to all 63 others at once (4 KiB, then 32 KiB each); the
  // flow backend exact (no pacing, no mice) but with the default head-of-line waits. Flows have
  // no buffers; the packet routers' 2 x 16 KiB per input fill, and a flow held at a busy output
  // then holds every flow behind it in that FIFO and, through the credits, the upstream output
  // (docs/validation.md, "Buffers"). With 1 MiB per VC the FIFOs hold what is in flight, and the
  // flow backend comes within 15% of the packet model (measured 14.2% and 9.5%); with 16 KiB the
  // packet model takes 1.76x and 1.48x the flow backend's time. A model of the buffers' fill
  // would change the second check, on purpose.
  auto job_time = [](NetworkConfig c, uint64_t bytes) {
    c.topology.dims = {8, 8};
    Harness h(c);
    std::vector<uint64_t> ids;
    for (uint32_t s = 0; s < 64; ++s)
      for (uint32_t k = 1; k < 64; ++k)
        ids.push_back(h.send(s, (s + k) % 64, bytes));
    h.run();
    int64_t last = 0;
    for (const uint64_t id : ids)
      last = std::max(last, h.latency(id).count_ps());
    return static_cast<double>(last);
  };
  for (const uint64_t bytes : {uint64_t{4096}, uint64_t{32768}}) {
    NetworkConfig f = flow_config("torus");
    f.flow.hol_wait = FlowConfig{}.hol_wait;
    NetworkConfig deep = simple_config("torus"), shallow = simple_config("torus");
    deep.router.vc_buffer = Bytes(1 << 20);
    shallow.router.vc_buffer = Bytes(16384);
    const double flow = job_time(f, bytes), packet_deep = job_time(deep, bytes),
                 packet_shallow = job_time(shallow, bytes);
    INFO(bytes << " B: flow " << flow / 1e6 << " us, packet with 1 MiB buffers " << packet_deep / 1e6
               << " us, with 16 KiB " << packet_shallow / 1e6 << " us");
    CHECK(std::abs(flow / packet_deep - 1) < 0.15);
    CHECK(packet_shallow > 1.4 * flow);
  }
}
