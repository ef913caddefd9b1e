// The partition model (mgen/net/partition_model.hpp) against hand-counted windows, blocks and
// lookaheads.
#include <catch2/catch.hpp>

#include "harness.hpp"
#include "mgen/net/partition_model.hpp"

using namespace mgen::test;
using mgen::net::PartitionModel;

namespace {

// An 8-router ring (torus [8]) with 600 ps links: blocks of 4 (P = 2) and of 2 (P = 4).
Topology ring8() {
  NetworkConfig c = simple_config();
  c.topology.dims = {8};
  return Topology::build(c);
}

}  // namespace

TEST_CASE("windows, the busiest block and the speedups, counted by hand", "[partition]") {
  const Topology t = ring8();
  PartitionModel m(t, {2, 4});
  // Window 1 opens at 0 and ends at 600 ps (the ring's only link latency): routers 0, 1, 1, 5.
  m.observe(Time::ps(0), 0);
  m.observe(Time::ps(100), 1);
  m.observe(Time::ps(599), 1);
  m.observe(Time::ps(599), 5);
  // Window 2 opens at the next event, 1000 ps (not at 600: an idle stretch is skipped), until
  // 1600: router 7 twice, one event outside the network.
  m.observe(Time::ps(1000), 7);
  m.observe(Time::ps(1200), 7);
  m.observe(Time::ps(1599), PartitionModel::kNoRouter);
  // Window 3 at 1600: router 2.
  m.observe(Time::ps(1600), 2);
  const std::vector<PartitionModel::Row> rows = m.rows();
  REQUIRE(rows.size() == 2);
  CHECK(m.events() == 8);
  CHECK(m.network_events() == 7);

  const PartitionModel::Row& two = rows[0];  // blocks {0-3}, {4-7}
  CHECK(two.partitions == 2);
  CHECK(two.lookahead == Time::ps(600));
  CHECK(two.windows == 3);
  // Busiest per window: 3 (block 0: routers 0, 1, 1), 2 + 1/2 (block 1: router 7 twice, and
  // half of the event outside the network), 1.
  CHECK(two.critical == 6.5);
  CHECK(two.work_speedup == Approx(8.0 / 6.5));
  CHECK(two.imbalance == Approx(6.5 / (8.0 / 2)));
  CHECK(two.events_per_window == Approx(8.0 / 3));
  // 1 ns per event and 10 ns per window: 8 ns serial against 6.5 + 30 ns.
  CHECK(two.speedup(1e-9, 1e-8) == Approx(8.0 / 36.5));

  const PartitionModel::Row& four = rows[1];  // blocks {0,1}, {2,3}, {4,5}, {6,7}
  CHECK(four.partitions == 4);
  CHECK(four.windows == 3);
  // 3 (block 0), 2 + 1/4, 1.
  CHECK(four.work_speedup == Approx(8.0 / 6.25));
}

TEST_CASE("a job in a corner of the machine is cut inside the corner", "[partition]") {
  const Topology t = ring8();
  // Ranks on routers 2 and 3 only: P = 2 puts router 2 (and 0, 1 before it) in block 0 and
  // router 3 and everything after it in block 1; the cut links are 2-3 and 7-0.
  std::vector<uint32_t> weight(8, 0);
  weight[2] = 1;
  weight[3] = 1;
  PartitionModel m(t, {2, 4}, weight);
  m.observe(Time::ps(0), 2);
  m.observe(Time::ps(1), 3);
  m.observe(Time::ps(2), 3);
  const std::vector<PartitionModel::Row> rows = m.rows();
  REQUIRE(rows.size() == 2);
  CHECK_FALSE(rows[1].fits);  // 4 blocks need 4 loaded routers
  CHECK(rows[0].partitions == 2);
  CHECK(rows[0].critical == 2);  // router 3's block: 2 of the 3 events
  CHECK(rows[0].lookahead == Time::ps(600));
}

TEST_CASE("a count above the loaded routers is a row that does not fit", "[partition]") {
  const Topology t = ring8();
  std::vector<uint32_t> weight(8, 0);
  weight[0] = weight[1] = weight[2] = 5;
  PartitionModel m(t, {2, 4, 3}, weight);
  m.observe(Time::ps(0), 0);
  const std::vector<PartitionModel::Row> rows = m.rows();
  REQUIRE(rows.size() == 3);
  CHECK(rows[0].partitions == 2);
  CHECK(rows[0].fits);
  CHECK(rows[1].partitions == 3);  // not a power of two: blocks of its own
  CHECK(rows[1].fits);
  CHECK(rows[2].partitions == 4);
  CHECK_FALSE(rows[2].fits);
  CHECK(rows[2].loaded == 3);
  CHECK(rows[2].windows == 0);
}

TEST_CASE("routers without endpoints go with the next loaded router's block", "[partition]") {
  // A 2-level fat tree: leaves 0-3 hold the nodes, spines 4-7 none. Weighted by endpoints (as
  // `mgen traffic` weighs them), 2 blocks are leaves {0, 1} and leaves {2, 3} with the spines
  // (after the last loaded router): an event on each spine lands in block 1.
  NetworkConfig c = simple_config("fattree");
  c.topology.down = {4, 4};
  c.topology.up = {4};
  const Topology t = Topology::build(c);
  REQUIRE(t.routers() == 8);
  std::vector<uint32_t> weight(t.routers(), 0);
  for (mgen::net::EndpointId e = 0; e < t.endpoints(); ++e)
    ++weight[t.endpoint_router(e)];
  REQUIRE(weight[4] == 0);
  PartitionModel m(t, {2}, weight);
  for (uint32_t r = 4; r < 8; ++r)
    m.observe(Time::ps(0), r);
  m.observe(Time::ps(0), 0);
  const std::vector<PartitionModel::Row> rows = m.rows();
  REQUIRE(rows.size() == 1);
  CHECK(rows[0].critical == 4);  // the four spines, in block 1; router 0 alone in block 0
}

TEST_CASE("the lookahead is the least latency of a cut link", "[partition]") {
  // A 2-level fat tree whose leaf-to-spine links are slower than the torus's: every cut crosses
  // them, since a leaf and its nodes stay in one block.
  NetworkConfig c = simple_config("fattree");
  c.topology.down = {4, 4};
  c.topology.up = {4};
  c.topology.link_latency = Time::ns(250);
  const Topology t = Topology::build(c);
  PartitionModel m(t, {2, 4});
  m.observe(Time::ps(0), 0);
  for (const PartitionModel::Row& r : m.rows())
    CHECK(r.lookahead == Time::ns(250));
  // No cut at all (one partition per machine is not modelled): counts below 2 are dropped.
  PartitionModel none(t, {1});
  CHECK(none.rows().empty());
}
