// analytic.nic_contention: messages queue at their source and destination NICs, against closed
// forms and against the packet-level model on patterns where the NICs are the bottleneck.
#include <catch2/catch.hpp>

#include "harness.hpp"

using namespace mgen::test;
using mgen::simcore::transfer_time;

namespace {

NetworkConfig contended(NetworkConfig c) {
  c.backend = "analytic";
  c.analytic.nic_contention = true;
  return c;
}

// Last delivery of a run, in ps.
int64_t last_delivery(const Harness& h) {
  Time last;
  for (const auto& [id, r] : h.records)
    last = mgen::simcore::max(last, r.delivered);
  return last.count_ps();
}

}  // namespace

TEST_CASE("analytic NIC contention: one source sends its messages one after another", "[analytic][nic-contention]") {
  const NetworkConfig base = simple_config("torus");
  Harness h(contended(base));
  const Topology t = Topology::build(base);
  const uint64_t bytes = 10000;
  // The zero-load time for the last packet to leave the source NIC does not depend on the path.
  const Time sent_one = h.net.zero_load(0, 1, Bytes(bytes)).sent;
  std::vector<uint64_t> ids;
  for (EndpointId d = 1; d <= 8; ++d)
    ids.push_back(h.send(0, d * 5 % t.endpoints(), bytes));
  h.run();
  for (size_t k = 0; k < ids.size(); ++k) {
    INFO("message " << k);
    REQUIRE(h.records[ids[k]].sent == sent_one * static_cast<int64_t>(k + 1));
    // Each is delivered as its own zero-load trip starting when the previous one left.
    const EndpointId d = static_cast<EndpointId>((k + 1) * 5 % t.endpoints());
    REQUIRE(h.records[ids[k]].delivered ==
            sent_one * static_cast<int64_t>(k) + h.net.zero_load(0, d, Bytes(bytes)).delivered);
  }
  // Without the option the eight messages travel side by side.
  Harness uncontended(([&] {
    NetworkConfig c = base;
    c.backend = "analytic";
    return c;
  })());
  for (EndpointId d = 1; d <= 8; ++d)
    uncontended.send(0, d * 5 % t.endpoints(), bytes);
  uncontended.run();
  for (const auto& [id, r] : uncontended.records)
    REQUIRE(r.sent == sent_one);
}

TEST_CASE("analytic NIC contention: an incast drains at the destination's ejection rate",
          "[analytic][nic-contention]") {
  // The ejection side is as fast as the slower of the ejection link and the last router's
  // switch: 4 GB/s each, then a 2 GB/s switch.
  for (const double switch_gbs : {4.0, 2.0}) {
    INFO("switch " << switch_gbs << " GB/s");
    NetworkConfig base = simple_config("torus");
    base.router.switch_bandwidth = Bandwidth::gigabytes_per_second(switch_gbs);
    const Topology t = Topology::build(base);
    const uint64_t bytes = 20480;  // ten full packets
    const uint32_t senders = 12;
    Harness h(contended(base));
    for (uint32_t s = 1; s <= senders; ++s)
      h.send(s * 3 % t.endpoints(), 0, bytes);
    h.run();
    // Closed form: the first message's zero-load delivery, then each further one the time its
    // wire bytes take at the ejection side (the DMA is faster).
    Time first = Time::max();
    for (uint32_t s = 1; s <= senders; ++s)
      first = mgen::simcore::min(first, h.net.zero_load(s * 3 % t.endpoints(), 0, Bytes(bytes)).delivered);
    const Time each = transfer_time(Bytes(bytes + 10 * 32), Bandwidth::gigabytes_per_second(switch_gbs));
    const int64_t drained = last_delivery(h);
    REQUIRE(drained == (first + each * static_cast<int64_t>(senders - 1)).count_ps());

    // The packet model, where the incast really contends for the ejection link: the same.
    Harness p(base);
    for (uint32_t s = 1; s <= senders; ++s)
      p.send(s * 3 % t.endpoints(), 0, bytes);
    p.run();
    INFO("analytic " << drained << " ps, packet " << last_delivery(p) << " ps");
    REQUIRE(drained == last_delivery(p));
  }
}

