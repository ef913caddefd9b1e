// Zero-load timing against closed forms (docs/network-model.md) and against the analytic backend.
#include <catch2/catch.hpp>

#include <random>

#include "harness.hpp"

using namespace mgen::test;
using mgen::simcore::transfer_time;

namespace {

const Time kNicLatency = Time::ns(10);
const Time kLinkLatency = Time::ps(600);
const Time kHead = Time::ns(4 + 4 + 4 + 128);  // RC + VA + SA + ST
const Bandwidth kB = Bandwidth::gigabytes_per_second(4);

Time ser(uint64_t bytes, Bandwidth bw = kB) {
  return transfer_time(Bytes(bytes), bw);
}

// Cut-through closed form for an idle network with one bandwidth everywhere: the head crosses
// n routers (n - 1 router links, two NIC links), then the packets stream behind it.
Time closed_form(uint32_t router_hops, uint64_t bytes) {
  const uint32_t n = router_hops + 1;
  const uint64_t full = bytes / 2048, rest = bytes % 2048;
  const uint64_t packets = bytes == 0 ? 1 : full + (rest ? 1 : 0);
  const uint64_t last = bytes == 0 ? 32 : (rest ? rest : 2048) + 32;
  return kNicLatency * 2 + kLinkLatency * (n - 1) + kHead * n + ser(2080) * static_cast<int64_t>(packets - 1) +
         ser(last);
}

// One message on an idle machine: the packet model and the analytic backend agree exactly.
void require_same_timing(const NetworkConfig& packet, EndpointId a, EndpointId b, uint64_t bytes) {
  NetworkConfig analytic = packet;
  analytic.backend = "analytic";
  Harness hp(packet), ha(analytic);
  const uint64_t ip = hp.send(a, b, bytes);
  const uint64_t ia = ha.send(a, b, bytes);
  hp.run();
  ha.run();
  INFO(a << " -> " << b << ", " << bytes << " bytes");
  REQUIRE(hp.records[ip].delivered == ha.records[ia].delivered);
  REQUIRE(hp.records[ip].sent == ha.records[ia].sent);
}

}  // namespace

TEST_CASE("one packet over h hops takes the closed-form time, every topology and routing", "[zero-load]") {
  for (const auto& [config, label] : all_routings()) {
    INFO(label);
    const Topology t = Topology::build(config);
    for (EndpointId b = 0; b < t.endpoints(); b += 7) {
      for (uint64_t bytes : {0, 4, 2048}) {
        Harness h(config);
        const uint64_t id = h.send(0, b, bytes);
        h.run();
        INFO("to endpoint " << b << ", " << bytes << " bytes, " << t.router_hops(0, b) << " hops");
        REQUIRE(h.latency(id) == closed_form(t.router_hops(0, b), bytes));
      }
    }
  }
}

TEST_CASE("a long message pipelines behind its head at link rate", "[zero-load]") {
  for (const auto& [config, label] : all_routings()) {
    if (label.rfind("dor", 0) != 0 && label.rfind("dmodk", 0) != 0) continue;  // one path per message
    INFO(label);
    const Topology t = Topology::build(config);
    const EndpointId far = t.endpoints() - 1;
    for (uint64_t bytes : {4096, 100000, 1 << 20}) {
      Harness h(config);
      const uint64_t id = h.send(0, far, bytes);
      h.run();
      INFO(bytes << " bytes over " << t.router_hops(0, far) << " hops");
      REQUIRE(h.latency(id) == closed_form(t.router_hops(0, far), bytes));
      // The sender is done when the last packet's tail leaves its NIC.
      const uint64_t packets = (bytes + 2047) / 2048;
      const uint64_t last = bytes - (packets - 1) * 2048 + 32;
      REQUIRE(h.records[id].sent - h.records[id].injected == ser(2080) * static_cast<int64_t>(packets - 1) + ser(last));
    }
  }
}

