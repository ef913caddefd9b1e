// IS: every rank's calls and bytes against the closed forms of nas/docs/is.md.
#include <catch2/catch.hpp>

#include <map>
#include <string>

#include "nas_common.hpp"

using namespace mgen;

namespace {

// Per rank: rank() runs 11 times (one untimed), each with one allreduce of the
// NUM_BUCKETS + 5 bucket totals (ints), one alltoall of one int per process and one alltoallv
// moving all NUM_KEYS = 2^t / np of the process's keys (ints). Around them: the timers flag,
// the reductions of the time (a double) and of the verification count (an int), and
// full_verify's one int to the next process (none from the last, none to the first).
test::Expected is_expect(int keys_log2, int buckets_log2, int np, int rank) {
  const uint64_t rankings = 11, keys = (uint64_t{1} << keys_log2) / static_cast<uint64_t>(np);
  const uint64_t buckets = uint64_t{1} << buckets_log2;
  test::Expected e = {{"bcast", {1, 4}},
                      {"allreduce", {rankings, rankings * 4 * (buckets + 5)}},
                      {"alltoall", {rankings, rankings * 4}},
                      {"alltoallv", {rankings, rankings * 4 * keys}},
                      {"reduce", {2, 8 + 4}}};
  if (rank < np - 1) e["send"] = {1, 4};
  if (rank > 0) {
    e["irecv"] = {1, 4};
    e["wait"] = {1, 0};
  }
  return e;
}

}  // namespace

TEST_CASE("IS: each rank's calls and bytes equal the closed forms (S, W, A at 4, 8, 16)", "[nas][is]") {
  const auto k = nas::make_is();
  struct C {
    char cls;
    int keys_log2, buckets_log2;
  };
  for (C c : {C{'S', 16, 9}, C{'W', 20, 10}, C{'A', 23, 10}}) {
    for (int np : {4, 8, 16}) {
      const nas::Result r = test::run_nas(*k, c.cls, np);
      REQUIRE(r.report.ok);
      INFO("class " << c.cls << ", " << np << " processes");
      test::check_tallies(r, np, [&](int rank) { return is_expect(c.keys_log2, c.buckets_log2, np, rank); });
      uint64_t moved = 0;
      for (const nas::Tally& t : r.tallies)
        moved += t.bytes_of("alltoallv");
      // Every key of every ranking goes somewhere: 11 rankings of 2^t four-byte keys.
      CHECK(moved == 11 * 4 * (uint64_t{1} << c.keys_log2));
      CHECK(r.time_s > 0);
    }
  }
}

TEST_CASE("IS class D scales its keys by its minimum of 4 processes", "[nas][is]") {
  const auto k = nas::make_is();
  // NUM_KEYS = 2^29 / np * 4; Mop/s counts 10 * 2^29 * 4 keys ranked.
  CHECK(k->mops({'D', 4}) == Approx(10.0 * 536870912.0 * 4 / 1e6));
  CHECK(k->check({'D', 4}).empty());
}

TEST_CASE("IS refuses process counts and classes NPB cannot use, naming the rule", "[nas][is]") {
  const auto k = nas::make_is();
  CHECK_THAT(k->check({'A', 12}), Catch::Contains("power-of-two"));
  CHECK_THAT(k->check({'E', 16}), Catch::Contains("no class E for IS"));
  CHECK_THAT(k->check({'F', 16}), Catch::Contains("classes SWABCD"));
  CHECK_THAT(k->check({'S', 256}), Catch::Contains("1 to 128 processes"));
  CHECK_THAT(k->check({'A', 2048}), Catch::Contains("1 to 1024 processes"));
  CHECK_THAT(k->check({'D', 2}), Catch::Contains("4 to 1024 processes"));
  CHECK(k->check({'S', 128}).empty());
  CHECK(k->check({'C', 1024}).empty());
}

TEST_CASE("IS: Mop/s follows NPB's operation count", "[nas][is]") {
  const auto k = nas::make_is();
  // NPB: MAX_ITERATIONS * TOTAL_KEYS * MIN_PROCS keys ranked; class A: 10 * 2^23 * 1.
  CHECK(k->mops({'A', 4}) == Approx(10.0 * 8388608 / 1e6));
  CHECK(k->iterations({'A', 4}) == 10);
}