TEST_CASE("analytic NIC contention: a fan-out matches the packet model", "[analytic][nic-contention]") {
  // One rank's many sends (an all-to-all's view from one process) share its injection link.
  const NetworkConfig base = simple_config("torus");
  const Topology t = Topology::build(base);
  const uint64_t bytes = 8192;
  Harness a(contended(base)), p(base);
  for (EndpointId d = 1; d < 24; ++d) {
    a.send(0, d * 7 % t.endpoints(), bytes);
    p.send(0, d * 7 % t.endpoints(), bytes);
  }
  a.run();
  p.run();
  INFO("analytic " << last_delivery(a) << " ps, packet " << last_delivery(p) << " ps");
  REQUIRE(last_delivery(a) == last_delivery(p));
}

TEST_CASE("analytic NIC contention: queued messages do not pay the DMA latency again", "[analytic][nic-contention]") {
  // The source DMA reads ahead while the link sends the previous message, as in the packet
  // model: one DMA latency, then the link busy from end to end.
  NetworkConfig base = simple_config("torus");
  base.nic.dma_latency = Time::us(1);
  base.nic.dma_bandwidth = Bandwidth::gigabytes_per_second(8);  // faster than the 4 GB/s link
  const uint64_t bytes = 10000;                                 // 4 full packets and 1808 bytes
  Harness a(contended(base)), p(base);
  for (EndpointId d = 1; d <= 4; ++d) {
    a.send(0, d * 9, bytes);
    p.send(0, d * 9, bytes);
  }
  a.run();
  p.run();
  const Time per_message = transfer_time(Bytes(4 * 2080 + 1840), Bandwidth::gigabytes_per_second(4));
  const Time last_sent = Time::us(1) + per_message * 4;
  Time a_sent, p_sent;
  for (const auto& [id, r] : a.records)
    a_sent = mgen::simcore::max(a_sent, r.sent);
  for (const auto& [id, r] : p.records)
    p_sent = mgen::simcore::max(p_sent, r.sent);
  REQUIRE(a_sent == last_sent);
  REQUIRE(p_sent == last_sent);
}

TEST_CASE("analytic NIC contention: a message to an idle NIC is not held behind a later arrival",
          "[analytic][nic-contention]") {
  // Endpoint 5 first sends 400 KB elsewhere, then 40 KB to endpoint 0, which therefore reaches
  // 0 after about 100 us. Endpoint 1's 2 KB to 0, posted after both, arrives long before: the
  // ejection side is idle then and the message is delivered at its zero-load time, as in the
  // packet model.
  const NetworkConfig base = simple_config("torus");
  Harness a(contended(base)), p(base);
  for (Harness* h : {&a, &p}) {
    h->send(5, 42, 400000);
    h->send(5, 0, 40000);
    h->send(1, 0, 2048);
  }
  a.run();
  p.run();
  const Time alone = a.net.zero_load(1, 0, Bytes(2048)).delivered;
  REQUIRE(a.records[2].delivered == alone);
  REQUIRE(p.records[2].delivered == alone);
  // The source NIC sends whole messages in order: the 40 KB leave right after the 400 KB (19
  // full packets and 1,088 bytes at 4 GB/s). The packet model alternates packets between the
  // two messages instead, so its 40 KB finish early and its 400 KB late; the link is busy
  // for the same time, and the last packet leaves at the same moment.
  const Time forty = transfer_time(Bytes(19 * 2080 + 1120), Bandwidth::gigabytes_per_second(4));
  REQUIRE(a.records[1].sent == a.records[0].sent + forty);
  REQUIRE(mgen::simcore::max(p.records[0].sent, p.records[1].sent) == a.records[1].sent);
  REQUIRE(p.records[1].sent < p.records[0].sent);
}
