// IS: every rank's calls and bytes against the closed forms of nas/docs/is.md.
#include <catch2/catch.hpp>

#include <cmath>
#include <map>
#include <string>
#include <vector>

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

namespace {

// NPB's randlc as Bailey wrote it, in doubles: x = a x mod 2^46 through 23-bit halves, returning
// x 2^-46. A second implementation of the generator the skeleton runs in integers.
double randlc(double& x, double a) {
  const double r23 = std::ldexp(1.0, -23), t23 = std::ldexp(1.0, 23), r46 = std::ldexp(1.0, -46),
               t46 = std::ldexp(1.0, 46);
  const double a1 = std::floor(r23 * a), a2 = a - t23 * a1;
  const double x1 = std::floor(r23 * x), x2 = x - t23 * x1;
  const double t1 = a1 * x2 + a2 * x1;
  const double z = t1 - t23 * std::floor(r23 * t1);
  const double t3 = t23 * z + a2 * x2;
  x = t3 - t46 * std::floor(r46 * t3);
  return r46 * x;
}

// is.c's find_my_seed: a^(nn/np) by squaring, then its kn-th power applied to the seed.
double find_my_seed(int kn, int np, uint64_t nn, double s, double a) {
  uint64_t nq = nn / static_cast<uint64_t>(np);
  double t1 = a;
  for (; nq > 1; nq /= 2)
    randlc(t1, t1);
  double an = t1;
  t1 = s;
  for (int kk = kn; kk > 0; kk /= 2) {
    if (kk % 2) randlc(t1, an);
    randlc(an, an);
  }
  return t1;
}

// Keys each process receives in each of the 11 rankings of a real IS run, from NPB's keys
// (create_seq per process, rank()'s two altered keys per iteration on process 0, the bucket
// split of rank()).
std::vector<uint64_t> npb_keys_ranked(int total_log2, int max_key_log2, int buckets_log2, int np) {
  const uint64_t keys = (uint64_t{1} << total_log2) / static_cast<uint64_t>(np);
  const int max_key = 1 << max_key_log2, shift = max_key_log2 - buckets_log2;
  std::vector<std::vector<int>> key(static_cast<size_t>(np));
  for (int p = 0; p < np; ++p) {
    double seed = find_my_seed(p, np, 4 * (uint64_t{1} << total_log2), 314159265.0, 1220703125.0);
    for (uint64_t i = 0; i < keys; ++i) {
      double x = 0;
      for (int j = 0; j < 4; ++j)
        x += randlc(seed, 1220703125.0);
      key[static_cast<size_t>(p)].push_back(static_cast<int>((max_key / 4) * x));
    }
  }
  std::vector<uint64_t> ranked(static_cast<size_t>(np), 0);
  const size_t buckets = size_t{1} << buckets_log2;
  for (int iteration : {1, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10}) {
    key[0][static_cast<size_t>(iteration)] = iteration;
    key[0][static_cast<size_t>(iteration + 10)] = max_key - iteration;
    std::vector<std::vector<uint64_t>> local(static_cast<size_t>(np), std::vector<uint64_t>(buckets, 0));
    std::vector<uint64_t> total(buckets, 0);
    for (int p = 0; p < np; ++p) {
      for (int k : key[static_cast<size_t>(p)]) {
        ++local[static_cast<size_t>(p)][static_cast<size_t>(k >> shift)];
        ++total[static_cast<size_t>(k >> shift)];
      }
    }
    // Bucket i goes to the owner whose share the running total has not yet passed.
    uint64_t sum = 0;
    size_t owner = 0;
    for (size_t i = 0; i < buckets; ++i) {
      sum += total[i];
      ranked[owner] += total[i];
      if (sum >= (owner + 1) * keys) ++owner;
    }
  }
  return ranked;
}

}  // namespace

TEST_CASE("IS seeds every process as find_my_seed does, class D's MIN_PROCS included", "[nas][is]") {
  struct C {
    char cls;
    int np, rank, total_log2, max_key_log2, min_procs;
  };
  for (C c : {C{'S', 4, 3, 16, 11, 1}, C{'A', 16, 9, 23, 19, 1}, C{'C', 1024, 1023, 27, 23, 1}, C{'D', 4, 3, 29, 27, 4},
              C{'D', 1024, 517, 29, 27, 4}}) {
    INFO("class " << c.cls << ", process " << c.rank << " of " << c.np);
    const uint64_t total = uint64_t{1} << c.total_log2;
    double seed = find_my_seed(c.rank, c.np, 4 * total * static_cast<uint64_t>(c.min_procs), 314159265.0, 1220703125.0);
    std::vector<int64_t> want;
    for (int i = 0; i < 21; ++i) {
      double x = 0;
      for (int j = 0; j < 4; ++j)
        x += randlc(seed, 1220703125.0);
      want.push_back(static_cast<int64_t>(((1 << c.max_key_log2) / 4) * x));
    }
    CHECK(nas::is_first_keys(c.cls, c.np, c.rank) == want);
  }
}

TEST_CASE("IS moves NPB's own keys: every rank ranks what it would in a real run (S, W, A at 4, 8, 16)", "[nas][is]") {
  const auto k = nas::make_is();
  struct C {
    char cls;
    int keys_log2, max_key_log2, buckets_log2;
  };
  for (C c : {C{'S', 16, 11, 9}, C{'W', 20, 16, 10}, C{'A', 23, 19, 10}}) {
    for (int np : {4, 8, 16}) {
      INFO("class " << c.cls << ", " << np << " processes");
      const std::vector<uint64_t> want = npb_keys_ranked(c.keys_log2, c.max_key_log2, c.buckets_log2, np);
      const nas::Result r = test::run_nas(*k, c.cls, np);
      REQUIRE(r.report.ok);
      uint64_t uneven = 0;
      for (int rank = 0; rank < np; ++rank) {
        INFO("rank " << rank);
        CHECK(r.tallies[static_cast<size_t>(rank)].received_of("alltoallv") == 4 * want[static_cast<size_t>(rank)]);
        const uint64_t even = 11 * (uint64_t{1} << c.keys_log2) / static_cast<uint64_t>(np);
        uneven += want[static_cast<size_t>(rank)] > even ? want[static_cast<size_t>(rank)] - even : 0;
      }
      CHECK(uneven > 0);  // the split is not the even one the keys average to
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

TEST_CASE("IS (data-dependent sizes) predicts the same to the last bit on every run", "[nas][is]") {
  const auto k = nas::make_is();
  const nas::Result a = test::run_nas(*k, 'W', 16), b = test::run_nas(*k, 'W', 16);
  REQUIRE(a.report.ok);
  REQUIRE(b.report.ok);
  CHECK(a.time_s == b.time_s);
  CHECK(a.report.predicted_s() == b.report.predicted_s());
  REQUIRE(a.report.ranks.size() == b.report.ranks.size());
  for (size_t r = 0; r < a.report.ranks.size(); ++r) {
    INFO("rank " << r);
    CHECK(a.report.ranks[r].finish_s() == b.report.ranks[r].finish_s());
    CHECK(a.report.ranks[r].wait_s() == b.report.ranks[r].wait_s());
    CHECK(a.report.ranks[r].bytes == b.report.ranks[r].bytes);
    CHECK(a.tallies[r].received_of("alltoallv") == b.tallies[r].received_of("alltoallv"));
  }
}
