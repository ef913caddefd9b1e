// Gemini FMA transport (PPT §5): every 96-byte put request (64 B of data, 32 B of overhead) is
// answered by a 9-byte response from the destination NIC. Responses ride the reverse path, so
// a one-way stream is as fast as without them, and two opposing streams each get the link's
// rate x 64 / (96 + 9): PPT's 105 bytes per transaction.
#include <catch2/catch.hpp>

#include "harness.hpp"

using namespace mgen::test;
using mgen::simcore::transfer_time;

namespace {

// The NIC links (2 GB/s) are the bottleneck; routers are twice as fast.
NetworkConfig fma_config(const std::string& transport) {
  NetworkConfig c = simple_config("torus");
  c.nic.packet_payload = Bytes(64);
  c.nic.packet_header = Bytes(32);
  c.nic.link_bandwidth = Bandwidth::gigabytes_per_second(2);
  c.nic.transport = transport;
  c.nic.response_bytes = Bytes(9);
  return c;
}

}  // namespace

TEST_CASE("FMA: a single put's latency and the sender's completion are unchanged", "[fma]") {
  for (uint64_t bytes : {8, 64, 4096}) {
    Harness plain(fma_config("packets")), fma(fma_config("fma"));
    const uint64_t a = plain.send(0, 21, bytes), b = fma.send(0, 21, bytes);
    plain.run();
    fma.run();
    CHECK(plain.records[a].delivered == fma.records[b].delivered);
    CHECK(plain.records[a].sent == fma.records[b].sent);
    // Each put was answered: as many 9-byte packets came back as puts went out.
    const uint64_t puts = (bytes + 63) / 64;
    CHECK(fma.net.totals().packets == 2 * puts);
    CHECK(fma.net.totals().messages_delivered == 1);
  }
}

TEST_CASE("FMA: one-way streams run at 64/96 of the link, opposing ones at 64/105", "[fma]") {
  const Bandwidth nic = Bandwidth::gigabytes_per_second(2);
  auto one_way = [&](const std::string& transport, uint64_t puts) {
    Harness h(fma_config(transport));
    const uint64_t id = h.send(0, 21, puts * 64);
    h.run();
    return h.latency(id);
  };
  // Per extra put: one 96-byte request on the sender's NIC link, with or without responses.
  CHECK(one_way("fma", 3000) - one_way("fma", 1000) == transfer_time(Bytes(96), nic) * 2000);
  CHECK(one_way("packets", 3000) - one_way("packets", 1000) == transfer_time(Bytes(96), nic) * 2000);

  auto both_ways = [&](const std::string& transport, uint64_t puts) {
    Harness h(fma_config(transport));
    const uint64_t x = h.send(0, 21, puts * 64), y = h.send(21, 0, puts * 64);
    h.run();
    return mgen::simcore::max(h.latency(x), h.latency(y));
  };
  const double per_put_plain = (both_ways("packets", 3000) - both_ways("packets", 1000)).nanoseconds() / 2000;
  const double per_put_fma = (both_ways("fma", 3000) - both_ways("fma", 1000)).nanoseconds() / 2000;
  CHECK(per_put_plain == Approx(transfer_time(Bytes(96), nic).nanoseconds()).epsilon(1e-6));
  // Each NIC link now carries a request and a response per put of each stream.
  CHECK(per_put_fma == Approx(transfer_time(Bytes(105), nic).nanoseconds()).epsilon(0.01));
}

TEST_CASE("FMA: configuration errors", "[fma]") {
  NetworkConfig c = fma_config("fmaa");
  CHECK_THROWS_WITH(validate(c), Catch::Contains("unknown transport 'fmaa'"));
  c = fma_config("fma");
  c.nic.response_bytes = Bytes(0);
  CHECK_THROWS_WITH(validate(c), Catch::Contains("FMA response of 0 B"));
  c = fma_config("fma");
  c.backend = "dimemas";
  CHECK_THROWS_WITH(validate(c), Catch::Contains("the dimemas backend has no packets"));
  // The analytic backend takes FMA machines: responses never change an idle one-way time.
  c.backend = "analytic";
  CHECK_NOTHROW(validate(c));
}

TEST_CASE("FMA: opposing streams give the same picoseconds every run", "[fma][determinism]") {
  auto run_once = [] {
    Harness h(fma_config("fma"));
    const uint64_t x = h.send(0, 21, 200000), y = h.send(21, 0, 150000), z = h.send(5, 21, 70000);
    h.run();
    return std::vector<Time>{h.records[x].delivered, h.records[y].delivered, h.records[z].delivered, h.records[x].sent};
  };
  CHECK(run_once() == run_once());
}
