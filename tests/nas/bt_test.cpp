// BT: every rank's calls and bytes against the closed forms of nas/docs/bt.md.
#include <catch2/catch.hpp>

#include <map>
#include <string>

#include "adi_expect.hpp"

using namespace mgen;

namespace {

// Per rank, q = sqrt(np) > 1, niter time steps: copy_faces runs niter + 2 times (the untimed
// step, the timed steps, verification), the solves niter + 1 times. Each copy_faces posts 6
// Irecv and 6 Isend of F doubles in all and one Waitall; each of the 3 solves sends q - 1
// forward messages of 30 M^2 doubles and q - 1 back-substitution messages of 5 M^2 doubles,
// M = n / q + 1 (MAX_CELL_DIM), receives as many of the same sizes and waits on each
// request singly (4 (q - 1) Waits).
test::Expected bt_expect(int n, int niter, int np, int rank) {
  const auto cells = test::adi_cells(n, np, rank);
  const uint64_t q = cells.size(), m = static_cast<uint64_t>(n) / q + 1;
  const uint64_t faces = niter + 2, steps = niter + 1;
  const uint64_t f = test::adi_face_doubles(cells);
  const uint64_t p2p_calls = 6 * faces + 6 * (q - 1) * steps;
  const uint64_t p2p_bytes = 8 * f * faces + steps * 3 * (q - 1) * 8 * 35 * m * m;
  return {{"isend", {p2p_calls, p2p_bytes}},
          {"irecv", {p2p_calls, p2p_bytes}},
          {"wait", {12 * (q - 1) * steps, 0}},
          {"waitall", {faces, 0}},
          {"bcast", {6, 4 + 8 + 12 + 4 + 4 + 4}},  // niter, dt, grid_points, wr/rd_interval, timeron
          {"allreduce", {2, 2 * 5 * 8}},           // error_norm, rhs_norm
          {"reduce", {1, 8}},                      // the time
          {"barrier", {2, 0}},                     // before the timer; before finalize
          {"comm_split", {1, 0}},
          {"comm_dup", {2, 0}}};
}

}  // namespace

TEST_CASE("BT: each rank's calls and bytes equal the closed forms (S, W, A at 4, 9, 16)", "[nas][bt]") {
  const auto k = nas::make_bt();
  struct C {
    char cls;
    int n, niter;
  };
  for (C c : {C{'S', 12, 60}, C{'W', 24, 200}, C{'A', 64, 200}}) {
    for (int np : {4, 9, 16}) {
      const nas::Result r = test::run_nas(*k, c.cls, np);
      REQUIRE(r.report.ok);
      INFO("class " << c.cls << ", " << np << " processes");
      test::check_tallies(r, np, [&](int rank) { return bt_expect(c.n, c.niter, np, rank); });
      CHECK(r.time_s > 0);
    }
  }
}

TEST_CASE("BT on one process: no point-to-point messages", "[nas][bt]") {
  const auto k = nas::make_bt();
  const nas::Result r = test::run_nas(*k, 'S', 1);
  REQUIRE(r.report.ok);
  const nas::Tally& t = r.tallies[0];
  CHECK(t.calls_of("isend") == 0);
  CHECK(t.calls_of("irecv") == 0);
  CHECK(t.calls_of("bcast") == 6);
  CHECK(t.calls_of("allreduce") == 2);
  CHECK(r.time_s > 0);
}

TEST_CASE("BT refuses process counts and classes NPB cannot use, naming the rule", "[nas][bt]") {
  const auto k = nas::make_bt();
  CHECK_THAT(k->check({'A', 8}), Catch::Contains("square number of processes"));
  CHECK_THAT(k->check({'A', 12}), Catch::Contains("square number of processes"));
  CHECK_THAT(k->check({'F', 4}), Catch::Contains("classes SWABCDE"));
  CHECK_THAT(k->check({'S', 25}), Catch::Contains("at most 16 processes"));
  CHECK_THAT(k->check({'W', 81}), Catch::Contains("fewer than the 3"));  // 24 / 9 = 2 points
  CHECK(k->check({'A', 1}).empty());
  CHECK(k->check({'C', 1024}).empty());
  CHECK(k->check({'D', 4096}).empty());
}

TEST_CASE("BT: iterations and Mop/s follow NPB's print_results", "[nas][bt]") {
  const auto k = nas::make_bt();
  CHECK(k->iterations({'A', 4}) == 200);
  CHECK(k->iterations({'D', 4}) == 250);
  // NPB: niter (3478.8 n^3 - 17655.7 navg^2 + 28023.7 navg) / 10^6, navg = n on cubic grids.
  const double n = 64;
  CHECK(k->mops({'A', 4}) == Approx(200 * (3478.8 * n * n * n - 17655.7 * n * n + 28023.7 * n) / 1e6));
  const double c = 162;
  CHECK(k->mops({'C', 1024}) == Approx(200 * (3478.8 * c * c * c - 17655.7 * c * c + 28023.7 * c) / 1e6));
}
