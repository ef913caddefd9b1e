// EP: every rank's calls and bytes against the closed forms of nas/docs/ep.md.
#include <catch2/catch.hpp>

#include <cmath>
#include <map>
#include <string>

#include "nas_common.hpp"

using namespace mgen;

namespace {

// Independent of class and process count: the timers flag (one MPI_LOGICAL), the barrier
// before the timer, and four allreduces of doubles: sx, sy, the nq = 10 annulus counts, and
// the time after the timer.
test::Expected ep_expect() {
  return {{"bcast", {1, 4}}, {"barrier", {1, 0}}, {"allreduce", {4, 8 * (1 + 1 + 10 + 1)}}};
}

}  // namespace

TEST_CASE("EP: each rank's calls and bytes equal the closed forms (S, W, A at 4, 8, 16)", "[nas][ep]") {
  const auto k = nas::make_ep();
  for (char cls : {'S', 'W', 'A'}) {
    double previous = 0;
    for (int np : {4, 8, 16}) {
      const nas::Result r = test::run_nas(*k, cls, np);
      REQUIRE(r.report.ok);
      INFO("class " << cls << ", " << np << " processes");
      test::check_tallies(r, np, [](int) { return ep_expect(); });
      // The batches divide evenly here, so twice the processes take half the time (the final
      // allreduces are microseconds against the generation's tenths of seconds).
      CHECK(r.time_s > 0);
      if (previous > 0) CHECK(r.time_s == Approx(previous / 2).epsilon(0.01));
      previous = r.time_s;
    }
  }
}

TEST_CASE("EP runs on any number of processes up to one batch each", "[nas][ep]") {
  const auto k = nas::make_ep();
  // Class S: 2^8 batches; on 6 processes the first 256 mod 6 = 4 take 43, the others 42, and
  // the slowest sets the time.
  const nas::Result six = test::run_nas(*k, 'S', 6);
  const nas::Result two = test::run_nas(*k, 'S', 2);
  REQUIRE(six.report.ok);
  REQUIRE(two.report.ok);
  CHECK(six.tallies[5].calls_of("allreduce") == 4);
  CHECK(six.time_s == Approx(two.time_s * 43 / 128).epsilon(0.01));
}

TEST_CASE("EP refuses process counts and classes NPB cannot use, naming the rule", "[nas][ep]") {
  const auto k = nas::make_ep();
  CHECK(k->check({'S', 256}).empty());
  CHECK_THAT(k->check({'S', 257}), Catch::Contains("at most 256 processes"));
  CHECK_THAT(k->check({'W', 1000}), Catch::Contains("at most 512 processes"));
  CHECK_THAT(k->check({'A', 0}), Catch::Contains("at least one process"));
  CHECK_THAT(k->check({'F', 4}), Catch::Contains("classes SWABCDE"));
  CHECK(k->check({'C', 1024}).empty());
  CHECK(k->check({'D', 4096}).empty());
  CHECK(k->check({'E', 12}).empty());
}

TEST_CASE("EP: Mop/s follows NPB's operation count", "[nas][ep]") {
  const auto k = nas::make_ep();
  // NPB: 2^(m+1) random numbers; m = 28 for class A, 32 for class C.
  CHECK(k->mops({'A', 4}) == Approx(std::pow(2.0, 29) / 1e6));
  CHECK(k->mops({'C', 4}) == Approx(std::pow(2.0, 33) / 1e6));
  CHECK(k->iterations({'A', 4}) == 0);
}

TEST_CASE("A tally counts calls and bytes by NPB's call names; other names count nothing", "[nas][tally]") {
  nas::Tally t;
  t.add(nas::Tally::kSend, 100);
  t.add(nas::Tally::kSend, 28);
  t.add(nas::Tally::kCommDup, 0);
  CHECK(t.calls_of("send") == 2);
  CHECK(t.bytes_of("send") == 128);
  CHECK(t.calls_of("comm_dup") == 1);
  CHECK(t.calls_of("recv") == 0);
  CHECK(t.calls_of("no_such_call") == 0);
  CHECK(t.bytes_of("no_such_call") == 0);
  CHECK(t.used() == std::vector<std::string>{"send", "comm_dup"});
}