TEST_CASE("Hopper-style hop latency: 1.27 us nearest, 3.88 us farthest", "[zero-load]") {
  // PPT §6: 635 ns node-router links, 108.75 ns per torus hop, no router pipeline delay of its
  // own; the closed form without serialisation gives exactly the paper's numbers.
  NetworkConfig c = simple_config("torus");
  c.topology.dims = {17, 8, 24};
  c.topology.nodes_per_router = 2;
  c.topology.link_latency = Time::ps(108750);
  c.nic.link_latency = Time::ns(635);
  c.router.routing_delay = c.router.vc_alloc_delay = c.router.switch_alloc_delay = c.router.switch_delay = Time::zero();
  c.topology.link_bandwidth = {Bandwidth::bytes_per_second(9375000000ULL), Bandwidth::bytes_per_second(4680000000ULL),
                               Bandwidth::bytes_per_second(9375000000ULL)};
  c.nic.link_bandwidth = Bandwidth::bytes_per_second(9375000000ULL);
  c.router.switch_bandwidth = Bandwidth::gigabytes_per_second(100);
  c.nic.packet_header = Bytes(0);
  Harness h(c);
  const Topology& t = h.net.topology();
  const std::vector<uint32_t> far = {8, 4, 12};
  const EndpointId farthest = t.router_at(far) * 2;
  REQUIRE(t.router_hops(0, farthest) == 24);
  const uint64_t near_id = h.send(0, 1, 0);  // same Gemini, other node
  const uint64_t far_id = h.send(0, farthest, 0);
  h.run();
  CHECK(h.latency(near_id) == Time::ps(1270000));
  CHECK(h.latency(far_id) == Time::ps(3880000));
}

TEST_CASE("bottleneck throughput: link, switch, NIC link, DMA, slow dimension", "[zero-load][bandwidth]") {
  struct Case {
    const char* name;
    std::function<void(NetworkConfig&)> tweak;
    Time per_packet;
  };
  const Bandwidth slow = Bandwidth::gigabytes_per_second(1);
  const std::vector<Case> cases = {
      {"router link", [&](NetworkConfig& c) { c.topology.link_bandwidth = {slow}; }, ser(2080, slow)},
      {"switch", [&](NetworkConfig& c) { c.router.switch_bandwidth = slow; }, ser(2080, slow)},
      {"NIC link", [&](NetworkConfig& c) { c.nic.link_bandwidth = slow; }, ser(2080, slow)},
      {"DMA (payload only)", [&](NetworkConfig& c) { c.nic.dma_bandwidth = slow; }, ser(2048, slow)},
      {"Y dimension",
       [&](NetworkConfig& c) {
         c.topology.link_bandwidth = {kB, slow, kB};
       },
       ser(2080, slow)},
  };
  for (const Case& k : cases) {
    INFO(k.name);
    NetworkConfig c = simple_config("torus");
    k.tweak(c);
    // Endpoint 0 at (0,0,0) to the router at (2,2,0): the path crosses X and Y links.
    const EndpointId dst = 2 + 4 * 2;
    auto time_for = [&](uint64_t packets) {
      Harness h(c);
      const uint64_t id = h.send(0, dst, packets * 2048);
      h.run();
      return h.latency(id);
    };
    const Time t100 = time_for(100);
    const Time t300 = time_for(300);
    // Each extra packet costs exactly one bottleneck service time.
    CHECK(t300 - t100 == k.per_packet * 200);
  }
}

TEST_CASE("packet-level and analytic backends agree on an idle network", "[zero-load][analytic]") {
  std::mt19937_64 rng(5);
  for (auto [config, label] : all_routings()) {
    const bool single_path = label.rfind("dor", 0) == 0 || label.rfind("dmodk", 0) == 0;
    INFO(label);
    // Unequal rates so that a different stage limits each run.
    config.topology.link_bandwidth = {Bandwidth::bytes_per_second(3100000000ULL)};
    config.nic.dma_bandwidth = Bandwidth::bytes_per_second(2800000000ULL);
    config.router.switch_bandwidth = Bandwidth::bytes_per_second(3500000000ULL);
    config.router.vc_buffer = Bytes(131072);
    config.nic.rx_buffer = Bytes(131072);
    const Topology t = Topology::build(config);
    for (int trial = 0; trial < 12; ++trial) {
      const EndpointId a = static_cast<EndpointId>(rng() % t.endpoints());
      const EndpointId b = static_cast<EndpointId>(rng() % t.endpoints());
      const uint64_t bytes = single_path ? rng() % 300000 : rng() % 2049;
      require_same_timing(config, a, b, bytes);
    }
  }
}

