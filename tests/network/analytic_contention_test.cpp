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
  Harness free_(([&] {
    NetworkConfig c = base;
    c.backend = "analytic";
    return c;
  })());
  for (EndpointId d = 1; d <= 8; ++d)
    free_.send(0, d * 5 % t.endpoints(), bytes);
  free_.run();
  for (const auto& [id, r] : free_.records)
    REQUIRE(r.sent == sent_one);
}

TEST_CASE("analytic NIC contention: an incast drains at the destination's link rate", "[analytic][nic-contention]") {
  const NetworkConfig base = simple_config("torus");
  const Topology t = Topology::build(base);
  const uint64_t bytes = 20480;  // ten full packets
  const uint32_t senders = 12;
  Harness h(contended(base));
  for (uint32_t s = 1; s <= senders; ++s)
    h.send(s * 3 % t.endpoints(), 0, bytes);
  h.run();
  // Closed form: the first message's zero-load delivery, then each further one the time its
  // wire bytes take on the ejection link (4 GB/s; the DMA is faster).
  const Time first = h.net.zero_load(3, 0, Bytes(bytes)).delivered;
  const Time each = transfer_time(Bytes(bytes + 10 * 32), Bandwidth::gigabytes_per_second(4));
  const int64_t drained = last_delivery(h);
  REQUIRE(drained >= (each * static_cast<int64_t>(senders)).count_ps());
  REQUIRE(drained <= (first + each * static_cast<int64_t>(senders)).count_ps());

  // The packet model, where the incast really contends for the ejection link, agrees within 1% (on this idle,
  // deep-buffered torus it is exact).
  Harness p(base);
  for (uint32_t s = 1; s <= senders; ++s)
    p.send(s * 3 % t.endpoints(), 0, bytes);
  p.run();
  const double ratio = static_cast<double>(drained) / static_cast<double>(last_delivery(p));
  INFO("analytic " << drained << " ps, packet " << last_delivery(p) << " ps");
  REQUIRE(ratio == Approx(1.0).epsilon(0.01));
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
  const double ratio = static_cast<double>(last_delivery(a)) / static_cast<double>(last_delivery(p));
  INFO("analytic " << last_delivery(a) << " ps, packet " << last_delivery(p) << " ps");
  REQUIRE(ratio == Approx(1.0).epsilon(0.01));
}
