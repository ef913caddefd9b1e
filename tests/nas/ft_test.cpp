// FT: every rank's calls and bytes against the closed forms of nas/docs/ft.md.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>

#include "nas_common.hpp"

using namespace mgen;

namespace {

struct Ft {
  char cls;
  uint64_t nx, ny, nz;
  uint64_t niter;
};

// Per rank: five 4-byte broadcasts (np1, np2, layout, niter, timers flag), two comm splits,
// the barrier, niter checksum reductions of one double complex, and niter + 2 3-D FFTs (the
// untimed one, the timed forward one, one inverse per iteration). Each FFT is one alltoall
// over all np processes in a 1-D layout (np <= nz), of ntot / np^2 complex numbers to each;
// in a 2-D layout (np1 = nz, np2 = np / nz) one over np1 processes of ntot / (np np1) and
// one over np2 processes of ntot / (np np2); none on one process.
test::Expected ft_expect(const Ft& c, uint64_t np) {
  const uint64_t ffts = c.niter + 2, per_rank = c.nx * c.ny * c.nz / np;
  test::Expected e = {
      {"bcast", {5, 5 * 4}}, {"comm_split", {2, 0}}, {"barrier", {1, 0}}, {"reduce", {c.niter, 16 * c.niter}}};
  if (np == 1) return e;
  if (np <= c.nz) {
    e["alltoall"] = {ffts, ffts * 16 * per_rank / np};
  } else {
    const uint64_t np1 = c.nz, np2 = np / c.nz;
    e["alltoall"] = {2 * ffts, ffts * 16 * (per_rank / np1 + per_rank / np2)};
  }
  return e;
}

void check_ranks(const Ft& c, int np) {
  const auto k = nas::make_ft();
  const nas::Result r = test::run_nas(*k, c.cls, np);
  REQUIRE(r.report.ok);
  const auto e = ft_expect(c, static_cast<uint64_t>(np));
  INFO("class " << c.cls << ", " << np << " processes");
  test::check_tallies(r, np, [&](int) { return e; });
  CHECK(r.time_s > 0);
}

}  // namespace

TEST_CASE("FT: each rank's calls and bytes equal the closed forms (S, W, A at 4, 8, 16)", "[nas][ft]") {
  for (Ft c : {Ft{'S', 64, 64, 64, 6}, Ft{'W', 128, 128, 32, 6}, Ft{'A', 256, 256, 128, 6}}) {
    for (int np : {4, 8, 16})
      check_ranks(c, np);
  }
}

TEST_CASE("FT: the 2-D layout beyond nz processes and the 0-D layout on one", "[nas][ft]") {
  check_ranks(Ft{'W', 128, 128, 32, 6}, 64);  // 32 x 2 process grid
  check_ranks(Ft{'S', 64, 64, 64, 6}, 256);   // 64 x 4
  check_ranks(Ft{'S', 64, 64, 64, 6}, 1);     // no transposes
}

TEST_CASE("FT refuses process counts and classes NPB cannot use, naming the rule", "[nas][ft]") {
  const auto k = nas::make_ft();
  CHECK_THAT(k->check({'A', 12}), Catch::Contains("power-of-two"));
  CHECK_THAT(k->check({'F', 4}), Catch::Contains("classes SWABCDE"));
  CHECK_THAT(k->check({'S', 8192}), Catch::Contains("without a z plane"));
  CHECK_THAT(k->check({'E', 8}), Catch::Contains("overflows NPB's 32-bit integer"));
  CHECK_THAT(k->check({'D', 4}), Catch::Contains("int byte counts"));
  CHECK(k->check({'S', 4096}).empty());
  CHECK(k->check({'C', 1024}).empty());
  CHECK(k->check({'D', 4096}).empty());
  CHECK(k->check({'E', 16}).empty());
}

TEST_CASE("FT: Mop/s follows NPB's operation count", "[nas][ft]") {
  const auto k = nas::make_ft();
  // NPB: 1e-6 ntot (14.8157 + 7.19641 ln ntot + (5.23518 + 7.21113 ln ntot) niter); class A:
  // ntot = 256 * 256 * 128 = 2^23, niter = 6.
  const double nt = 8388608.0, l = std::log(nt);
  CHECK(k->mops({'A', 4}) == Approx(1e-6 * nt * (14.8157 + 7.19641 * l + (5.23518 + 7.21113 * l) * 6)));
  CHECK(k->iterations({'A', 4}) == 6);
  CHECK(k->iterations({'D', 4096}) == 25);
}

TEST_CASE("NPB's time is the slowest process's timed part; for FT that is process 0's", "[nas][ft]") {
  // CG reduces its time with MPI_MAX; FT prints process 0's, the root of its checksum reduces.
  const nas::Result cg = test::run_nas(*nas::make_cg(), 'S', 8);
  REQUIRE(cg.report.ok);
  CHECK(cg.time_s == *std::max_element(cg.timed_s.begin(), cg.timed_s.end()));
  CHECK(cg.time_s > *std::min_element(cg.timed_s.begin(), cg.timed_s.end()));
  const nas::Result ft = test::run_nas(*nas::make_ft(), 'S', 8);
  REQUIRE(ft.report.ok);
  CHECK(ft.time_s == ft.timed_s.front());
}