TEST_CASE("analytic pipeline shortcut equals the packet model whichever stage limits", "[zero-load][analytic]") {
  // The analytic backend adds the packets after the pipeline is steady in one step; the packet
  // model walks every packet. Rates chosen so that each stage in turn is the bottleneck, with
  // near-ties (a stage 0.1% slower than the one before it fills slowly) and a slow middle stage.
  struct Rates {
    const char* name;
    uint64_t dma, nic, link_x, link_y, sw;
  };
  const std::vector<Rates> cases = {
      {"DMA slowest", 2000000000, 4000000000, 4000000000, 4000000000, 4000000000},
      {"NIC link slowest", 4000000000, 2000000000, 4000000000, 4000000000, 4000000000},
      {"Y links slowest", 4000000000, 4000000000, 4000000000, 2000000000, 4000000000},
      {"switch slowest", 4000000000, 4000000000, 4000000000, 4000000000, 2000000000},
      {"near ties down the path", 4000000000, 3996000000, 3992000000, 3988000000, 5000000000},
      {"near ties up the path", 3988000000, 3992000000, 3996000000, 4000000000, 5000000000},
      {"DMA just above the links", 4004000000, 8000000000, 4000000000, 4000000000, 8000000000},
  };
  std::mt19937_64 rng(11);
  for (const Rates& k : cases) {
    INFO(k.name);
    NetworkConfig c = simple_config("torus");
    c.topology.dims = {6, 5, 4};
    c.topology.link_bandwidth = {Bandwidth::bytes_per_second(k.link_x), Bandwidth::bytes_per_second(k.link_y),
                                 Bandwidth::bytes_per_second(k.link_x)};
    c.nic.dma_bandwidth = Bandwidth::bytes_per_second(k.dma);
    c.nic.link_bandwidth = Bandwidth::bytes_per_second(k.nic);
    c.router.switch_bandwidth = Bandwidth::bytes_per_second(k.sw);
    c.router.vc_buffer = Bytes(1 << 22);  // enough that no credit stalls the idle pipeline
    c.nic.rx_buffer = Bytes(1 << 22);
    const Topology t = Topology::build(c);
    for (int trial = 0; trial < 6; ++trial) {
      const EndpointId a = static_cast<EndpointId>(rng() % t.endpoints());
      const EndpointId b = static_cast<EndpointId>(rng() % t.endpoints());
      const uint64_t bytes = (trial == 0 ? 0 : rng() % (3u << 20)) + (trial % 2 ? 0 : 2048 * 700);
      require_same_timing(c, a, b, bytes);
    }
  }
}

TEST_CASE("analytic link accounting: the packet model's bytes, packets and busy time", "[zero-load][analytic]") {
  // The analytic backend charges each router output link the time it needs for the message's
  // wire bytes; on an idle network the packet model measures the same occupancy packet by
  // packet (each packet's serialisation is rounded on its own: at most 1 ps per packet apart).
  NetworkConfig packet = simple_config("torus");
  packet.topology.dims = {4, 3, 3};
  NetworkConfig analytic = packet;
  analytic.backend = "analytic";
  std::mt19937_64 rng(23);
  for (int trial = 0; trial < 8; ++trial) {
    Harness hp(packet), ha(analytic);
    const Topology t = Topology::build(packet);
    const EndpointId a = static_cast<EndpointId>(rng() % t.endpoints());
    const EndpointId b = static_cast<EndpointId>((a + 1 + rng() % (t.endpoints() - 1)) % t.endpoints());
    const uint64_t bytes = rng() % 100000;
    hp.send(a, b, bytes);
    ha.send(a, b, bytes);
    hp.run();
    ha.run();
    const auto lp = hp.net.links(), la = ha.net.links();
    // Router output ports come first, in the same order; NIC injection links follow in the
    // packet model only.
    REQUIRE(lp.size() == la.size() + t.endpoints());
    uint64_t router_links = 0;
    for (size_t i = 0; i < la.size(); ++i) {
      REQUIRE(la[i].name == lp[i].name);
      INFO(lp[i].name << ", " << bytes << " bytes");
      REQUIRE(la[i].stats.bytes == lp[i].stats.bytes);
      REQUIRE(la[i].stats.packets == lp[i].stats.packets);
      const int64_t diff = (la[i].stats.busy - lp[i].stats.busy).count_ps();
      REQUIRE(std::abs(diff) <= static_cast<int64_t>(lp[i].stats.packets));
      if (lp[i].stats.bytes) ++router_links;
    }
    REQUIRE(router_links >= 1);
    // Closed form for one link: wire bytes at the link rate.
    const uint64_t packets = bytes == 0 ? 1 : (bytes + 2047) / 2048;
    for (const auto& l : la) {
      if (l.stats.bytes) REQUIRE(l.stats.bytes == bytes + 32 * packets);
    }
  }
}
